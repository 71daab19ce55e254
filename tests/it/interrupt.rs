//! Ctrl-C and `--resume`, with the CLI as a child process against its loopback mirror:
//! SIGINT stops after the current sample, prints the tables of what was measured and leaves
//! valid JSONL (exit 130); a second SIGINT quits at once without a broken line; `--resume`
//! takes exactly the samples that are missing, and refuses options that would make its
//! samples measure something else than the first part's.

use std::collections::HashSet;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use certbench_schema::io::read_jsonl;

/// The binary's mirror cache (the CLI then loads it instead of generating).
fn cache() -> &'static Path {
    &crate::common::mirror().0.dir
}

fn start(raw_flag: &str, raw: &Path, runs: u32) -> Child {
    start_with(raw_flag, raw, runs, &[])
}

fn start_with(raw_flag: &str, raw: &Path, runs: u32, extra: &[&str]) -> Child {
    crate::common::certbench_command()
        .args(["--sites", "sites.txt", "--method", "openssl,rustlsserial"])
        .args(common_args(raw_flag, raw, runs))
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The mirror, its cache, the run count, no warm-up and the raw file.
fn common_args(raw_flag: &str, raw: &Path, runs: u32) -> Vec<std::ffi::OsString> {
    let mut v: Vec<std::ffi::OsString> = ["--mirror", "--runs", &runs.to_string()]
        .iter()
        .map(Into::into)
        .collect();
    v.extend(["--warmup", "0", "--mirror-cache"].map(Into::into));
    v.push(cache().into());
    v.push(raw_flag.into());
    v.push(raw.into());
    v
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

fn wait_for_lines(path: &Path, n: usize) {
    let t = Instant::now();
    while lines(path) < n {
        assert!(t.elapsed() < Duration::from_secs(120), "no samples coming");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn sigint(child: &Child) {
    // SAFETY: kill(2) with a live child's pid and a valid signal number.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
}

/// Every line a valid sample; the keys (site, method, warm-up, run).
fn samples(path: &Path) -> Vec<(String, String, bool, u32)> {
    let text = std::fs::read(path).unwrap();
    let (samples, errors) = read_jsonl(text.as_slice());
    assert!(errors.is_empty(), "{errors:?}");
    assert!(text.ends_with(b"\n"), "the file ends with a whole line");
    samples
        .iter()
        .map(|s| (s.site.clone(), s.method.clone(), s.warmup, s.run))
        .collect()
}

#[test]
fn ctrl_c_stops_after_the_current_sample_and_resume_takes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("run.jsonl");
    let runs = 3;
    let all = 13 * 2 * runs as usize;
    let child = start("--raw", &raw, runs);
    wait_for_lines(&raw, 5);
    sigint(&child);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("stopping after the current sample"),
        "{stderr}"
    );
    assert!(stderr.contains("--resume"), "{stderr}");
    // The tables of what was measured.
    assert!(stdout.contains("### openssl"), "{stdout}");
    let first = samples(&raw);
    assert!(first.len() >= 5 && first.len() < all, "{}", first.len());

    // --resume: the missing samples only, appended; the tables cover the whole run.
    let child = start("--resume", &raw, runs);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("{} samples already taken", first.len())),
        "{stderr}"
    );
    let keys = samples(&raw);
    assert_eq!(keys.len(), all, "every sample once");
    let unique: HashSet<_> = keys.iter().collect();
    assert_eq!(unique.len(), all, "no sample taken twice");
    assert_eq!(
        &keys[..first.len()],
        &first[..],
        "the first part is untouched"
    );
    // Every table row counts the whole run: the samples taken before and after the stop.
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("| reddit.com"))
        .filter(|l| {
            let n = l.split('|').nth(2).unwrap_or("").trim();
            !n.is_empty() && n.chars().all(|c| c.is_ascii_digit())
        })
        .collect();
    assert_eq!(rows.len(), 2, "one row per method: {stdout}");
    for row in rows {
        let n = row.split('|').nth(2).unwrap().trim();
        assert_eq!(n, runs.to_string(), "{row}");
    }
}

#[test]
fn a_second_ctrl_c_quits_at_once_and_leaves_whole_lines() {
    // A good site, then one whose server never answers: once the good site's sample is in
    // the file, the stalled one is under way and holds the first Ctrl-C's graceful stop for
    // the whole (long) timeout, so only the second Ctrl-C can end the run quickly. (With
    // good sites alone, the current sample could finish before the second signal came.)
    let dir = tempfile::tempdir().unwrap();
    let sites = dir.path().join("sites.txt");
    std::fs::write(&sites, "reddit.com\nstall.mirror.test\n").unwrap();
    let raw = dir.path().join("run.jsonl");
    let child = crate::common::certbench_command()
        .arg("--sites")
        .arg(&sites)
        .args(["--method", "openssl", "--timeout", "100"])
        .args(common_args("--raw", &raw, 100))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_lines(&raw, 1);
    std::thread::sleep(Duration::from_millis(100));
    sigint(&child);
    std::thread::sleep(Duration::from_millis(100));
    sigint(&child);
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(out.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("stopping after the current sample"),
        "{stderr}"
    );
    assert!(stderr.contains("interrupted again"), "{stderr}");
    let taken = samples(&raw);
    assert_eq!(taken.len(), 1, "the good site's sample, whole: {taken:?}");
    assert_eq!(taken[0].0, "reddit.com");
}

#[test]
fn resume_refuses_options_that_change_what_a_sample_measures() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("run.jsonl");
    let out = start("--raw", &raw, 1).wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let before = std::fs::read(&raw).unwrap();
    assert_eq!(samples(&raw).len(), 13 * 2);

    // Another transport, another hook, another root set: refused, the file untouched.
    for (extra, named) in [
        (
            &["--transport", "rustls"][..],
            "--transport was openssl, now rustls",
        ),
        (
            &["--hook", "replace"][..],
            "--hook was callback, now replace",
        ),
        (
            &["--tls-resumption"][..],
            "--tls-resumption was false, now true",
        ),
    ] {
        let out = start_with("--resume", &raw, 2, extra)
            .wait_with_output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(named), "{stderr}");
        assert!(stderr.contains("give the same options"), "{stderr}");
        assert_eq!(std::fs::read(&raw).unwrap(), before, "file untouched");
    }

    // The same options with more runs: a continuation, taken.
    let out = start("--resume", &raw, 2).wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(samples(&raw).len(), 13 * 2 * 2);
}
