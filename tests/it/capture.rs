//! `certbench capture`: the 13 sites of sites.txt captured from the loopback mirror, then
//! measured by `certbench verify --chains DIR`; a failing site is an error row, the rest are
//! captured.

use certbench_core::corpus::Corpus;
use certbench_schema::Verdict;
use certbench_schema::io::read_jsonl;

use super::common;

#[test]
fn capture_saves_the_mirrors_chains_and_verify_measures_them() {
    let (set, cache) = common::mirror();
    let dir = tempfile::tempdir().unwrap();
    let sites = dir.path().join("sites.txt");
    let mut text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sites.txt")).unwrap();
    // Two sites that cannot be captured: an expired leaf, and a refused connection.
    text.push_str("expired.mirror.test\nrefused.mirror.test\n");
    std::fs::write(&sites, text).unwrap();
    let out = dir.path().join("captured");
    let o = crate::common::certbench_command()
        .args(["capture", "--mirror", "--sites"])
        .arg(&sites)
        .arg("--mirror-cache")
        .arg(cache.path().join("m"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Some sites failed: the exit code says so, each failure is named with its reason.
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("expired.mirror.test: ") && stderr.contains("Expired"),
        "{stderr}"
    );
    assert!(stderr.contains("refused.mirror.test: connect:"), "{stderr}");
    assert!(stdout.contains("13 of 15 sites"), "{stdout}");

    // The 13 captured chains load as a corpus: each is what the mirror serves for its
    // host, with the root the path ended at.
    let corpus = Corpus::load(&out).unwrap();
    assert!(corpus.failures.is_empty(), "{:?}", corpus.failures);
    assert_eq!(corpus.chains.len(), 13);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for c in &corpus.chains {
        let served = &set.hosts[&c.host].chain;
        assert_eq!(c.chain.leaf.as_ref(), served[0].as_ref(), "{}", c.id);
        assert_eq!(c.chain.intermediates.len(), served.len() - 1, "{}", c.id);
        assert_eq!(c.roots.len(), 1, "{}", c.id);
        assert!(
            set.roots.iter().any(|r| r.as_ref() == c.roots[0].as_ref()),
            "{}: the root is one of the mirror's",
            c.id
        );
        assert!(now.abs_diff(c.validation_time) < 600, "{}", c.id);
        assert!(c.id.ends_with("__capture"), "{}", c.id);
    }
    // The manifest records each certificate with its key and fingerprint.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["count"], 13);
    let first = &manifest["chains"][0];
    assert_eq!(first["host"], "duckduckgo.com");
    assert_eq!(first["certs"][0]["role"], "leaf");
    assert_eq!(first["certs"][0]["sha256"].as_str().unwrap().len(), 64);
    // The run's record, under its header: `certbench report` reads it back.
    let record = std::fs::read(out.join("capture.json")).unwrap();
    let run: certbench_schema::records::capture::CaptureRun =
        certbench_schema::records::read_doc(&record).unwrap();
    assert_eq!((run.captured, run.rows.len()), (13, run.sites));
    let header = certbench_schema::records::Header::of(&record).unwrap();
    assert_eq!(header.kind, certbench_schema::records::Kind::Capture);

    // `verify --chains DIR` verifies every captured chain, with every method that
    // speaks to a custom root set (the platform verifier trusts the system's roots only).
    let raw = dir.path().join("verify.jsonl");
    let o = crate::common::certbench_command()
        .args([
            "verify", "--runs", "1", "--warmup", "0", "--quiet", "--chains",
        ])
        .arg(&out)
        .arg("--raw")
        .arg(&raw)
        .args(["--method", "openssl,awslc,rustlsserial,webpki"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (samples, errors) = read_jsonl(
        std::fs::File::open(&raw)
            .map(std::io::BufReader::new)
            .unwrap(),
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(samples.len(), 13 * 4);
    for s in &samples {
        assert_eq!(s.verdict, Verdict::Ok, "{} {:?}", s.method, s.chain);
    }
}
