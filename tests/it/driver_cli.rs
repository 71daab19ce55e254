//! The driver as users run it: `certbench --sites FILE --mirror`, offline, on loopback only.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use certbench_analysis::schema::read_jsonl;
use certbench_analysis::{Stage, Verdict};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_certbench"))
}

#[test]
fn mirror_run_prints_tables_skips_bad_lines_and_reuses_cached_clones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sites = d.join("sites.txt");
    std::fs::write(
        &sites,
        "# test sites\nreddit.com\nftp://nope.example\ncnn.com\nexpired.mirror.test\n",
    )
    .unwrap();
    let cache = d.join("cache");
    let raw = d.join("s.jsonl");
    let args = |raw: &std::path::Path| {
        let mut c = bin();
        c.args([
            "--sites",
            sites.to_str().unwrap(),
            "--mirror",
            "--method",
            "all",
        ])
        .args([
            "--runs",
            "2",
            "--warmup",
            "0",
            "--mirror-cache",
            cache.to_str().unwrap(),
        ])
        .args(["--raw", raw.to_str().unwrap()]);
        c
    };
    let out = args(&raw).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    // The bad line and the expired host make the exit code say so; the rest is measured.
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("line 3: `ftp://nope.example`: scheme `ftp` is not https"),
        "{err}"
    );
    assert!(err.contains("(generated)"), "{err}");
    let md = String::from_utf8(out.stdout).unwrap();
    for t in [
        "### openssl over openssl",
        "### rustlsserial over openssl",
        "### rustlsparallel over openssl",
    ] {
        assert!(md.contains(t), "{md}");
    }
    assert!(
        md.contains("| reddit.com") && md.contains("| cnn.com"),
        "{md}"
    );
    assert!(
        md.contains("openssl-verify"),
        "the callback hook's extra cost is a column"
    );
    assert!(md.contains("rejected: certificate has expired"), "{md}");
    assert!(md.contains("rejected: CertExpired"), "{md}");

    let (samples, errors) = read_jsonl(std::io::BufReader::new(std::fs::File::open(&raw).unwrap()));
    assert!(errors.is_empty());
    assert_eq!(samples.len(), 3 * certbench::Method::ALL.len() * 2);
    for s in samples.iter().filter(|s| s.verdict == Verdict::Ok) {
        assert!(s.stages.values().all(|&v| v > 0));
        assert!(s.stage(Stage::Connection).unwrap() <= s.stage(Stage::Total).unwrap());
        assert_eq!(s.meta.tls_version.as_deref(), Some("TLSv1.3"));
    }

    // Second run, over rustls: the clones come from the cache, no key generation, and
    // every method's table is there, inside the TimedVerifier.
    let raw2 = d.join("s2.jsonl");
    let out = args(&raw2)
        .args(["--transport", "rustls"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("(cached)") && !err.contains("generating"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(3), "{err}");
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("rustls transport (TimedVerifier)"), "{md}");
    for &m in certbench::Method::ALL {
        assert!(md.contains(&format!("### {m} over rustls")), "{m}: {md}");
    }
    assert!(md.contains("### comparison"), "{md}");
    assert!(
        !md.contains("openssl-verify"),
        "no OpenSSL handshake over rustls"
    );
    assert!(md.contains("rejected: CertExpired"), "{md}");
    let (samples, errors) =
        read_jsonl(std::io::BufReader::new(std::fs::File::open(&raw2).unwrap()));
    assert!(errors.is_empty());
    assert_eq!(samples.len(), 3 * certbench::Method::ALL.len() * 2);
    for s in samples.iter().filter(|s| s.verdict == Verdict::Ok) {
        assert_eq!(s.transport.as_deref(), Some("rustls"));
        assert!(s.stage(Stage::TotalVerification).unwrap() > 0);
        assert_eq!(s.meta.tls_version.as_deref(), Some("TLSv1.3"));
    }
}

#[test]
fn a_killed_run_leaves_every_finished_sample_in_valid_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sites = d.join("sites.txt");
    std::fs::write(&sites, "reddit.com\ncnn.com\n").unwrap();
    let raw = d.join("s.jsonl");
    let mut child = bin()
        .args(["--sites", sites.to_str().unwrap(), "--mirror", "--quiet"])
        .args(["--runs", "1000", "--warmup", "0"])
        .args([
            "--mirror-cache",
            crate::common::mirror().0.dir.to_str().unwrap(),
        ])
        .args(["--raw", raw.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let lines = || {
        std::fs::File::open(&raw)
            .map(|f| std::io::BufReader::new(f).lines().count())
            .unwrap_or(0)
    };
    while lines() < 20 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no samples written"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap(); // SIGKILL: no chance to clean up
    child.wait().unwrap();
    let (samples, errors) = read_jsonl(std::io::BufReader::new(std::fs::File::open(&raw).unwrap()));
    assert!(
        errors.is_empty(),
        "every line is a whole sample: {errors:?}"
    );
    assert!(samples.len() >= 20);
    assert!(samples.iter().all(|s| s.verdict == Verdict::Ok));
}
