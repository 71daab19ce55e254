//! `--revocation` through every method on the 34 corpus chains, and each mechanism's verdicts
//! through the methods: revoked → rejected, not revoked → accepted, missing data → the
//! browser's soft-fail, corrupted data → a rejection (never an accept).

use std::path::Path;
use std::sync::Arc;

use certbench::revocation::bundle::{self, Scale};
use certbench::verify::{self, Plan, PlanOptions, VerifyOptions};
use certbench_core::methods::Method;
use certbench_core::revocation::{DataFiles, Mechanism, RevocationData};
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use certbench_schema::{Sample, Verdict};

use crate::common;

const REVOKED: &str = "revoked.badssl.com__platform-verifier";
const RUSTLS: [Method; 4] = [
    Method::RustlsSerial,
    Method::RustlsParallel,
    Method::Webpki,
    Method::Platform,
];

/// The data certbench makes for the corpus, at test scale, in a folder of the test's own.
fn data(dir: &Path) -> DataFiles {
    bundle::ensure(dir, None, Scale::Test, &|_| {})
        .expect("revocation data")
        .files
}

fn run(mechanism: Option<Mechanism>, files: &DataFiles, ct: bool) -> Vec<Sample> {
    let plan = Plan::prepare(&PlanOptions {
        chains: certbench_core::corpus::bundled_dir(),
        roots: certbench_core::roots::RootsSpec::Mozilla,
        corpus_roots: true,
        extra_roots: 0,
        extra_intermediates: 0,
        pq: Vec::new(),
        scenarios: Vec::new(),
    })
    .expect("plan");
    let opts = VerifyOptions {
        methods: common::all_methods().to_vec(),
        runs: 1,
        warmup: 0,
        cache_roots: true,
        extra_intermediates: Vec::new(),
        checks: certbench_core::RunChecks {
            request: certbench_core::Request {
                path_only: !ct && mechanism.is_none(),
                ct,
                revocation: mechanism,
            },
            logs: ct.then(|| {
                let mut logs = certbench_core::ct::CtLogs::from_v3_json(
                    &std::fs::read_to_string(
                        certbench_core::corpus::bundled_dir().join("../ct-logs/log_list.json"),
                    )
                    .unwrap(),
                    "corpus/ct-logs",
                )
                .unwrap();
                logs.origin = "corpus/ct-logs".into();
                Arc::new(logs)
            }),
            data: mechanism.map(|_| Arc::new(RevocationData::new(files.clone()))),
        },
    };
    let mut samples = Vec::new();
    verify::run(&plan, &opts, |s| samples.push(s));
    samples
}

fn rejected_as_revoked(s: &Sample) -> bool {
    matches!(&s.verdict, Verdict::Rejected(why) if why.starts_with("revoked ("))
}

/// The acceptance run, per mechanism: revoked.badssl.com rejected as revoked by chrome,
/// firefox and each rustls method whose mechanism has data for its issuer; every other
/// verdict as without `--revocation`; every sample of a method with a mechanism names it and
/// its data's size.
#[test]
fn verify_all_with_ct_and_each_mechanism_rejects_only_revoked_badssl() {
    let dir = tempfile::tempdir().unwrap();
    let files = data(dir.path());
    let without = run(None, &files, true);
    let verdict_without = |s: &Sample| {
        without
            .iter()
            .find(|w| w.method == s.method && w.chain == s.chain)
            .map(|w| w.verdict.clone())
            .expect("the same sample without --revocation")
    };
    for mechanism in [
        Mechanism::Crlite,
        Mechanism::Crl,
        Mechanism::Ocsp,
        Mechanism::Upki,
    ] {
        let samples = run(Some(mechanism), &files, true);
        assert_eq!(samples.len(), without.len());
        for s in &samples {
            let method: Method = s.method.parse().unwrap();
            let own = match method {
                Method::Chrome => Some(Mechanism::CrlSet),
                Method::Firefox => Some(Mechanism::Crlite),
                Method::Gnutls => Some(Mechanism::Ocsp),
                m if RUSTLS.contains(&m) => Some(mechanism),
                _ => None,
            };
            let Some(own) = own else {
                assert!(
                    s.config.revocation.is_none(),
                    "{}: {:?}",
                    s.method,
                    s.config
                );
                assert!(s.meta.revocation.is_none());
                assert_eq!(s.verdict, verdict_without(s), "{} {:?}", s.method, s.chain);
                continue;
            };
            let label = s.config.revocation.as_deref().expect("the mechanism named");
            assert!(label.starts_with(own.name()), "{}: {label}", s.method);
            if own != Mechanism::Ocsp {
                assert!(label.contains(" KB ") || label.contains(" MB "), "{label}");
            }
            if s.chain.as_deref() == Some(REVOKED) {
                // A check with data for the issuer: every mechanism but `crl`, whose corpus
                // issuers have no CRL (their keys are not ours to sign one).
                if own == Mechanism::Crl {
                    let r = s.meta.revocation.as_ref().unwrap();
                    assert_eq!(r.status.to_string(), "soft-fail: no-data", "{}", s.method);
                    assert_eq!(s.verdict, Verdict::Ok, "{}", s.method);
                } else {
                    assert!(
                        rejected_as_revoked(s),
                        "{} ({own}): {:?}",
                        s.method,
                        s.verdict
                    );
                    let r = s.meta.revocation.as_ref().unwrap();
                    assert_eq!(r.status, certbench_schema::Status::Revoked { depth: 0 });
                }
            } else {
                assert_eq!(s.verdict, verdict_without(s), "{} {:?}", s.method, s.chain);
                if let Some(r) = &s.meta.revocation {
                    assert_ne!(r.status.name(), "revoked", "{} {:?}", s.method, s.chain);
                }
            }
        }
    }
}

/// One method on revoked.badssl.com's chain (and on another, not revoked) with `files`.
fn verdicts(method: Method, mechanism: Mechanism, files: DataFiles) -> [Result<(), String>; 2] {
    let corpus = common::corpus();
    let data = RevocationData::new(files);
    // The method's own mechanism (a browser's), else the one asked.
    let asked = certbench_core::Request {
        revocation: Some(mechanism),
        ..Default::default()
    };
    let caps = method.verifier().capabilities();
    let mechanism = asked.revocation(&caps).unwrap_or(mechanism);
    // A browser's method checks CT as shipped: Gecko's CRLite counts only verified SCTs.
    let logs = crate::ct::corpus_logs();
    let ct = (caps.ct == certbench_core::CtSupport::Own).then_some(&logs);
    [REVOKED, "github.com__rustls-bench"].map(|id| {
        let c = common::chain(&corpus, id);
        let v = method.verifier();
        let store = v.build_roots(&c.roots).expect("roots");
        let mut rec = Recorder::new();
        if let Some(logs) = ct {
            v.prepare_ct(logs);
        }
        let target = Target::server(&c.host, c.validation_time)
            .with_ct(ct)
            .with_revocation(Some((mechanism, &data)), c.stapled_ocsp.as_deref());
        v.verify(&store, &c.chain, target, &mut rec)
            .map_err(|r| r.reason)
    })
}

/// Missing data soft-fails as each browser does (accepted, the sample says why); corrupted
/// data is a rejection for every chain, never an accept.
#[test]
fn missing_data_soft_fails_and_corrupted_data_rejects() {
    let dir = tempfile::tempdir().unwrap();
    let files = data(dir.path());
    let missing = DataFiles::in_dir(&dir.path().join("nowhere"), "missing");
    let cases = [
        (Method::Chrome, Mechanism::Crlite),
        (Method::Firefox, Mechanism::Crlite),
        (Method::RustlsSerial, Mechanism::Crlite),
        (Method::RustlsSerial, Mechanism::Upki),
        (Method::RustlsSerial, Mechanism::Crl),
    ];
    for (method, mechanism) in cases {
        if !common::all_methods().contains(&method) {
            continue;
        }
        let [revoked, other] = verdicts(method, mechanism, missing.clone());
        assert!(revoked.is_ok(), "{method} {mechanism} missing: {revoked:?}");
        assert!(other.is_ok(), "{method} {mechanism} missing: {other:?}");
    }

    // Corrupted: every file of the data flipped in the middle.
    let bad = tempfile::tempdir().unwrap();
    for (name, from) in [
        ("crlset", files.crlset.clone().unwrap()),
        ("crlite.filter", files.crlite.clone().unwrap()),
    ] {
        let mut bytes = std::fs::read(&from).unwrap();
        let mid = bytes.len() / 2;
        bytes.truncate(mid);
        std::fs::write(bad.path().join(name), bytes).unwrap();
    }
    std::fs::create_dir_all(bad.path().join("crls")).unwrap();
    std::fs::write(bad.path().join("crls/garbage.crl"), b"not a CRL").unwrap();
    let corrupt = DataFiles::in_dir(bad.path(), "corrupt");
    for (method, mechanism) in [
        (Method::Chrome, Mechanism::Crlite),
        (Method::Firefox, Mechanism::Crlite),
        (Method::RustlsSerial, Mechanism::Crlite),
        (Method::RustlsSerial, Mechanism::Crl),
    ] {
        if !common::all_methods().contains(&method) {
            continue;
        }
        for verdict in verdicts(method, mechanism, corrupt.clone()) {
            let why = verdict.expect_err("corrupted data is never an accept");
            assert!(why.contains("corrupt"), "{method} {mechanism}: {why}");
        }
    }
}

/// With the data: revoked.badssl.com rejected as revoked, github.com accepted, by each
/// browser's own mechanism and by the rustls methods' CRLite, upki and OCSP.
#[test]
fn each_mechanism_rejects_the_revoked_leaf_and_accepts_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let files = data(dir.path());
    let mut cases = vec![
        (Method::Chrome, Mechanism::Crl),
        (Method::Firefox, Mechanism::Crl),
        (Method::Gnutls, Mechanism::Crl),
    ];
    for m in RUSTLS {
        cases.extend([
            (m, Mechanism::Crlite),
            (m, Mechanism::Upki),
            (m, Mechanism::Ocsp),
        ]);
    }
    for (method, mechanism) in cases {
        if !common::all_methods().contains(&method) {
            continue;
        }
        let [revoked, other] = verdicts(method, mechanism, files.clone());
        let why = revoked.expect_err("revoked.badssl.com is revoked");
        assert!(why.starts_with("revoked ("), "{method} {mechanism}: {why}");
        assert!(other.is_ok(), "{method} {mechanism}: {other:?}");
    }
}
