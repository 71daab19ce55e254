//! The documents name only what exists: every certbench command line in README.md and
//! docs/*.md (code blocks and inline code) uses subcommands and flags that `--help` lists, and
//! every flag named alone in inline code is one of certbench's (or of a tool named beside it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::CommandFactory;

/// Long flags per subcommand (`""` = the driver), `--help` and `--version` included.
fn flags() -> BTreeMap<String, BTreeSet<String>> {
    let cmd = certbench::cli::Cli::command();
    let of = |c: &clap::Command| -> BTreeSet<String> {
        c.get_arguments()
            .filter(|a| !a.is_hide_set())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .chain(["--help".to_owned(), "--version".to_owned()])
            .collect()
    };
    let mut all = BTreeMap::new();
    all.insert(String::new(), of(&cmd));
    for sub in cmd.get_subcommands() {
        all.insert(sub.get_name().to_owned(), of(sub));
    }
    all
}

/// Flags of the other tools the documents show (cargo, git, curl, Servo's mach, Chromium,
/// the scripts), which certbench does not have.
const OTHER_TOOLS: &[&str] = &[
    "--release",
    "--workspace",
    "--bench",
    "--features",
    "--all-targets",
    "--test",
    "--check",
    "--no-default-features",
    "--sanitizer",
    "--directory",
    "--include",
    "--cacert",
    "--headless",
    "--certificate-path",
    "--screenshot",
    "--window-size",
    "--list",
    "--no-run",
    "--prefix",
];

fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

/// The code of `text`: each line of a fenced block (continuation lines joined), and each
/// inline code span, with its line number.
fn code(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut pending = String::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let l = line.split(" #").next().unwrap_or("");
            match l.trim_end().strip_suffix('\\') {
                Some(head) => pending.push_str(head),
                None => {
                    pending.push_str(l.trim_end());
                    out.push((i + 1, std::mem::take(&mut pending)));
                }
            }
        } else {
            for (k, span) in line.split('`').enumerate() {
                if k % 2 == 1 {
                    out.push((i + 1, span.to_owned()));
                }
            }
        }
    }
    out
}

/// The certbench command in `code`, if it is one: (subcommand, the words after it).
fn command(code: &str) -> Option<Vec<String>> {
    let rest = if let Some(i) = code.find("cargo run --release --") {
        &code[i + "cargo run --release --".len()..]
    } else {
        let i = code.find("certbench ")?;
        if i > 0 && !code[..i].ends_with(char::is_whitespace) {
            return None; // a path or a crate name, not the program
        }
        &code[i + "certbench ".len()..]
    };
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// Checks the code of one document: (certbench command lines seen, problems found).
fn check(
    name: &str,
    text: &str,
    flags: &BTreeMap<String, BTreeSet<String>>,
) -> (usize, Vec<String>) {
    let everyone: BTreeSet<&String> = flags.values().flatten().collect();
    let mut problems = Vec::new();
    let mut commands = 0;
    for (line, code) in code(text) {
        if let Some(words) = command(&code) {
            commands += 1;
            let sub = match words.first() {
                Some(w)
                    if !w.starts_with(['-', '[', '<', '.', '/'])
                        && w.chars().all(|c| c.is_ascii_lowercase()) =>
                {
                    if !flags.contains_key(w.as_str()) {
                        problems.push(format!("{name}:{line}: no subcommand `{w}` in `{code}`"));
                        continue;
                    }
                    w.clone()
                }
                _ => String::new(),
            };
            for w in &words {
                let w = w
                    .trim_start_matches('[')
                    .trim_end_matches([']', ',', '.', ';', ')']);
                let flag = w.split('=').next().unwrap();
                if flag.starts_with("--") && flag.len() > 2 && !flags[&sub].contains(flag) {
                    let who = if sub.is_empty() {
                        "the driver"
                    } else {
                        sub.as_str()
                    };
                    problems.push(format!("{name}:{line}: {who} has no {flag} (in `{code}`)"));
                }
            }
        } else if code.starts_with("--") {
            let flag = code
                .split([' ', '='])
                .next()
                .unwrap()
                .trim_end_matches([',', '.']);
            if !everyone.contains(&flag.to_owned()) && !OTHER_TOOLS.contains(&flag) {
                problems.push(format!("{name}:{line}: no certbench command has {flag}"));
            }
        }
    }
    (commands, problems)
}

#[test]
fn every_flag_and_subcommand_the_documents_name_exists() {
    let flags = flags();
    let (mut commands, mut problems) = (0, Vec::new());
    for doc in documents() {
        let name = doc.file_name().unwrap().to_string_lossy().into_owned();
        let (c, p) = check(&name, &std::fs::read_to_string(&doc).unwrap(), &flags);
        commands += c;
        problems.extend(p);
    }
    assert!(
        commands > 30,
        "only {commands} command lines found: is the parser right?"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_finds_what_does_not_exist() {
    let flags = flags();
    assert!(flags[""].contains("--hook") && flags["verify"].contains("--cache-roots"));
    assert!(
        !flags["verify"].contains("--hook"),
        "the driver's flag only"
    );
    assert_eq!(
        command("cargo run --release -- verify --chains DIR").unwrap(),
        ["verify", "--chains", "DIR"]
    );
    assert!(command("certbench-core = { path }").is_none());
    let found = code(
        "text `certbench limbo FILE` and\n```sh\ncargo run --release -- a \\\n  --b   # c\n```\n",
    );
    assert_eq!(found[0], (1, "certbench limbo FILE".to_owned()));
    assert_eq!(found[1].1, "cargo run --release -- a   --b");
    // A document naming what does not exist: each is a problem, with its line.
    let bad = "Run `certbench verify --hook replace` or `certbench nosuch`, then `--no-such-flag`.\n\
               ```sh\ncargo run --release -- --sites sites.txt \\\n  --mirorr\n```\n\
               Fine: `certbench verify --cache-roots`, `--release`, `certbench [--sites FILE]`.\n";
    let (commands, problems) = check("bad.md", bad, &flags);
    assert_eq!(commands, 5, "{problems:?}");
    assert_eq!(
        problems,
        [
            "bad.md:1: verify has no --hook (in `certbench verify --hook replace`)",
            "bad.md:1: no subcommand `nosuch` in `certbench nosuch`",
            "bad.md:1: no certbench command has --no-such-flag",
            "bad.md:4: the driver has no --mirorr (in `cargo run --release -- --sites sites.txt   --mirorr`)",
        ]
    );
}
