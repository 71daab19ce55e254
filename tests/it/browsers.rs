//! The browsers' verifiers (`chrome`, `firefox`, `gnutls`; a native one only when built) fail closed
//! across their FFI: a truncated or garbage certificate, unusable roots and a name they cannot
//! check are each a rejection (or a store error) with a reason, never an accept, a panic or an
//! abort. (Hostile chains, for every method: `hostile.rs`; verdicts on
//! the corpus: `verdicts.rs`; on limbo testcases: `limbo.rs`.)

use crate::common::{all_methods, chain, corpus, verdict_with};
use certbench_core::chain::Chain;
use certbench_core::methods::Method;
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use certbench_schema::Stage;
use rustls_pki_types::CertificateDer;

/// The browsers' verifiers built here (all three in CI: `CERTBENCH_REQUIRE_NATIVE`).
fn browsers() -> Vec<Method> {
    all_methods()
        .iter()
        .copied()
        .filter(|m| matches!(m.name(), "chrome" | "firefox" | "gnutls"))
        .collect()
}

#[test]
fn every_browser_verifier_is_built_where_ci_requires_it() {
    let names: Vec<&str> = browsers().iter().map(|m| m.name()).collect();
    // `gnutls` links GnuTLS directly: it is there whenever certbench built.
    assert!(names.contains(&"gnutls"), "{names:?}");
    for m in Method::ALL {
        let lib = m.verifier().library();
        if m.unavailable().is_none() {
            assert!(
                !lib.version.is_empty() && lib.version != "not built",
                "{m}: {lib}"
            );
        }
    }
}

#[test]
fn malformed_certificates_are_rejections_with_a_reason() {
    let corpus = corpus();
    let c = chain(&corpus, "reddit.com__rustls-bench");
    let leaf = c.chain.leaf.as_ref();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a truncated DER leaf", leaf[..leaf.len() / 2].to_vec()),
        ("a leaf cut by one byte", leaf[..leaf.len() - 1].to_vec()),
        ("an empty leaf", Vec::new()),
        (
            "a DER SEQUENCE that is no certificate",
            vec![0x30, 0x03, 0x02, 0x01, 0x00],
        ),
        (
            "a length claiming 4 GiB",
            vec![0x30, 0x84, 0xff, 0xff, 0xff, 0xff, 0x00],
        ),
        (
            "the leaf with trailing bytes",
            [leaf, &[0u8; 3][..]].concat(),
        ),
    ];
    for m in browsers() {
        let v = m.verifier();
        for (what, der) in &cases {
            let ch = Chain {
                leaf: CertificateDer::from(der.clone()),
                intermediates: c.chain.intermediates.clone(),
            };
            let got = verdict_with(v.as_ref(), &c.roots, &ch, &c.host, c.validation_time);
            let reason = got.expect_err(&format!("{m} must reject {what}"));
            assert!(!reason.trim().is_empty(), "{m} on {what}: empty reason");
        }
        // A malformed intermediate beside the good one does not turn into an accept of a
        // different chain: the verdict is a rejection, or the accept of the valid path.
        let ch = Chain {
            leaf: c.chain.leaf.clone(),
            intermediates: vec![CertificateDer::from(vec![0x30, 0x00])],
        };
        let got = verdict_with(v.as_ref(), &c.roots, &ch, &c.host, c.validation_time);
        assert!(got.is_err(), "{m}: a leaf with only a garbage intermediate");
    }
}

#[test]
fn unusable_roots_are_an_error_or_a_store_that_accepts_nothing() {
    let corpus = corpus();
    let c = chain(&corpus, "reddit.com__rustls-bench");
    let garbage = [CertificateDer::from(vec![0x30, 0x03, 0x02, 0x01, 0x00])];
    for m in browsers() {
        let v = m.verifier();
        if let Ok(store) = v.build_roots(&garbage) {
            let mut rec = Recorder::new();
            let got = v.verify(
                &store,
                &c.chain,
                Target::server(&c.host, c.validation_time),
                &mut rec,
            );
            assert!(got.is_err(), "{m}: accepted under a store of garbage");
        }
        // No roots at all: never an accept.
        if let Ok(store) = v.build_roots(&[]) {
            let mut rec = Recorder::new();
            let got = v.verify(
                &store,
                &c.chain,
                Target::server(&c.host, c.validation_time),
                &mut rec,
            );
            assert!(got.is_err(), "{m}: accepted under an empty store");
        }
    }
}

#[test]
fn the_host_is_checked_and_its_stage_recorded_where_it_is_apart() {
    let corpus = corpus();
    let c = chain(&corpus, "reddit.com__rustls-bench");
    for m in browsers() {
        let v = m.verifier();
        let store = v.build_roots(&c.roots).expect("roots");
        let mut rec = Recorder::new();
        let target = Target::server(&c.host, c.validation_time);
        v.verify(&store, &c.chain, target, &mut rec)
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        assert!(
            rec.get(Stage::ChainCreation).is_some(),
            "{m}: chain-creation"
        );
        assert!(rec.get(Stage::Verify).is_some(), "{m}: verify");
        // Chrome and Firefox check the name apart from the path; WebKitGTK's GnuTLS call
        // checks it inside (gnutls_certificate_verify_peers3: tests/it/gnutls.rs).
        assert_eq!(
            rec.get(Stage::VerifyHostname).is_some(),
            m.name() != "gnutls",
            "{m}: verify-hostname"
        );
        for host in [
            "example.com",
            "reddit.com.evil.test",
            "xreddit.com",
            "a.b.reddit.com",
        ] {
            let mut rec = Recorder::new();
            let target = Target::server(host, c.validation_time);
            let got = v.verify(&store, &c.chain, target, &mut rec);
            assert!(got.is_err(), "{m} accepted reddit.com's chain for {host}");
        }
        // One year after the leaf's validity: expired.
        let mut rec = Recorder::new();
        let target = Target::server(&c.host, c.validation_time + 400 * 86_400);
        assert!(
            v.verify(&store, &c.chain, target, &mut rec).is_err(),
            "{m}: expired"
        );
    }
}

/// A C++ exception thrown inside a native verifier (the test hook `CERTBENCH_NATIVE_THROW`
/// makes its store, chain, verify, name check, or (with `--ct`) its CT log set or CT check
/// throw) is caught in the shared object and
/// reaches certbench as an error or a rejection carrying the exception's text: the process
/// neither aborts nor accepts, and every chain still gets its sample.
#[test]
fn a_cpp_exception_in_a_native_verifier_is_a_rejection_not_an_abort() {
    let native: Vec<Method> = browsers()
        .into_iter()
        .filter(|m| m.name() != "gnutls")
        .collect();
    if native.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for m in native {
        for point in ["store", "chain", "verify", "name", "ct-logs", "ct"] {
            let raw = dir.path().join(format!("{m}-{point}.jsonl"));
            // CT is checked as shipped; the other points path only (so that a revocation
            // verdict does not come before the throwing point).
            let ct: &[&str] = if point.starts_with("ct") {
                &[]
            } else {
                &["--path-only"]
            };
            let out = crate::common::certbench_command()
                .args([
                    "verify",
                    "--method",
                    m.name(),
                    "--runs",
                    "1",
                    "--warmup",
                    "0",
                ])
                .args(ct)
                .arg("--quiet")
                .arg("--raw")
                .arg(&raw)
                .env("CERTBENCH_NATIVE_THROW", point)
                .output()
                .unwrap();
            // 0: every chain rejected; 3: an item failed (the store). Never a signal or a panic.
            assert!(
                matches!(out.status.code(), Some(0) | Some(3)),
                "{m} throwing at {point}: {:?}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            let text = std::fs::read_to_string(&raw).unwrap();
            let lines: Vec<serde_json::Value> = text
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            assert_eq!(lines.len(), corpus().chains.len(), "{m} at {point}");
            for s in &lines {
                let outcome = s["outcome"].as_str().unwrap();
                // A private CA's chain is not asked for CT: nothing of CT runs to throw.
                let private = corpus()
                    .chains
                    .iter()
                    .any(|c| !c.public_root && Some(c.id.as_str()) == s["chain"].as_str());
                if point.starts_with("ct") && private {
                    assert!(s["stages"].get("ct").is_none(), "{m} at {point}: {s}");
                    continue;
                }
                assert!(
                    outcome == "rejected" || outcome == "error",
                    "{m} throwing at {point}: {s}"
                );
                let reason = s["reason"].as_str().unwrap();
                // The CT check's verdict waits for revocation (both browsers' order): a
                // revoked chain is rejected as revoked, whatever CT said.
                if point == "ct" && reason.starts_with("revoked (") {
                    continue;
                }
                assert!(
                    reason.contains(&format!("CERTBENCH_NATIVE_THROW={point}")),
                    "{m} at {point}: {reason}"
                );
            }
        }
    }
}

/// A native verifier that this machine cannot load (here: `firefox` pointed at a missing
/// shared object, as when `scripts/fetch-nss-source` was never run) is left out of `all` with
/// a note saying which and how to get it; the other methods run, and the exit code is clean.
#[test]
fn a_missing_native_verifier_is_named_with_how_to_get_it_and_the_others_run() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("samples.jsonl");
    let out = crate::common::certbench_command()
        .args([
            "verify", "--method", "all", "--runs", "1", "--warmup", "0", "--quiet",
        ])
        .arg("--raw")
        .arg(&raw)
        .env("CERTBENCH_FIREFOX_SO", dir.path().join("missing.so"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("`all` leaves out a method: method `firefox` is not available"),
        "{stderr}"
    );
    assert!(stderr.contains("scripts/fetch-nss-source"), "{stderr}");
    let text = std::fs::read_to_string(&raw).unwrap();
    let methods: std::collections::BTreeSet<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["method"].to_string())
        .collect();
    assert!(!methods.contains("\"firefox\""), "{methods:?}");
    assert!(
        methods.contains("\"rustlsserial\"") && methods.contains("\"gnutls\""),
        "{methods:?}"
    );
}

/// `firefox` runs on an NSS of Firefox's era (3.110 or newer, built from its upstream source:
/// scripts/fetch-nss-source, core/build/firefox.rs), which its samples name; the shim refuses
/// to start on any other NSS than the one it was built against.
#[test]
fn firefox_names_the_nss_it_runs_on_and_it_is_of_firefoxs_era() {
    if !browsers().contains(&Method::Firefox) {
        return; // not built here: a_missing_native_verifier… covers that case
    }
    let version = Method::Firefox.verifier().library().version;
    let (major, minor) = version
        .strip_prefix("NSS ")
        .and_then(|v| v.split([' ', '-']).next())
        .and_then(|v| {
            let mut parts = v.split('.').map(str::parse::<u32>);
            Some((parts.next()?.ok()?, parts.next()?.ok()?))
        })
        .unwrap_or_else(|| panic!("no NSS version in {version:?}"));
    assert!((major, minor) >= (3, 110), "{version}");
    assert!(version.contains("upstream source"), "{version}");
}

/// `chrome`'s and `firefox`'s loaded libraries (ABI v4), those built here.
fn native_libraries() -> Vec<(Method, &'static certbench_core::ffi::native::Loaded)> {
    use certbench_core::methods::{chrome::Chrome, firefox::Firefox};
    let mut out = Vec::new();
    for m in browsers() {
        let loaded = match m.name() {
            "chrome" => Chrome::verifier().loaded(),
            "firefox" => Firefox::verifier().loaded(),
            _ => continue,
        };
        out.push((m, loaded.unwrap_or_else(|e| panic!("{m}: {e}"))));
    }
    out
}

/// The path a browser builds for `leaf` over `intermediates` to `roots`, by names: a root
/// whose subject is the certificate's issuer ends it, else the first unused intermediate
/// whose subject it is continues it (what both path builders find on chains whose every
/// issuer name is unique, as the corpus' are).
fn path_by_names<'a>(
    leaf: &'a [u8],
    intermediates: &'a [CertificateDer<'static>],
    roots: &'a [CertificateDer<'static>],
) -> Vec<&'a [u8]> {
    let subject = |der: &[u8]| {
        certbench_core::der::SignedParts::parse(der)
            .unwrap()
            .subject
            .to_vec()
    };
    let issuer = |der: &[u8]| {
        certbench_core::der::SignedParts::parse(der)
            .unwrap()
            .issuer
            .to_vec()
    };
    let mut path = vec![leaf];
    let mut used = vec![false; intermediates.len()];
    loop {
        let want = issuer(path[path.len() - 1]);
        if let Some(root) = roots.iter().find(|r| subject(r) == want) {
            path.push(root.as_ref());
            return path;
        }
        let Some(i) =
            (0..intermediates.len()).find(|&i| !used[i] && subject(&intermediates[i]) == want)
        else {
            panic!("no issuer for {} certificates by names", path.len());
        };
        used[i] = true;
        path.push(intermediates[i].as_ref());
    }
}

/// ABI v4's `verified_path`: after an accepting `verify`, each browser hands back the path its
/// builder built (Chrome: the best valid path; Firefox: the chain given to IsChainValid), leaf
/// first, root last: on every corpus chain it accepts, the leaf, the intermediates used and
/// the root; an unrelated intermediate sent beside them is not in it; nothing before a
/// verification or after a rejection; and the DER stays the chain's after its store is gone.
#[test]
fn native_verifiers_hand_back_the_path_they_built() {
    let corpus = corpus();
    let libs = native_libraries();
    if libs.is_empty() {
        eprintln!("note: no native verifier built here");
        return;
    }
    // An intermediate of another chain, unrelated to every chain below but its own.
    let stranger = chain(&corpus, "github.com__rustls-bench")
        .chain
        .intermediates[0]
        .clone();
    let time = |c: &certbench_core::corpus::CorpusChain| i64::try_from(c.validation_time).unwrap();
    for (m, lib) in &libs {
        let mut checked = 0;
        for c in &corpus.chains {
            let Ok(store) = lib.store(&c.roots) else {
                continue;
            };
            let parsed = lib.chain(&c.chain.leaf, &c.chain.intermediates).unwrap();
            assert!(
                lib.verified_path(&parsed).is_err(),
                "{m} {}: a path before any verification",
                c.id
            );
            if lib
                .verify(&store, &parsed, time(c), &mut Recorder::new())
                .is_err()
            {
                assert!(
                    lib.verified_path(&parsed).is_err(),
                    "{m} {}: a path after a rejection",
                    c.id
                );
                continue;
            }
            let got = lib.verified_path(&parsed).unwrap();
            let want = path_by_names(&c.chain.leaf, &c.chain.intermediates, &c.roots);
            assert_eq!(got, want, "{m} {}: the verified path", c.id);
            checked += 1;

            // An unrelated intermediate sent too (first, where a naive reader would take
            // it): the same path, without it.
            if c.id != "github.com__rustls-bench" {
                let mut sent = vec![stranger.clone()];
                sent.extend(c.chain.intermediates.iter().cloned());
                let parsed = lib.chain(&c.chain.leaf, &sent).unwrap();
                lib.verify(&store, &parsed, time(c), &mut Recorder::new())
                    .unwrap_or_else(|e| panic!("{m} {} with a stranger: {e}", c.id));
                let got = lib.verified_path(&parsed).unwrap();
                assert_eq!(got, want, "{m} {}: the path with a stranger sent", c.id);
                assert!(!got.contains(&stranger.as_ref()), "{m} {}", c.id);
            }

            // The DER handed out is the chain's: it outlives the store, and a later
            // rejection (at a time the chain is expired) forgets the path without freeing it.
            drop(store);
            let copy: Vec<Vec<u8>> = got.iter().map(|d| d.to_vec()).collect();
            let other = lib
                .store(&chain(&corpus, "github.com__rustls-bench").roots)
                .unwrap();
            let _ = lib.verify(&other, &parsed, 4_000_000_000, &mut Recorder::new());
            assert!(
                lib.verified_path(&parsed).is_err(),
                "{m} {}: a path after a rejection",
                c.id
            );
            let again: Vec<Vec<u8>> = got.iter().map(|d| d.to_vec()).collect();
            assert_eq!(copy, again, "{m} {}: the DER handed out changed", c.id);
        }
        assert!(checked >= 20, "{m}: only {checked} corpus chains accepted");
    }
}
