//! `certbench icount`: instruction counts under callgrind are deterministic (two runs within
//! 0.1 %) and cover the verification (rustlsparallel's workers included: it counts at least
//! what rustlsserial does on the same chain).
//!
//! Needs valgrind (`.ci/run` installs it). Without it the test says so and passes, unless
//! `CI` is set.

use std::process::Command;

fn valgrind() -> bool {
    let ok = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "valgrind is missing in CI (.ci/run installs it)"
        );
        eprintln!("valgrind not installed: instruction counts not tested");
    }
    ok
}

#[test]
fn two_runs_count_the_same_instructions() {
    if !valgrind() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("counts.json");
    let out = crate::common::certbench_command()
        .args([
            "icount",
            "--method",
            "rustlsserial,rustlsparallel",
            "--key",
            "p256",
        ])
        .args(["--iterations", "3", "--repeat", "2", "--json"])
        .arg(&json)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("| rustlsparallel | p256"), "{stdout}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        (doc["kind"].as_str(), doc["schema"].as_u64()),
        (Some("icount"), Some(1))
    );
    let counts: Vec<Vec<serde_json::Value>> =
        serde_json::from_value(doc["records"].clone()).unwrap();
    assert_eq!(counts.len(), 2, "two methods");
    let per = |i: usize| -> Vec<u64> {
        counts[i]
            .iter()
            .map(|c| c["per_verify"].as_u64().unwrap())
            .collect()
    };
    let (serial, parallel) = (per(0), per(1));
    for runs in [&serial, &parallel] {
        assert_eq!(runs.len(), 2);
        let (a, b) = (runs[0] as f64, runs[1] as f64);
        assert!((a - b).abs() / a <= 0.001, "runs differ: {runs:?}");
    }
    // Two P-256/P-384 signatures and the webpki walk: well over a million instructions. The
    // parallel count is the same work (every check once, whichever thread made it) plus its
    // bookkeeping, less the anchors its index spares the walk: within 2 % of the serial one
    // (a check made twice would add a third or more).
    assert!(serial[0] > 1_000_000, "{serial:?}");
    let (s, p) = (serial[0] as f64, parallel[0] as f64);
    assert!((p - s).abs() / s <= 0.02, "{parallel:?} vs {serial:?}");
}

/// The TLS scenarios (in memory, a fixed chain): 1 MiB of bulk data per stack counts the same
/// instructions in two runs within 0.1 %, a full handshake (fresh key shares) within 0.5 %.
#[test]
fn handshake_and_bulk_scenarios_count_the_same_instructions_twice() {
    if !valgrind() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("scenarios.json");
    let out = crate::common::certbench_command()
        .args(["icount", "--scenario", "handshake,bulk"])
        .args(["--stack", "openssl,rustls-aws-lc-rs"])
        .args(["--iterations", "10", "--repeat", "2", "--json"])
        .arg(&json)
        // A handshake draws fresh key shares and an ECDSA nonce: X25519MLKEM768 first
        // (`tls::hybrid_first`), whose ML-KEM matrix and noise come from rejection
        // sampling over random seeds, so its count varies by a few thousand instructions in
        // millions (0.11 % seen once between two runs); 1 MiB of bulk data does not vary.
        .args(["--tolerance", "0.5"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !stdout.contains("per verification"),
        "no verify counts asked: {stdout}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        (doc["kind"].as_str(), doc["schema"].as_u64()),
        (Some("icount"), Some(1))
    );
    let counts: Vec<Vec<serde_json::Value>> =
        serde_json::from_value(doc["records"].clone()).unwrap();
    assert_eq!(counts.len(), 4, "2 scenarios × 2 stacks");
    for runs in &counts {
        let v: Vec<u64> = runs
            .iter()
            .map(|c| c["per_verify"].as_u64().unwrap())
            .collect();
        assert_eq!(v.len(), 2);
        let (lo, hi) = (v[0].min(v[1]) as f64, v[0].max(v[1]) as f64);
        let tolerance = if runs[0]["key"] == "bulk-1MiB" {
            0.001
        } else {
            0.005
        };
        assert!(hi / lo - 1.0 <= tolerance, "{runs:?}");
        // A handshake is millions of instructions, 1 MiB of AES-GCM more.
        assert!(lo > 1e6, "{runs:?}");
    }
    let bulk: Vec<&serde_json::Value> = counts
        .iter()
        .flatten()
        .filter(|c| c["key"] == "bulk-1MiB")
        .collect();
    assert_eq!(bulk.len(), 4);
}

/// The browsers' verifiers are counted like the others: the same instructions in two runs
/// (each is deterministic on a fixed chain), for each key type.
#[test]
fn the_browsers_verifiers_count_the_same_instructions_twice() {
    if !valgrind() {
        return;
    }
    let methods: Vec<&str> = crate::common::all_methods()
        .iter()
        .map(|m| m.name())
        .filter(|n| matches!(*n, "chrome" | "firefox" | "gnutls"))
        .collect();
    let out = crate::common::certbench_command()
        .args(["icount", "--method", &methods.join(","), "--key", "rsa2048"])
        .args(["--iterations", "3", "--repeat", "2"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for m in methods {
        assert!(stdout.contains(&format!("| {m} ")), "{m}: {stdout}");
    }
}
