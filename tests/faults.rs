//! Every fault the mirror can act out, against a loopback mirror this test starts: the run
//! completes, the faulty site gets the right error kind, every other site is measured, no
//! failed sample claims a stage it never reached, and every timeout is bounded by the
//! driver's timeout.

mod common;

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use certbench::Method;
use certbench::bench::driver::{DriverOptions, run};
use certbench::mirror::faults::{CONN_FAULTS, NO_HTTP_HOST, REFUSED_HOST};
use certbench::mirror::server::MirrorServer;
use certbench::mirror::{
    EXPIRED_HOST, MirrorSet, NOT_YET_VALID_HOST, OUT_OF_ORDER_HOST, SELF_SIGNED_HOST,
    UNTRUSTED_HOST, WRONG_HOST,
};
use certbench::roots::RootSet;
use certbench::sites::parse_sites;
use certbench::transport::Transport;
use certbench::transport::openssl::HookMode;
use certbench_analysis::{ErrorKind, Sample, Stage, Verdict};

const TIMEOUT: Duration = Duration::from_secs(3);

/// Host → the error kind its samples must have (`None`: measured, ok).
fn expected() -> Vec<(&'static str, Option<ErrorKind>)> {
    use ErrorKind::*;
    vec![
        ("reddit.com", None),
        (REFUSED_HOST, Some(Connect)),
        ("stall.mirror.test", Some(Timeout)),
        ("reset.mirror.test", Some(TlsHandshake)),
        ("truncated.mirror.test", Some(TlsHandshake)),
        ("empty-chain.mirror.test", Some(TlsHandshake)),
        ("many-certs.mirror.test", Some(TlsHandshake)),
        (EXPIRED_HOST, Some(CertificateRejected)),
        (NOT_YET_VALID_HOST, Some(CertificateRejected)),
        (WRONG_HOST, Some(CertificateRejected)),
        (SELF_SIGNED_HOST, Some(CertificateRejected)),
        (UNTRUSTED_HOST, Some(CertificateRejected)),
        (OUT_OF_ORDER_HOST, None),
        (NO_HTTP_HOST, Some(Http)),
        ("www.washingtonpost.com", None),
    ]
}

fn mirror() -> &'static (MirrorSet, tempfile::TempDir) {
    static M: OnceLock<(MirrorSet, tempfile::TempDir)> = OnceLock::new();
    M.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let set = MirrorSet::load_or_generate(&common::corpus(), &dir.path().join("m")).unwrap();
        (set, dir)
    })
}

fn drive(transport: Transport, hook: HookMode) -> (Vec<Sample>, Duration) {
    let (set, _) = mirror();
    let list: String = expected().iter().map(|(h, _)| format!("{h}\n")).collect();
    let (sites, errors) = parse_sites(&list);
    assert!(errors.is_empty(), "{errors:?}");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = MirrorServer::start(set, listener).unwrap();
        let resolve: HashMap<_, _> = sites
            .iter()
            .map(|s| ((s.host.clone(), s.port), server.addr_for(&s.host)))
            .collect();
        let roots = RootSet::from_certs("mirror", set.roots.clone());
        let opts = DriverOptions {
            methods: vec![
                Method::OpenSsl,
                Method::RustlsSerial,
                Method::RustlsParallel,
            ],
            runs: 1,
            warmup: 0,
            transport,
            hook,
            timeout: TIMEOUT,
            cache_roots: false,
            resolve,
            resumption: false,
            concurrency: 1,
        };
        let mut out = Vec::new();
        let start = Instant::now();
        run(&sites, &roots, &opts, |s| out.push(s)).await;
        (out, start.elapsed())
    })
}

fn check(samples: &[Sample], elapsed: Duration, label: &str) {
    let expected = expected();
    assert_eq!(
        samples.len(),
        expected.len() * 3,
        "{label}: every site × method measured"
    );
    for s in samples {
        let (_, want) = expected.iter().find(|(h, _)| *h == s.site).unwrap();
        let what = format!("{label} {} {}: {:?}", s.method, s.site, s.verdict);
        assert_eq!(s.meta.error_kind, *want, "{what}");
        assert_eq!(s.meta.error_kind, ErrorKind::of(&s.verdict), "{what}");
        match want {
            None => {
                assert_eq!(s.verdict, Verdict::Ok, "{what}");
                assert!(s.stage(Stage::TotalVerification).unwrap() > 0, "{what}");
            }
            Some(kind) => {
                if *kind == ErrorKind::CertificateRejected {
                    assert!(matches!(s.verdict, Verdict::Rejected(_)), "{what}");
                    // The verifier ran and said no: its time is recorded.
                    assert!(s.stage(Stage::TotalVerification).unwrap() > 0, "{what}");
                } else {
                    assert!(matches!(s.verdict, Verdict::Error(_)), "{what}");
                }
                // Nothing verified a chain before these failures: no verification claimed.
                if !matches!(kind, ErrorKind::Http | ErrorKind::CertificateRejected) {
                    for st in [
                        Stage::Verify,
                        Stage::TotalVerification,
                        Stage::ChainCreation,
                    ] {
                        assert!(s.stage(st).is_none(), "{what}: claims {st}");
                    }
                }
                // The connection did not complete: it and `total` are not reported as
                // measured stages, but as where and after how long the sample failed.
                assert_eq!(s.meta.failed_stage, Some(Stage::Connection), "{what}");
                assert!(s.stage(Stage::Connection).is_none(), "{what}");
                assert!(s.stage(Stage::Total).is_none(), "{what}");
                // A failure never takes longer than the timeout.
                let after = Duration::from_nanos(s.meta.failed_after_ns.unwrap());
                assert!(
                    after < TIMEOUT + Duration::from_millis(500),
                    "{what}: {after:?}"
                );
                if *kind == ErrorKind::Timeout {
                    assert!(after >= TIMEOUT, "{what}: {after:?}");
                }
            }
        }
    }
    // The stalled site cost each method about the timeout, and nothing hung.
    let stalls = samples
        .iter()
        .filter(|s| s.site == "stall.mirror.test")
        .count() as u32;
    assert!(
        elapsed < TIMEOUT * stalls + Duration::from_secs(30),
        "{label}: {elapsed:?}"
    );
}

#[test]
fn every_fault_over_openssl_gets_its_error_kind_and_the_rest_is_measured() {
    for hook in [HookMode::Callback, HookMode::Replace] {
        let (samples, elapsed) = drive(Transport::Openssl, hook);
        check(&samples, elapsed, &format!("openssl/{hook:?}"));
    }
}

#[test]
fn every_fault_over_rustls_gets_its_error_kind_and_the_rest_is_measured() {
    let (samples, elapsed) = drive(Transport::Rustls, HookMode::Replace);
    check(&samples, elapsed, "rustls");
}

#[test]
fn the_fault_hosts_are_all_covered() {
    let hosts: Vec<&str> = expected().iter().map(|(h, _)| *h).collect();
    for (h, _) in CONN_FAULTS {
        assert!(hosts.contains(h), "{h} untested");
    }
}
