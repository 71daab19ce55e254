//! Bad input a new user tries, through the binary: a report of a file that holds nothing,
//! and a count that would make a command measure nothing. Each is a clear error naming the
//! file or the flag, with the documented exit code (1 nothing to report, 2 clap's usage
//! error), never an empty report or an empty run that exits 0.

use std::path::Path;
use std::process::{Command, Output};

fn certbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_certbench"))
        .args(args)
        .output()
        .expect("run certbench")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `report FILE` of a file with no record: exit 1, the file named, no report printed.
fn nothing_to_report(args: &[&str], file: &str) {
    let out = certbench(args);
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(
        err.contains(&format!(
            "certbench: error: {file}: nothing to report (no sample or result in it)"
        )),
        "{args:?}: {err}"
    );
    assert!(
        err.contains("nothing to report: no file given holds a sample or a result"),
        "{args:?}: {err}"
    );
    assert!(
        out.stdout.is_empty(),
        "{args:?}: no empty report is printed"
    );
}

#[test]
fn a_report_of_files_with_nothing_in_them_is_an_error_naming_each() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    let blank = dir.path().join("blank.jsonl");
    std::fs::write(&empty, "").unwrap();
    std::fs::write(&blank, "\n   \n\t\n\n").unwrap();
    for file in [
        "/dev/null",
        empty.to_str().unwrap(),
        blank.to_str().unwrap(),
    ] {
        nothing_to_report(&["report", file], file);
        // `--quiet` silences progress, never an error.
        nothing_to_report(&["report", "--quiet", file], file);
    }
}

#[test]
fn a_report_with_some_bad_lines_is_made_from_the_good_ones_and_exits_3() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let mixed = dir.path().join("mixed.jsonl");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mirror-run.jsonl");
    let mut text = std::fs::read_to_string(fixture).unwrap();
    let good = text.lines().count();
    text.push_str("this is not a sample\n");
    std::fs::write(&mixed, text).unwrap();
    let out = certbench(&["report", "--quiet", mixed.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("{}: line {}", mixed.display(), good + 1)),
        "the bad line named with its number: {err}"
    );
    assert!(!err.contains("nothing to report"), "{err}");
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.contains("total-verification") && md.contains("| duckduckgo.com "),
        "the report is made: {md}"
    );
}

/// Every count that would make a command measure nothing is refused by clap before the
/// command runs: exit 2, clap's message naming the flag and the range it takes.
#[test]
fn a_count_of_zero_that_would_measure_nothing_is_a_usage_error() {
    let _alone = crate::alone();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--sites", "sites.txt", "--mirror", "--runs", "0"],
            "--runs",
        ),
        (&["verify", "--runs", "0"], "--runs"),
        (&["page", "--pages", "pages.txt", "--loads", "0"], "--loads"),
        (&["handshake", "--handshakes", "0"], "--handshakes"),
        (&["handshake", "--clients", "0"], "--clients"),
        (&["handshake", "--hold", "10,0"], "--hold"),
        (&["bulk", "--runs", "0"], "--runs"),
        (&["bulk", "--mib", "0"], "--mib"),
        (
            &["limbo", "x.json", "--timings", "--timing-repeats", "0"],
            "--timing-repeats",
        ),
        (
            &["limbo", "x.json", "--timings", "--timings-top", "0"],
            "--timings-top",
        ),
        (&["icount", "--iterations", "0"], "--iterations"),
        (&["icount", "--repeat", "0"], "--repeat"),
        (&["revocation-scale", "--cold-runs", "0"], "--cold-runs"),
        (&["revocation-scale", "--warm-runs", "0"], "--warm-runs"),
    ];
    for &(args, flag) in cases {
        let out = certbench(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("invalid value '0' for '{flag} <"))
                && err.contains("0 is not in 1.."),
            "{args:?}: {err}"
        );
        assert!(
            out.stdout.is_empty(),
            "{args:?}: nothing measured or printed"
        );
    }
}

/// A warm-up of 0 is meaningful (measure without one): accepted, and the run measures.
#[test]
fn a_warmup_of_zero_measures_without_one() {
    let _alone = crate::alone();
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.jsonl");
    let out = certbench(&[
        "verify",
        "--method",
        "rustlsserial",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--raw",
        raw.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bytes = std::fs::read(&raw).unwrap();
    let (samples, errors) = certbench_schema::io::read_jsonl(&bytes[..]);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(!samples.is_empty());
    assert!(samples.iter().all(|s| !s.warmup), "no warm-up sample");
}
