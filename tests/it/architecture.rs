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
