//! The driver as users run it: `certbench --sites FILE --mirror`, offline, on loopback only.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use certbench_schema::io::read_jsonl;
use certbench_schema::{Stage, Verdict};

fn bin() -> Command {
    crate::common::certbench_command()
}

#[test]
fn mirror_run_prints_tables_skips_bad_lines_and_reuses_cached_clones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sites = d.join("sites.txt");
    // Two bad lines (one not UTF-8): each named and skipped, the others measured.
    std::fs::write(
        &sites,
        b"# test sites\nreddit.com\nftp://nope.example\ncnn.com\nb\xfccher.example\nexpired.mirror.test\n",
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
    assert!(
        err.contains("line 5: not UTF-8 (byte 0xFC at column 2) (skipped)"),
        "{err}"
    );
    assert!(err.contains("(generated)"), "{err}");
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.contains("Configuration: over openssl, full handshakes, roots per use"),
        "{md}"
    );
    for t in [
        "### openssl — hook native, OpenSSL policy X509_STRICT",
        "### rustlsserial — hook callback, OpenSSL policy X509_STRICT",
        "### rustlsparallel — hook callback",
    ] {
        assert!(md.contains(t), "{md}");
    }
    // Both views and the answer, which names what the callback hook adds.
    assert!(md.contains("### own cost per site"), "{md}");
    assert!(md.contains("### 2017 view per site"), "{md}");
    assert!(
        md.contains("### verification's share of the connection"),
        "{md}"
    );
    // The answer's bullets wrap: their continuation lines joined, a sentence reads whole.
    let answer = md.split("### answer").nth(1).expect("an answer");
    let answer = answer.split("\n### ").next().unwrap_or_default();
    let answer = &answer.replace("\n  ", " ");
    assert!(
        answer.lines().filter(|l| l.starts_with("- ")).count() <= 10,
        "{answer}"
    );
    assert!(answer.contains("By own cost"), "{answer}");
    assert!(answer.contains("(`openssl-verify`: median"), "{answer}");
    assert!(answer.contains(" --hook replace`"), "{answer}");
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
    assert_eq!(samples.len(), 3 * crate::common::all_methods().len() * 2);
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
    assert!(md.contains("Configuration: over rustls"), "{md}");
    for &m in crate::common::all_methods() {
        assert!(
            md.contains(&format!("### {m} — hook timed-verifier")),
            "{m}: {md}"
        );
    }
    assert!(md.contains("### own cost per site"), "{md}");
    assert!(
        !md.contains("### 2017 view"),
        "one view without openssl-verify: {md}"
    );
    assert!(
        md.replace("\n  ", " ")
            .contains("the 2017 view is the own cost"),
        "{md}"
    );
    assert!(
        md.contains(" --transport openssl --hook callback`"),
        "the other hook is the seed's: {md}"
    );
    assert!(
        !md.contains("| openssl-verify"),
        "no OpenSSL handshake over rustls: {md}"
    );
    assert!(md.contains("rejected: CertExpired"), "{md}");
    let (samples, errors) =
        read_jsonl(std::io::BufReader::new(std::fs::File::open(&raw2).unwrap()));
    assert!(errors.is_empty());
    assert_eq!(samples.len(), 3 * crate::common::all_methods().len() * 2);
    for s in samples.iter().filter(|s| s.verdict == Verdict::Ok) {
        assert_eq!(
            s.config.transport,
            Some(certbench_schema::Transport::Rustls.into())
        );
        assert!(s.stage(Stage::TotalVerification).unwrap() > 0);
        assert_eq!(s.meta.tls_version.as_deref(), Some("TLSv1.3"));
    }

    // The replace hook, under --quiet, which silences progress, never errors: the bad lines
    // are still named.
    let raw3 = d.join("s3.jsonl");
    let out = args(&raw3)
        .args(["--hook", "replace", "--quiet"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].contains("line 3: `ftp://nope.example`"), "{err}");
    assert!(lines[1].contains("line 5: not UTF-8"), "{err}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("| cnn.com"), "{md}");
    assert!(
        md.contains("### rustlsserial — hook replace, no OpenSSL policy, "),
        "{md}"
    );

    // A report over the callback run and the replace run: each hook its own table, named;
    // openssl's samples are one configuration in both runs, so they are one table.
    let report = |args: &[&str]| {
        let out = bin().arg("report").args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let (a, b) = (raw.to_str().unwrap(), raw3.to_str().unwrap());
    let md = report(&[a, b]);
    for t in [
        "### rustlsserial [hook callback] — hook callback",
        "### rustlsserial [hook replace] — hook replace",
        "### openssl — hook native",
    ] {
        assert_eq!(md.matches(t).count(), 1, "{t}: {md}");
    }
    let own = md.split("### own cost per site").nth(1).unwrap();
    let header = own.lines().find(|l| l.starts_with("| site")).unwrap();
    assert!(
        header.contains("rustlsserial [hook callback]")
            && header.contains("rustlsserial [hook replace]"),
        "{header}"
    );
    let openssl = md.split("### openssl — hook native").nth(1).unwrap();
    let cnn = openssl
        .lines()
        .find(|l| l.starts_with("| cnn.com"))
        .unwrap();
    let n = cnn.split('|').nth(2).unwrap().trim();
    assert_eq!(n, "4", "both runs' samples, one configuration: {cnn}");
    // A/B pairs the same configuration only: openssl's.
    let ab = report(&["--baseline", a, "--candidate", b, "--format", "csv"]);
    let methods: std::collections::BTreeSet<&str> = ab
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').nth(1))
        .collect();
    assert_eq!(methods.into_iter().collect::<Vec<_>>(), ["openssl"], "{ab}");
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

/// `--ct --mirror`: every method with a CT check checks the clones' SCTs against the mirror's
/// own logs (the default list with `--mirror`), which the title and each sample name;
/// `openssl` checks none. `--resume` of that run without `--ct` is refused: it would measure
/// something else.
#[test]
fn ct_on_the_mirror_checks_against_the_mirrors_logs_and_resume_keeps_it() {
    let set = &crate::common::mirror().0;
    let logs = certbench_core::ct::CtLogs::from_v3_json(&set.ct_log_list, "mirror").unwrap();
    let label = format!("{} logs of mirror", logs.logs().len());
    let dir = tempfile::tempdir().unwrap();
    let sites = dir.path().join("sites.txt");
    // (Not cnn.com: its leaf embeds no SCT, its clone's neither; a CT check rejects it.)
    std::fs::write(&sites, "reddit.com\ngithub.com\n").unwrap();
    let raw = dir.path().join("ct.jsonl");
    let methods: Vec<String> = ["rustlsserial", "chrome", "firefox", "openssl"]
        .into_iter()
        .filter(|m| crate::common::all_methods().iter().any(|a| a.name() == *m))
        .map(str::to_owned)
        .collect();
    let run = |extra: &[&str]| {
        bin()
            .args(["--sites", sites.to_str().unwrap(), "--mirror", "--quiet"])
            .args([
                "--method",
                &methods.join(","),
                "--runs",
                "1",
                "--warmup",
                "0",
            ])
            .args(["--mirror-cache", set.dir.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--ct", "--raw", raw.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains(&format!("checks as shipped (CT against {label}")),
        "{md}"
    );
    let (samples, errors) = read_jsonl(std::io::BufReader::new(std::fs::File::open(&raw).unwrap()));
    assert!(errors.is_empty());
    assert_eq!(samples.len(), 2 * methods.len());
    for s in &samples {
        assert_eq!(s.verdict, Verdict::Ok, "{} {}", s.method, s.site);
        let ct = s.meta.ct;
        if s.method == "openssl" {
            assert!(ct.is_none() && s.config.ct.is_none() && s.stage(Stage::Ct).is_none());
            continue;
        }
        let ct = ct.unwrap_or_else(|| panic!("{} {}: no CT check", s.method, s.site));
        assert!(
            ct.scts >= 2 && ct.valid == ct.scts && ct.compliant,
            "{ct:?}"
        );
        assert!(s.stage(Stage::Ct).is_some_and(|ns| ns > 0), "{s:?}");
        assert_eq!(s.config.ct.as_deref(), Some(label.as_str()));
    }
    // Resumed without --ct: refused, naming the option (the browsers still check CT as
    // shipped, Servo's methods no longer would).
    let out = run(&["--resume", raw.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "--ct was {label}, Servo's methods too, now {label}"
        )),
        "{err}"
    );
}
