//! The site driver against a loopback mirror the test starts itself: stages, the in-handshake
//! OpenSSL verification, both hooks, and the fault hosts.

use std::collections::HashMap;
use std::time::Duration;

use certbench::driver::{DriverOptions, run};
use certbench::mirror::server::MirrorServer;
use certbench::mirror::{EXPIRED_HOST, UNTRUSTED_HOST, WRONG_HOST};
use certbench::sites::parse_sites;
use certbench_core::methods::Method;
use certbench_core::roots::RootSet;
use certbench_schema::Hook;
use certbench_schema::Transport;
use certbench_schema::{Sample, Stage, Verdict};

use crate::common::{Fault, browser_reason, mirror};

fn drive(sites: &str, hook: Hook, runs: u32) -> Vec<Sample> {
    drive_with(sites, hook, runs, false)
}

fn drive_with(sites: &str, hook: Hook, runs: u32, resumption: bool) -> Vec<Sample> {
    drive_opts(sites, hook, runs, resumption, false)
}

fn drive_opts(
    sites: &str,
    hook: Hook,
    runs: u32,
    resumption: bool,
    cache_roots: bool,
) -> Vec<Sample> {
    drive_over(
        Transport::Openssl,
        sites,
        hook,
        runs,
        resumption,
        cache_roots,
    )
}

fn drive_over(
    transport: Transport,
    sites: &str,
    hook: Hook,
    runs: u32,
    resumption: bool,
    cache_roots: bool,
) -> Vec<Sample> {
    drive_methods(
        crate::common::all_methods(),
        transport,
        sites,
        hook,
        runs,
        resumption,
        cache_roots,
    )
}

fn drive_methods(
    methods: &[Method],
    transport: Transport,
    sites: &str,
    hook: Hook,
    runs: u32,
    resumption: bool,
    cache_roots: bool,
) -> Vec<Sample> {
    drive_ct(
        methods,
        transport,
        sites,
        hook,
        runs,
        resumption,
        cache_roots,
        None,
    )
}

#[allow(clippy::too_many_arguments)]
fn drive_ct(
    methods: &[Method],
    transport: Transport,
    sites: &str,
    hook: Hook,
    runs: u32,
    resumption: bool,
    cache_roots: bool,
    ct: Option<std::sync::Arc<certbench_core::ct::CtLogs>>,
) -> Vec<Sample> {
    let (set, _) = mirror();
    let (sites, errors) = parse_sites(sites);
    assert!(errors.is_empty());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = MirrorServer::start(set, listener).unwrap();
        let resolve: HashMap<_, _> = sites
            .iter()
            .map(|s| ((s.host.clone(), s.port), server.addr))
            .collect();
        let roots = RootSet::from_certs("mirror", set.roots.clone());
        let opts = DriverOptions {
            methods: methods.to_vec(),
            runs,
            warmup: 0,
            transport,
            hook,
            timeout: Duration::from_secs(10),
            cache_roots,
            resolve,
            resumption,
            concurrency: 1,
            served: Default::default(),
            // The CT check alone, in every method that can (`--ct`), or nothing (`--path-only`).
            checks: certbench_core::RunChecks {
                request: certbench_core::Request {
                    path_only: ct.is_none(),
                    ct: ct.is_some(),
                    revocation: None,
                },
                logs: ct,
                data: None,
            },
        };
        let mut out = Vec::new();
        run(&sites, &roots, &opts, |s| out.push(s)).await;
        out
    })
}

#[test]
fn stages_are_recorded_where_they_happen_in_both_hooks() {
    for hook in [Hook::Callback, Hook::Replace] {
        let samples = drive("reddit.com\nwww.washingtonpost.com\ncnn.com\n", hook, 2);
        assert_eq!(samples.len(), 3 * crate::common::all_methods().len() * 2);
        for s in &samples {
            assert_eq!(s.verdict, Verdict::Ok, "{hook:?} {} {}", s.method, s.site);
            assert!(s.stages.values().all(|&ns| ns > 0), "{s:?}");
            let st = |x| s.stage(x).unwrap_or(0);
            let disjoint =
                st(Stage::RootsCreation) + st(Stage::HttpConnectorCreation) + st(Stage::Connection);
            assert!(disjoint <= st(Stage::Total), "{s:?}");
            assert!(
                st(Stage::TotalVerification) <= st(Stage::Connection),
                "{s:?}"
            );
            let inner = st(Stage::OpenSslVerify)
                + st(Stage::ChainCreation)
                + st(Stage::EvAttempt)
                + st(Stage::Verify)
                + st(Stage::VerifyHostname);
            assert!(inner <= st(Stage::TotalVerification), "{s:?}");
            assert!(s.meta.chain_len.is_some());
            let has = |x| s.stages.contains_key(&x);
            match (s.method.as_str(), hook) {
                // OpenSSL's in-handshake verification, timed where it happens.
                ("openssl", _) => {
                    assert!(st(Stage::Verify) > 0);
                    assert!(!has(Stage::OpenSslVerify) && !has(Stage::ChainCreation));
                }
                // The seed's way pays for OpenSSL's verification too.
                (m, Hook::Callback) => {
                    assert!(has(Stage::OpenSslVerify) && has(Stage::ChainCreation));
                    assert!(has(Stage::Verify));
                    assert_eq!(has(Stage::VerifyHostname), checks_host_apart(m), "{m}");
                }
                (m, Hook::Replace) => {
                    assert!(
                        !has(Stage::OpenSslVerify),
                        "replace: OpenSSL verifies nothing"
                    );
                    assert!(has(Stage::Verify));
                    assert_eq!(has(Stage::VerifyHostname), checks_host_apart(m), "{m}");
                }
                (_, other) => panic!("--hook takes callback or replace, not {other}"),
            }
        }
    }
}

/// Whether a method checks the host name apart from `verify` (rustls' own verifiers check it
/// inside their one call; OpenSSL inside `X509_verify_cert`).
fn checks_host_apart(method: &str) -> bool {
    !matches!(
        method,
        "openssl" | "awslc" | "webpki" | "platform" | "gnutls"
    )
}

/// What each method says about each fault host, in its own words.
fn expected_reason(method: &str, site: &str) -> &'static str {
    match (method, site) {
        ("openssl", EXPIRED_HOST) => "certificate has expired",
        ("openssl", WRONG_HOST) => "hostname mismatch",
        ("openssl", UNTRUSTED_HOST) => "unable to get local issuer certificate",
        // AWS-LC: OpenSSL 1.1.1's words, one capitalised.
        ("awslc", EXPIRED_HOST) => "certificate has expired",
        ("awslc", WRONG_HOST) => "Hostname mismatch",
        ("awslc", UNTRUSTED_HOST) => "unable to get local issuer certificate",
        // rustls' verifiers, through rustls' error type.
        ("webpki" | "platform", EXPIRED_HOST) => "invalid peer certificate: certificate expired",
        ("webpki" | "platform", WRONG_HOST) => "certificate not valid for name",
        ("webpki" | "platform", UNTRUSTED_HOST) => "invalid peer certificate: UnknownIssuer",
        // The browsers' verifiers, in their libraries' words.
        (m, EXPIRED_HOST) if browser_reason(m, Fault::Expired).is_some() => {
            browser_reason(m, Fault::Expired).unwrap()
        }
        (m, WRONG_HOST) if browser_reason(m, Fault::WrongHost).is_some() => {
            browser_reason(m, Fault::WrongHost).unwrap()
        }
        (m, UNTRUSTED_HOST) if browser_reason(m, Fault::Untrusted).is_some() => {
            browser_reason(m, Fault::Untrusted).unwrap()
        }
        (_, EXPIRED_HOST) => "CertExpired",
        (_, WRONG_HOST) => "CertNotValidForName",
        (_, UNTRUSTED_HOST) => "UnknownIssuer",
        _ => unreachable!(),
    }
}

#[test]
fn fault_hosts_are_rejected_by_every_method_with_its_reason() {
    for hook in [Hook::Callback, Hook::Replace] {
        let samples = drive(
            &format!("{EXPIRED_HOST}\n{WRONG_HOST}\n{UNTRUSTED_HOST}\nreddit.com\n"),
            hook,
            1,
        );
        for s in &samples {
            let reason = match &s.verdict {
                Verdict::Rejected(r) => r.as_str(),
                Verdict::Ok if s.site == "reddit.com" => continue,
                other => panic!("{hook:?} {} {}: {other:?}", s.method, s.site),
            };
            let want = expected_reason(&s.method, &s.site);
            assert!(
                reason.contains(want),
                "{hook:?} {} {}: {reason}",
                s.method,
                s.site
            );
            assert!(s.stage(Stage::TotalVerification).unwrap_or(0) > 0, "{s:?}");
        }
    }
}

#[test]
fn tls_resumption_really_resumes_and_skips_verification() {
    for hook in [Hook::Callback, Hook::Replace] {
        let samples = drive_with("reddit.com\ncnn.com\n", hook, 3, true);
        assert_eq!(samples.len(), 2 * crate::common::all_methods().len() * 3);
        for s in &samples {
            assert_eq!(s.verdict, Verdict::Ok, "{s:?}");
            let resumed = s.meta.resumed.expect("resumption runs record the flag");
            // The first connection of each (site, method) is full; every later one is resumed,
            // as OpenSSL itself reports (SSL_session_reused).
            assert_eq!(
                resumed,
                s.run > 0,
                "{hook:?} {} {} run {}",
                s.method,
                s.site,
                s.run
            );
            let verified = s.stages.contains_key(&Stage::TotalVerification);
            assert_eq!(
                verified, !resumed,
                "a resumed handshake has no certificate to verify"
            );
        }
    }
    // Without the flag, nothing is resumed and nothing is recorded about it.
    for s in drive("reddit.com\n", Hook::Callback, 2) {
        assert_eq!(s.meta.resumed, None);
        assert!(s.stages.contains_key(&Stage::TotalVerification));
    }
}

/// Wraps a real method but panics when asked to verify.
struct Panicking(Box<dyn certbench_core::methods::DynVerifier>);

impl certbench_core::methods::DynVerifier for Panicking {
    fn capabilities(&self) -> certbench_core::verifier::Capabilities {
        self.0.capabilities()
    }

    fn library(&self) -> certbench_core::verifier::Library {
        self.0.library()
    }

    fn rustls_verifier(
        &self,
        _: &certbench_core::methods::AnyRoots,
    ) -> Option<std::sync::Arc<dyn rustls::client::danger::ServerCertVerifier>> {
        None // so that the rustls transport calls `verify`, which panics
    }

    fn build_roots(
        &self,
        roots: &[rustls_pki_types::CertificateDer<'static>],
    ) -> Result<certbench_core::methods::AnyRoots, certbench_core::Error> {
        self.0.build_roots(roots)
    }

    fn verify(
        &self,
        _: &certbench_core::methods::AnyRoots,
        _: &certbench_core::chain::Chain,
        _: certbench_core::verifier::Target<'_>,
        _: &mut certbench_core::stages::Recorder,
    ) -> Result<(), certbench_core::verifier::Rejection> {
        panic!("injected panic")
    }
}

/// Fail closed: a verifier that panics inside the handshake is a rejection with a reason, in
/// both hooks; no unwinding reaches OpenSSL, and the process goes on to verify normally.
#[test]
fn a_panicking_verifier_is_a_rejection_and_the_process_lives() {
    use certbench::transport::openssl::{ConnectorHook, HookState, connector};
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};

    let (set, _) = mirror();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let store = || {
        let mut b = openssl::x509::store::X509StoreBuilder::new().unwrap();
        for r in &set.roots {
            b.add_cert(openssl::x509::X509::from_der(r).unwrap())
                .unwrap();
        }
        b.build()
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = MirrorServer::start(set, listener).unwrap();
        let handshake = |hook: ConnectorHook| {
            let state = Arc::new(Mutex::new(HookState::default()));
            let c = connector(
                hook,
                Some(store()),
                ("reddit.com", now),
                &certbench_core::Checks::none(),
                false,
                state.clone(),
            )
            .unwrap();
            async move {
                let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
                let ssl = c
                    .configure()
                    .unwrap()
                    .verify_hostname(false)
                    .into_ssl("reddit.com")
                    .unwrap();
                let mut tls = tokio_openssl::SslStream::new(ssl, tcp).unwrap();
                let result = Pin::new(&mut tls).connect().await;
                let rejection = state
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .rejection
                    .clone();
                (result.is_ok(), rejection)
            }
        };
        for panicking in [true, false] {
            let v: Arc<dyn certbench_core::methods::DynVerifier> = if panicking {
                Arc::new(Panicking(Method::RustlsSerial.verifier()))
            } else {
                Arc::from(Method::RustlsSerial.verifier())
            };
            let roots = Arc::new(v.build_roots(&set.roots).unwrap());
            for hook in [
                ConnectorHook::Callback(v.clone(), roots.clone()),
                ConnectorHook::Replace(v.clone(), roots.clone()),
            ] {
                let (ok, rejection) = handshake(hook).await;
                if panicking {
                    assert!(!ok, "a panic never accepts");
                    assert_eq!(
                        rejection.as_deref(),
                        Some("verifier panicked (rejected): injected panic")
                    );
                } else {
                    assert!(
                        ok,
                        "after the panics, verification works as before: {rejection:?}"
                    );
                }
            }
        }
    });
}

/// `--cache-roots`: one store per method, shared by every connector (OpenSSL's through
/// `X509_STORE_up_ref`), recorded as 0 per use; verdicts unchanged.
#[test]
fn cached_stores_are_shared_across_connections() {
    for hook in [Hook::Callback, Hook::Replace] {
        let samples = drive_opts("reddit.com\ncnn.com\n", hook, 3, false, true);
        assert_eq!(samples.len(), 2 * crate::common::all_methods().len() * 3);
        for s in &samples {
            assert_eq!(s.verdict, Verdict::Ok, "{s:?}");
            assert_eq!(s.stage(Stage::RootsCreation), Some(0));
            assert!(s.meta.roots_cached);
            assert!(s.stage(Stage::TotalVerification).unwrap() > 0);
        }
    }
}

/// Over rustls, each method sits inside a `TimedVerifier`: every handshake records
/// `total-verification` and `verify` (and the method's own `chain-creation` and
/// `verify-hostname` when certbench runs it), nested inside `connection`, inside `total`.
#[test]
fn rustls_transport_records_timed_verifier_stages_for_every_method() {
    let samples = drive_over(
        Transport::Rustls,
        "reddit.com\nwww.washingtonpost.com\ncnn.com\n",
        Hook::Callback,
        2,
        false,
        false,
    );
    assert_eq!(samples.len(), 3 * crate::common::all_methods().len() * 2);
    for s in &samples {
        assert_eq!(s.verdict, Verdict::Ok, "{} {}", s.method, s.site);
        assert_eq!(
            s.config.transport,
            Some(certbench_schema::Transport::Rustls.into())
        );
        assert!(s.stages.values().all(|&ns| ns > 0), "{s:?}");
        let st = |x| s.stage(x).unwrap_or(0);
        let has = |x| s.stages.contains_key(&x);
        assert!(has(Stage::TotalVerification) && has(Stage::Verify), "{s:?}");
        assert!(!has(Stage::OpenSslVerify), "no OpenSSL handshake here");
        let staged = !matches!(s.method.as_str(), "webpki" | "platform");
        assert_eq!(has(Stage::ChainCreation), staged, "{}", s.method);
        assert_eq!(
            has(Stage::VerifyHostname),
            checks_host_apart(&s.method),
            "{}",
            s.method
        );
        let inner = st(Stage::ChainCreation)
            + st(Stage::EvAttempt)
            + st(Stage::Verify)
            + st(Stage::VerifyHostname);
        assert!(inner <= st(Stage::TotalVerification), "{s:?}");
        assert!(
            st(Stage::TotalVerification) <= st(Stage::Connection),
            "{s:?}"
        );
        let disjoint =
            st(Stage::RootsCreation) + st(Stage::HttpConnectorCreation) + st(Stage::Connection);
        assert!(disjoint <= st(Stage::Total), "{s:?}");
        assert!(s.meta.chain_len.is_some() && s.meta.tls_version.is_some());
    }
}

#[test]
fn rustls_transport_rejects_fault_hosts_with_each_methods_reason() {
    let samples = drive_over(
        Transport::Rustls,
        &format!("{EXPIRED_HOST}\n{WRONG_HOST}\n{UNTRUSTED_HOST}\n"),
        Hook::Callback,
        1,
        false,
        false,
    );
    assert_eq!(samples.len(), 3 * crate::common::all_methods().len());
    for s in &samples {
        match &s.verdict {
            Verdict::Rejected(reason) => {
                let want = expected_reason(&s.method, &s.site);
                assert!(reason.contains(want), "{} {}: {reason}", s.method, s.site);
            }
            other => panic!("{} {}: {other:?}", s.method, s.site),
        }
        assert!(s.stage(Stage::TotalVerification).unwrap_or(0) > 0, "{s:?}");
    }
}

#[test]
fn rustls_transport_resumes_with_tickets_and_skips_verification() {
    let samples = drive_over(
        Transport::Rustls,
        "reddit.com\n",
        Hook::Callback,
        3,
        true,
        false,
    );
    for s in &samples {
        assert_eq!(s.verdict, Verdict::Ok, "{s:?}");
        let resumed = s.meta.resumed.expect("resumption runs record the flag");
        assert_eq!(resumed, s.run > 0, "{} run {}", s.method, s.run);
        assert_eq!(s.stages.contains_key(&Stage::TotalVerification), !resumed);
    }
}

/// Fail closed over rustls: a panicking method inside the `TimedVerifier` fails the handshake
/// with the panic as the reason; the same runtime then verifies normally.
#[test]
fn rustls_transport_turns_a_panicking_verifier_into_a_rejection() {
    use certbench::transport::rustls::{LastVerification, TcpConnector, TimedVerifier};
    use certbench::transport::rustls::{client_config, connector};
    use std::sync::Arc;
    use tower_service::Service;

    let (set, _) = mirror();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = MirrorServer::start(set, listener).unwrap();
        for panicking in [true, false] {
            let v: Arc<dyn certbench_core::methods::DynVerifier> = if panicking {
                Arc::new(Panicking(Method::RustlsSerial.verifier()))
            } else {
                Arc::from(Method::RustlsSerial.verifier())
            };
            let roots = Arc::new(v.build_roots(&set.roots).unwrap());
            let last = Arc::new(LastVerification::default());
            let timed =
                TimedVerifier::for_method(v, roots, &certbench_core::Checks::none(), last.clone());
            let config = client_config(Arc::new(timed), None).unwrap();
            let mut c = connector(
                config,
                TcpConnector {
                    addr: Some(server.addr),
                    flights: Default::default(),
                },
            );
            let result = c.call("https://reddit.com/".parse().unwrap()).await;
            let (stages, verdict) = last.take().expect("the verifier ran");
            assert!(stages.get(Stage::TotalVerification).unwrap_or(0) > 0);
            if panicking {
                assert!(result.is_err(), "a panic never accepts");
                let reason = verdict.unwrap_err().reason;
                assert!(
                    reason.contains("verifier panicked (rejected): injected panic"),
                    "{reason}"
                );
            } else {
                assert!(
                    result.is_ok(),
                    "after the panic, verification works: {verdict:?}"
                );
            }
        }
    });
}

/// One OpenSSL policy: the `openssl` method gives the same verdict, for the same reason,
/// wherever it runs. netflix.com's intermediate lacks an authority key identifier, which only
/// `X509_V_FLAG_X509_STRICT` checks: libssl's default flags would accept it in the handshake.
#[test]
fn the_openssl_method_verifies_under_one_policy_in_every_stack() {
    let reason = "Missing Authority Key Identifier (depth 1)";
    let openssl = |samples: Vec<Sample>| -> Sample {
        samples
            .into_iter()
            .find(|s| s.method == "openssl")
            .expect("an openssl sample")
    };
    let hooks = [
        (
            Transport::Openssl,
            Hook::Callback,
            certbench_schema::Hook::Native,
        ),
        (
            Transport::Rustls,
            Hook::Callback,
            certbench_schema::Hook::TimedVerifier,
        ),
    ];
    for (transport, hook, name) in hooks {
        let s = openssl(drive_over(
            transport,
            "netflix.com\n",
            hook,
            1,
            false,
            false,
        ));
        assert_eq!(
            s.verdict,
            Verdict::Rejected(reason.into()),
            "{transport:?}: {s:?}"
        );
        assert_eq!(s.config.hook, Some(name.into()));
        let policy = s.config.openssl_policy.as_deref().unwrap();
        assert!(
            policy.starts_with("X509_STRICT, PARTIAL_CHAIN, auth level 2"),
            "{policy}"
        );
    }
    // Under the callback hook OpenSSL's own verification runs under the same policy (the
    // webpki method decides, as in the seed), and the sample says so.
    let webpki_only = |hook| {
        drive_methods(
            &[Method::RustlsSerial],
            Transport::Openssl,
            "netflix.com\n",
            hook,
            1,
            false,
            false,
        )
    };
    let samples = webpki_only(Hook::Callback);
    let webpki = samples.iter().find(|s| s.method == "rustlsserial").unwrap();
    assert!(webpki.config.openssl_policy.is_some());
    assert!(webpki.stage(Stage::OpenSslVerify).is_some());
    let samples = webpki_only(Hook::Replace);
    let webpki = samples.iter().find(|s| s.method == "rustlsserial").unwrap();
    assert_eq!(
        webpki.config.openssl_policy, None,
        "OpenSSL does not verify"
    );
    // And `verify`, on the real chain: the same verdict.
    let corpus = crate::common::corpus();
    let chain = crate::common::chain(&corpus, "netflix.com__webpki-tests");
    let got = crate::common::verdict(Method::OpenSsl, chain).unwrap_err();
    assert!(got.contains("Missing Authority Key Identifier"), "{got}");
}

/// `--ct` on the mirror, over both transports (OpenSSL's callback and replace hooks, rustls):
/// every sample of a method with a CT check has a `ct` stage inside `total-verification`, and
/// a check of every SCT the clone's leaf embeds (at least two, all from the mirror's logs,
/// all valid, the policy met) in `meta.ct`, and names the list in `config.ct`; `webpki` too,
/// put in through certbench's MethodVerifier (its own chain-creation) instead of its own
/// rustls verifier. `openssl` and `gnutls` have no CT check: no `ct` stage, no `meta.ct`.
#[test]
fn ct_is_checked_inside_the_handshake_by_every_method_with_a_ct_check() {
    let (set, _) = mirror();
    let logs = certbench_core::ct::CtLogs::from_v3_json(&set.ct_log_list, "mirror").unwrap();
    let label = format!("{} logs of mirror", logs.logs().len());
    let logs = std::sync::Arc::new(logs);
    let methods: Vec<Method> = [
        Method::RustlsSerial,
        Method::Chrome,
        Method::Firefox,
        Method::Webpki,
        Method::OpenSsl,
        Method::Gnutls,
    ]
    .into_iter()
    .filter(|m| crate::common::all_methods().contains(m))
    .collect();
    let sites = "reddit.com
www.washingtonpost.com
github.com
";
    for (transport, hook) in [
        (Transport::Openssl, Hook::Callback),
        (Transport::Openssl, Hook::Replace),
        (Transport::Rustls, Hook::Callback),
    ] {
        let samples = drive_ct(
            &methods,
            transport,
            sites,
            hook,
            1,
            false,
            false,
            Some(logs.clone()),
        );
        assert_eq!(samples.len(), 3 * methods.len());
        for s in &samples {
            let what = format!("{transport:?} {hook:?} {} {}", s.method, s.site);
            assert_eq!(s.verdict, Verdict::Ok, "{what}");
            let checks = matches!(
                s.method.as_str(),
                "rustlsserial" | "chrome" | "firefox" | "webpki"
            );
            assert_eq!(s.stages.contains_key(&Stage::Ct), checks, "{what}: {s:?}");
            if !checks {
                assert_eq!((s.meta.ct, s.config.ct.as_deref()), (None, None), "{what}");
                continue;
            }
            let ct = s.meta.ct.unwrap_or_else(|| panic!("{what}: no meta.ct"));
            assert!(ct.scts >= 2, "{what}: {ct:?}");
            assert_eq!(
                (ct.valid, ct.checked, ct.unknown_log, ct.invalid),
                (ct.scts, ct.scts, 0, 0),
                "{what}: every SCT from a known log, checked and valid: {ct:?}"
            );
            assert!(ct.compliant, "{what}: {ct:?}");
            assert_eq!(s.config.ct.as_deref(), Some(label.as_str()), "{what}");
            let st = |x| s.stage(x).unwrap_or(0);
            assert!(st(Stage::Ct) > 0, "{what}");
            assert!(
                st(Stage::Ct) <= st(Stage::TotalVerification),
                "{what}: {s:?}"
            );
            if transport == Transport::Rustls && s.method == "webpki" {
                // Through MethodVerifier, not webpki's own rustls verifier: staged.
                assert!(s.stages.contains_key(&Stage::ChainCreation), "{what}");
            }
        }
    }
}
