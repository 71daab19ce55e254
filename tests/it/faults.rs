//! Every fault the mirror can act out, one test each, against a loopback mirror this test
//! binary starts, over OpenSSL (both hooks) and rustls: the run completes, the faulty site
//! gets the right error kind, the sites before and after it are measured, no failed sample
//! claims a stage it never reached, and every timeout is bounded by the driver's timeout.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use certbench::driver::{DriverOptions, run};
use certbench::mirror::faults::{CONN_FAULTS, NO_HTTP_HOST, REFUSED_HOST};
use certbench::mirror::server::MirrorServer;
use certbench::mirror::{
    EXPIRED_HOST, NOT_YET_VALID_HOST, OUT_OF_ORDER_HOST, SELF_SIGNED_HOST, UNTRUSTED_HOST,
    WRONG_HOST,
};
use certbench::sites::parse_sites;
use certbench_core::methods::Method;
use certbench_core::roots::RootSet;
use certbench_schema::Hook;
use certbench_schema::Transport;
use certbench_schema::{ErrorKind, Sample, Stage, Verdict};

/// The driver's timeout in the stall test (which waits it out for every sample there).
const STALL_TIMEOUT: Duration = Duration::from_secs(3);
/// The driver's timeout elsewhere: never reached, so generous (a loaded CI machine).
const TIMEOUT: Duration = Duration::from_secs(30);

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

use crate::common::mirror;

fn drive(
    transport: Transport,
    hook: Hook,
    hosts: &[&str],
    timeout: Duration,
) -> (Vec<Sample>, Duration) {
    let (set, _) = mirror();
    let list: String = hosts.iter().map(|h| format!("{h}\n")).collect();
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
            timeout,
            cache_roots: false,
            resolve,
            resumption: false,
            concurrency: 1,
            served: Default::default(),
            checks: certbench_core::RunChecks::path_only(),
        };
        let mut out = Vec::new();
        let start = Instant::now();
        run(&sites, &roots, &opts, |s| out.push(s)).await;
        (out, start.elapsed())
    })
}

fn check(samples: &[Sample], elapsed: Duration, label: &str, sites: usize, timeout: Duration) {
    let expected = expected();
    assert_eq!(
        samples.len(),
        sites * 3,
        "{label}: every site × method measured"
    );
    for s in samples {
        let (_, want) = expected.iter().find(|(h, _)| *h == s.site).unwrap();
        let what = format!("{label} {} {}: {:?}", s.method, s.site, s.verdict);
        assert_eq!(s.meta.error_kind, *want, "{what}");
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
                    after < timeout + Duration::from_millis(500),
                    "{what}: {after:?}"
                );
                if *kind == ErrorKind::Timeout {
                    assert!(after >= timeout, "{what}: {after:?}");
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
        elapsed < timeout * stalls + Duration::from_secs(60),
        "{label}: {elapsed:?}"
    );
}

/// `host` between two good sites, over OpenSSL with both hooks and over rustls.
fn one_fault(host: &str) {
    for (transport, hook, label) in [
        (Transport::Openssl, Hook::Callback, "openssl/callback"),
        (Transport::Openssl, Hook::Replace, "openssl/replace"),
        (Transport::Rustls, Hook::Replace, "rustls"),
    ] {
        let hosts = ["reddit.com", host, "www.washingtonpost.com"];
        let timeout = if host.starts_with("stall.") {
            STALL_TIMEOUT
        } else {
            TIMEOUT
        };
        let (samples, elapsed) = drive(transport, hook, &hosts, timeout);
        check(&samples, elapsed, label, hosts.len(), timeout);
    }
}

macro_rules! fault_tests {
    ($($name:ident => $host:expr,)*) => {
        $( #[test] fn $name() { one_fault($host) } )*
        /// Every host in `expected()` but the good ones has its test.
        const TESTED: &[&str] = &[$($host),*];
    };
}

fault_tests! {
    refused_is_a_connect_error => REFUSED_HOST,
    a_stall_is_a_timeout_bounded_by_the_timeout => "stall.mirror.test",
    a_reset_mid_handshake_is_a_tls_handshake_error => "reset.mirror.test",
    a_truncated_certificate_message_is_a_tls_handshake_error => "truncated.mirror.test",
    an_empty_chain_is_a_tls_handshake_error => "empty-chain.mirror.test",
    a_thousand_certificates_are_a_tls_handshake_error => "many-certs.mirror.test",
    an_expired_leaf_is_rejected => EXPIRED_HOST,
    a_not_yet_valid_leaf_is_rejected => NOT_YET_VALID_HOST,
    a_wrong_host_leaf_is_rejected => WRONG_HOST,
    a_self_signed_leaf_is_rejected => SELF_SIGNED_HOST,
    an_untrusted_root_is_rejected => UNTRUSTED_HOST,
    intermediates_out_of_order_are_accepted => OUT_OF_ORDER_HOST,
    no_http_response_is_an_http_error => NO_HTTP_HOST,
}

#[test]
fn the_fault_hosts_are_all_covered() {
    let hosts: Vec<&str> = expected().iter().map(|(h, _)| *h).collect();
    for (h, _) in CONN_FAULTS {
        assert!(hosts.contains(h), "{h} has no expected kind");
        assert!(TESTED.contains(h), "{h} has no test");
    }
    for (h, kind) in expected() {
        assert!(TESTED.contains(&h) || kind.is_none(), "{h} has no test");
    }
}
