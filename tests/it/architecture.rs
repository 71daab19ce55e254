//! docs/architecture.md names only files and folders that exist: a newcomer reads it to find
//! where a line belongs, so a name it gives that is gone (a file moved or renamed) sends them
//! nowhere. Checked for every file (`….rs`) and folder (`…/`) in its inline code.

use std::path::{Path, PathBuf};

/// The folders a name may be rooted at when it starts with one of them.
const ROOTED: &[&str] = &[
    "core/",
    "schema/",
    "src/",
    "analysis/",
    "tests/",
    "scripts/",
    "docs/",
    "benches/",
    "patches/",
    "fuzz/",
    "corpus/",
];

/// Every file and folder under `dir`, as paths relative to the repository's root, folders
/// with a trailing `/`.
fn tree(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let rel = dir.join(entry.file_name());
        let name = rel.to_string_lossy().into_owned();
        if entry.path().is_dir() {
            out.push(format!("{name}/"));
            tree(root, &rel, out);
        } else {
            out.push(name);
        }
    }
}

/// `a/{b,c}.rs` → `a/b.rs`, `a/c.rs` (one level of braces, as the document writes them).
fn expand(name: &str) -> Vec<String> {
    match (name.find('{'), name.find('}')) {
        (Some(open), Some(close)) if open < close => name[open + 1..close]
            .split(',')
            .map(|part| format!("{}{}{}", &name[..open], part.trim(), &name[close + 1..]))
            .collect(),
        _ => vec![name.to_owned()],
    }
}

/// Whether `name` names a file or folder of `tree`: from the repository's root when it starts
/// with a top folder, else inside the section's folder (`## \`core/src/\``), at any depth.
fn exists(tree: &[String], name: &str, section: Option<&str>) -> bool {
    if ROOTED.iter().any(|r| name.starts_with(r)) {
        return tree.iter().any(|t| t == name);
    }
    let within = section.unwrap_or("");
    tree.iter()
        .filter(|t| t.starts_with(within))
        .any(|t| t.ends_with(&format!("/{name}")) || *t == name)
}

/// The names in `text` (a document in docs/architecture.md's form) that `tree` lacks, each
/// with its line number.
fn missing(text: &str, tree: &[String]) -> Vec<(usize, String)> {
    let mut section: Option<String> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading
                .trim()
                .strip_prefix('`')
                .and_then(|h| h.strip_suffix('`'))
                .filter(|h| h.ends_with('/'))
                .map(str::to_owned);
        }
        for (k, span) in line.split('`').enumerate() {
            let is_path = span
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-./{},".contains(c));
            let named = span.ends_with(".rs") || (span.ends_with('/') && span.len() > 1);
            if k % 2 == 0 || !is_path || !named || span.starts_with('.') {
                continue;
            }
            for name in expand(span) {
                if !exists(tree, &name, section.as_deref()) {
                    out.push((i + 1, name));
                }
            }
        }
    }
    out
}

fn repository() -> (PathBuf, Vec<String>) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for top in ROOTED {
        files.push((*top).to_owned());
        tree(&root, Path::new(top.trim_end_matches('/')), &mut files);
    }
    (root, files)
}

#[test]
fn every_file_and_folder_architecture_md_names_exists() {
    let (root, tree) = repository();
    let text = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let gone = missing(&text, &tree);
    assert!(
        gone.is_empty(),
        "docs/architecture.md names what does not exist (line, name): {gone:?}"
    );
}

#[test]
fn the_check_finds_a_file_that_is_not_there() {
    let (_, tree) = repository();
    let doc = "## `src/`\n\n| `versions.rs`, `run/sink.rs` | … |\n\n## Other\n\n`core/src/{stages,nothing}.rs`\n";
    assert_eq!(
        missing(doc, &tree),
        [
            (3, "versions.rs".to_owned()),
            (7, "core/src/nothing.rs".to_owned())
        ]
    );
}

/// One "Adding one" list: its heading, the count its heading states, its bullets' paths (with
/// whether each is new), and its example's own files (its `Example: …` paragraph).
struct Recipe {
    heading: String,
    stated: usize,
    paths: Vec<(String, bool)>,
    example: Vec<String>,
}

/// The lists of the "## Adding one" section.
fn recipes(text: &str) -> Vec<Recipe> {
    let section = text
        .split("\n## Adding one\n")
        .nth(1)
        .expect("an Adding one section");
    let section = section.split("\n## ").next().unwrap();
    let mut out: Vec<Recipe> = Vec::new();
    let mut example = false;
    for line in section.lines() {
        example = (example && !line.is_empty()) || line.starts_with("Example: ");
        if let Some(h) = line.strip_prefix("### ") {
            // "(2 files)", "(1 folder, 1 edit)", "(10 files; …)": the figures before any `;`,
            // added up.
            let figures = h.split('(').nth(1).unwrap_or("").split(';').next().unwrap();
            let stated = (figures.split(|c: char| !c.is_ascii_digit()))
                .filter_map(|n| n.parse::<usize>().ok())
                .sum();
            out.push(Recipe {
                heading: h.to_owned(),
                stated,
                paths: Vec::new(),
                example: Vec::new(),
            });
        } else if let (Some(r), Some(item)) = (out.last_mut(), line.strip_prefix("- `")) {
            let path = item.split('`').next().unwrap().to_owned();
            r.paths.push((path, item.contains("(new ")));
        } else if let (Some(r), true) = (out.last_mut(), example) {
            let spans = line.split('`').skip(1).step_by(2);
            r.example
                .extend(spans.filter(|s| s.ends_with(".rs")).map(str::to_owned));
        }
    }
    out
}

/// Every `.rs` file under `dir`, relative to `root`, with its code: lines that are comments
/// left out, and test modules' files (`*_tests.rs`, `tests.rs`, `tests/`) skipped.
fn code_files(root: &Path, dir: &str) -> Vec<(String, String)> {
    let mut names = Vec::new();
    tree(root, Path::new(dir), &mut names);
    (names.into_iter())
        .filter(|n| n.ends_with(".rs") && !n.ends_with("tests.rs") && !n.contains("/tests/"))
        .map(|n| {
            let text = std::fs::read_to_string(root.join(&n)).unwrap();
            let code: Vec<&str> = (text.lines())
                .take_while(|l| l.trim() != "#[cfg(test)]")
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            (n, code.join("\n"))
        })
        .collect()
}

/// Each "Adding one" list names as many files as its heading says, each there (a new file's
/// folder); and where its example's name appears in code, the file is in the list or is the
/// example's own: the list is every place one more of its kind would touch.
#[test]
fn each_adding_one_list_holds_against_the_tree() {
    let (root, tree) = repository();
    let text = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let recipes = recipes(&text);
    assert_eq!(
        recipes.len(),
        3,
        "method, output format, revocation mechanism"
    );
    for r in &recipes {
        assert_eq!(r.paths.len(), r.stated, "{}: {:?}", r.heading, r.paths);
        for (path, _) in &r.paths {
            assert!(
                tree.contains(path),
                "{}: {path} is not in the tree",
                r.heading
            );
        }
    }
    let listed = |r: &Recipe, file: &str| {
        (r.paths.iter()).any(|(p, new)| p == file || (*new && file.starts_with(p.as_str())))
            || r.example.iter().any(|e| e == file)
    };
    // The example of each list, and the code that names it.
    let examples: [(&str, &[&str], &str); 2] = [
        ("An output format", &["analysis/src"], "csv::"),
        (
            "A revocation mechanism",
            &["schema/src", "core/src", "src", "analysis/src"],
            "Mechanism::Upki",
        ),
    ];
    for (heading, dirs, name) in examples {
        let r = (recipes.iter().find(|r| r.heading.starts_with(heading))).unwrap();
        for dir in dirs {
            for (file, code) in code_files(&root, dir) {
                if code.contains(name) {
                    assert!(
                        listed(r, &file),
                        "{heading}: {file} names {name} but is not listed"
                    );
                }
            }
        }
    }
}
