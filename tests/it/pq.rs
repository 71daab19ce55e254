//! Post-quantum twins (`--pq`): the twins keep what a browser checks of today's chains, every
//! method that implements ML-DSA gives them today's verdicts, the others say "unsupported",
//! and a driver run measures them beside today's chains over rustls.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use certbench::certs::twin::twins;
use certbench::driver::{DriverOptions, Served, run};
use certbench::mirror::MirrorSet;
use certbench::mirror::local::serve_each_compressing;
use certbench::pq::Profile;
use certbench::pq::scenario::{Scenario, TwinSet};
use certbench::sites::parse_sites;
use certbench::tls::compression::CertCompression;
use certbench::verify::{self, Plan, PlanOptions, VerifyOptions};
use certbench_analysis::export::Report;
use certbench_core::methods::Method;
use certbench_core::roots::RootSet;
use certbench_schema::Hook;
use certbench_schema::Transport;
use certbench_schema::{Sample, Verdict};
use x509_parser::prelude::{FromDer, X509Certificate};

use crate::common::corpus;

/// The mirror's twins under `profile`, made once for this test binary.
pub fn pq_set(profile: Profile) -> &'static MirrorSet {
    static SETS: OnceLock<std::sync::Mutex<HashMap<Profile, &'static MirrorSet>>> = OnceLock::new();
    let mut sets = SETS.get_or_init(Default::default).lock().unwrap();
    sets.entry(profile).or_insert_with(|| {
        let dir = Box::leak(Box::new(tempfile::tempdir().unwrap()));
        let set = MirrorSet::load_or_generate_for(&corpus(), dir.path(), profile).unwrap();
        Box::leak(Box::new(set))
    })
}

/// The methods built in that can verify X.509 chains here (`mtc`'s twins: `tests/it/mtc.rs`).
fn methods() -> Vec<Method> {
    crate::common::all_methods().to_vec()
}

#[test]
fn twins_keep_names_extensions_validity_and_depth() {
    let corpus = corpus();
    for profile in [Profile::MlDsa65, Profile::Mixed] {
        let made = twins(&corpus, profile);
        assert!(made.failures.is_empty(), "{:?}", made.failures);
        assert_eq!(made.chains.len(), corpus.chains.len());
        for (c, t) in corpus.chains.iter().zip(&made.chains) {
            assert_eq!(
                (&c.id, &c.host, c.validation_time),
                (&t.id, &t.host, t.validation_time)
            );
            assert_eq!(c.chain.len(), t.chain.len(), "{}: depth", c.id);
            for (i, (a, b)) in c.chain.iter().zip(t.chain.iter()).enumerate() {
                let (_, a) = X509Certificate::from_der(a).unwrap();
                let (_, b) = X509Certificate::from_der(b).unwrap();
                assert_eq!(a.validity(), b.validity(), "{} cert {i}: validity", c.id);
                assert_eq!(a.raw_serial(), b.raw_serial(), "{} cert {i}: serial", c.id);
                let oids = |x: &X509Certificate<'_>| {
                    let mut oids: Vec<String> = x
                        .extensions()
                        .iter()
                        .map(|e| e.oid.to_id_string())
                        .collect();
                    oids.sort(); // rcgen writes the authority key identifier first
                    oids
                };
                assert_eq!(oids(&a), oids(&b), "{} cert {i}: extensions", c.id);
                assert_eq!(
                    a.subject_alternative_name()
                        .ok()
                        .flatten()
                        .map(|e| e.value.clone()),
                    b.subject_alternative_name()
                        .ok()
                        .flatten()
                        .map(|e| e.value.clone()),
                    "{} cert {i}: names",
                    c.id
                );
                // RFC 9881 §5: an ML-DSA key asserts no encipherment or agreement.
                if let Ok(Some(ku)) = b.key_usage() {
                    let ku = ku.value;
                    assert!(
                        !ku.key_encipherment() && !ku.data_encipherment() && !ku.key_agreement(),
                        "{} cert {i}: {ku:?}",
                        c.id
                    );
                }
            }
            let want = match profile {
                Profile::Mixed => std::iter::once("ML-DSA-44")
                    .chain(std::iter::repeat_n("ML-DSA-65", t.chain.len() - 1))
                    .collect::<Vec<_>>(),
                _ => vec!["ML-DSA-65"; t.chain.len()],
            };
            assert_eq!(t.key_types, want, "{}", c.id);
        }
    }
}

/// Every sample of `method` on `profile`'s chains, by chain id.
fn by_chain(samples: &[Sample], method: Method, profile: Profile) -> Vec<&Sample> {
    (samples.iter())
        .filter(|s| s.method == method.name() && s.config.profile == Some(profile.into()))
        .collect()
}

/// `verify` over the bundled corpus (Mozilla's and the corpus' roots, stores cached, one run,
/// no warm-up) beside `pq`'s twins under `scenarios`, by `methods`: the plan and its samples.
pub fn verify_pq(
    pq: Vec<Profile>,
    scenarios: Vec<Scenario>,
    methods: Vec<Method>,
) -> (Plan, Vec<Sample>) {
    let plan = Plan::prepare(&PlanOptions {
        chains: certbench_core::corpus::bundled_dir(),
        roots: certbench_core::roots::RootsSpec::Mozilla,
        corpus_roots: true,
        extra_roots: 0,
        extra_intermediates: 0,
        pq,
        scenarios,
    })
    .unwrap();
    let opts = VerifyOptions {
        methods,
        runs: 1,
        warmup: 0,
        cache_roots: true,
        extra_intermediates: Vec::new(),
        checks: certbench_core::RunChecks::path_only(),
    };
    let mut samples = Vec::new();
    verify::run(&plan, &opts, |s| samples.push(s));
    (plan, samples)
}

#[test]
fn verify_pq_gives_every_twin_the_verdict_of_todays_chain() {
    let methods = methods();
    let (plan, samples) = verify_pq(
        Profile::PQ.to_vec(),
        vec![Scenario::AS_SERVED],
        methods.clone(),
    );
    let chains = plan.corpus.chains.len();
    assert_eq!(chains, 34);
    assert_eq!(samples.len(), chains * 5 * methods.len());
    for &m in &methods {
        let today = by_chain(&samples, m, Profile::Classical);
        assert_eq!(today.len(), chains, "{m}");
        for &p in Profile::PQ {
            let twins = by_chain(&samples, m, p);
            assert_eq!(twins.len(), chains, "{m} {p}");
            for (t, c) in twins.iter().zip(&today) {
                assert_eq!(t.chain, c.chain);
                if m.verifier().capabilities().ml_dsa {
                    assert_eq!(
                        t.verdict.is_ok(),
                        c.verdict.is_ok(),
                        "{m} on the {p} twin of {:?}: {:?}, today's: {:?}",
                        c.chain,
                        t.verdict,
                        c.verdict
                    );
                    assert!(
                        t.stages
                            .contains_key(&certbench_schema::Stage::TotalVerification)
                    );
                } else {
                    let algorithm = certbench::pq::ml_dsa(p)[0].name();
                    assert_eq!(
                        t.verdict,
                        Verdict::Unsupported(format!("unsupported algorithm: {algorithm}")),
                        "{m} {p}"
                    );
                    assert!(t.stages.is_empty(), "an unsupported sample times nothing");
                }
            }
        }
    }
    // The methods that implement ML-DSA: the rustls-webpki ones, AWS-LC, and Chrome's when
    // it is built; not the system's OpenSSL 3.0, webpki 0.22, NSS or GnuTLS.
    let with: Vec<&str> = (methods.iter())
        .filter(|m| m.verifier().capabilities().ml_dsa)
        .map(|m| m.name())
        .collect();
    for m in ["rustlsserial", "rustlsparallel", "webpki", "awslc"] {
        assert!(with.contains(&m), "{m} verifies ML-DSA");
    }
    for m in ["openssl", "webpkilegacy", "firefox", "gnutls"] {
        assert!(!with.contains(&m), "{m} does not verify ML-DSA");
    }
    let report = Report::from_samples(&samples, &[], None);
    let answer = certbench_analysis::export::render_answer(&report.answer).join("\n");
    assert!(
        answer.contains("Verdicts on the twins equal today's for every method that verified them")
            && answer.contains(&format!("{chains} of {chains} each")),
        "{answer}"
    );
    assert!(
        answer.contains("With ML-DSA-44 (as served, classical SCTs) chains verification costs ×"),
        "{answer}"
    );
}

#[test]
fn a_twin_outside_its_validity_is_rejected_as_its_chain_is() {
    let corpus = corpus();
    let made = twins(&corpus, Profile::MlDsa44);
    let c = &corpus.chains[0];
    let t = &made.chains[0];
    let (_, not_after) = certbench_core::der::validity(&c.chain.leaf).unwrap();
    let mut roots = RootSet::from_certs("corpus", c.roots.clone());
    roots.extend("pq", t.roots.iter().cloned());
    for m in methods()
        .into_iter()
        .filter(|m| m.verifier().capabilities().ml_dsa)
    {
        let v = m.verifier();
        for item in [c, t] {
            let mut late = item.clone();
            late.validation_time = not_after + 86_400;
            let (_, verdict) = verify::measure(v.as_ref(), None, &roots, &late);
            assert!(
                matches!(verdict, Verdict::Rejected(_)),
                "{m} {}: {verdict:?}",
                item.id
            );
            let (_, verdict) = verify::measure(v.as_ref(), None, &roots, item);
            assert_eq!(verdict, Verdict::Ok, "{m} {}", item.id);
        }
    }
}

/// A driver run over rustls of `methods` on `sites`, today's chains beside `profile`'s
/// twins, through `link` when given.
pub fn drive_pq(
    methods: &[Method],
    sites: &str,
    profiles: &[Profile],
    runs: u32,
    link: Option<certbench::link::LinkSpec>,
) -> Vec<Sample> {
    drive_pq_compressing(methods, sites, profiles, runs, link, None)
}

/// [`drive_pq`], the mirrors compressing their certificates with `compression` and the client
/// offering it (`--compress-certs`).
pub fn drive_pq_compressing(
    methods: &[Method],
    sites: &str,
    profiles: &[Profile],
    runs: u32,
    link: Option<certbench::link::LinkSpec>,
    compression: Option<CertCompression>,
) -> Vec<Sample> {
    let how = (Transport::Rustls, compression);
    drive_pq_over(how, methods, sites, profiles, runs, link)
}

/// [`drive_pq_compressing`] over `transport` (the client's, and the mirror's for QUIC).
pub fn drive_pq_over(
    how: (Transport, Option<CertCompression>),
    methods: &[Method],
    sites: &str,
    profiles: &[Profile],
    runs: u32,
    link: Option<certbench::link::LinkSpec>,
) -> Vec<Sample> {
    drive_pq_trusting(None, how, methods, sites, profiles, runs, link)
}

/// [`drive_pq_over`], the client trusting `roots` instead of the sets' own, if given.
pub fn drive_pq_trusting(
    trusted: Option<RootSet>,
    (transport, compression): (Transport, Option<CertCompression>),
    methods: &[Method],
    sites: &str,
    profiles: &[Profile],
    runs: u32,
    link: Option<certbench::link::LinkSpec>,
) -> Vec<Sample> {
    let (sites, errors) = parse_sites(sites);
    assert!(errors.is_empty());
    let sets: Vec<&MirrorSet> = (profiles.iter())
        .map(|&p| match p {
            Profile::Classical => &crate::common::mirror().0,
            p => pq_set(p),
        })
        .collect();
    let mut roots = RootSet::from_certs("mirror", Vec::new());
    for s in &sets {
        roots.extend(s.profile.name(), s.roots.iter().cloned());
    }
    let roots = trusted.unwrap_or(roots);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let quic_client = link.and_then(|l| l.h3);
        let tls = (transport, compression.as_ref(), quic_client);
        let (served, resolve) = serve_each_compressing(&sets, tls, link, &sites, &HashMap::new())
            .await
            .unwrap();
        let opts = DriverOptions {
            methods: methods.to_vec(),
            runs,
            warmup: 1,
            transport,
            hook: Hook::Callback,
            timeout: Duration::from_secs(10),
            cache_roots: true,
            resolve: HashMap::new(),
            resumption: false,
            concurrency: 1,
            served: Served {
                profiles: (profiles.iter())
                    .map(|&p| TwinSet::new(p, Scenario::AS_SERVED))
                    .collect(),
                resolve,
                link: link.map(|l| l.to_string()),
                window: Some(link.map_or_else(certbench::link::kernel_window, |l| l.window)),
                compression,
                quic_client,
            },
            checks: certbench_core::RunChecks::path_only(),
        };
        let mut out = Vec::new();
        run(&sites, &roots, &opts, |s| out.push(s)).await;
        drop(served);
        out.into_iter().filter(|s| !s.warmup).collect()
    })
}

#[test]
fn a_pq_run_measures_twins_beside_todays_chains_and_says_unsupported() {
    let methods = [Method::RustlsSerial, Method::OpenSsl, Method::AwsLc];
    let profiles = [Profile::Classical, Profile::MlDsa44];
    let samples = drive_pq(&methods, "cnn.com\ngithub.com\n", &profiles, 1, None);
    assert_eq!(samples.len(), 2 * methods.len() * profiles.len());
    for s in &samples {
        let twin = s.config.profile == Some(certbench_schema::Profile::MlDsa44.into());
        assert!(s.config.profile.is_some(), "{s:?}");
        match (s.method.as_str(), twin) {
            ("openssl", true) => {
                assert_eq!(
                    s.verdict,
                    Verdict::Unsupported("unsupported algorithm: ML-DSA-44".into())
                );
                assert!(s.stages.is_empty() && s.meta.error_kind.is_none(), "{s:?}");
            }
            _ => {
                assert_eq!(
                    s.verdict,
                    Verdict::Ok,
                    "{} {:?}",
                    s.method,
                    s.config.profile
                );
                let (chain, message, flight) = (
                    s.meta.chain_bytes.unwrap(),
                    s.meta.cert_message_bytes.unwrap(),
                    s.meta.first_flight_bytes.unwrap(),
                );
                assert!(
                    chain < message && message < flight,
                    "{chain} {message} {flight}"
                );
                assert_eq!(
                    message,
                    chain + 8 + 5 * u64::from(s.meta.chain_len.unwrap())
                );
                if twin {
                    assert!(s.meta.key_types.iter().all(|k| k == "ML-DSA-44"), "{s:?}");
                    // ML-DSA-44: a 2,420-byte signature and a 1,312-byte key per certificate.
                    assert!(
                        chain > 3_700 * u64::from(s.meta.chain_len.unwrap()),
                        "{chain}"
                    );
                }
            }
        }
    }
    let report = Report::from_samples(&samples, &[], None);
    let answer = certbench_analysis::export::render_answer(&report.answer).join("\n");
    assert!(
        answer.contains("With ML-DSA-44 (as served, classical SCTs) chains verification costs ×")
            && answer.contains("first flight carries")
            && answer.contains("Without ML-DSA (unsupported algorithm, so no figure): openssl."),
        "{answer}"
    );
    let pq = report.pq.expect("a pq summary");
    let github = |p: &str| {
        (pq.flights.iter())
            .find(|f| f.site == "github.com" && f.profile == p)
            .and_then(|f| f.first_flight_bytes)
            .unwrap()
    };
    assert!(github("mldsa44 (classical-scts, served)") > github("classical") + 8_000);
    // `certbench report` on the run's samples shows the same section, in markdown and HTML.
    let jsonl: String = (samples.iter())
        .map(|s| serde_json::to_string(s).unwrap() + "\n")
        .collect();
    let (md, html) = crate::common::report_with_html("pq.jsonl", jsonl.as_bytes());
    assert!(
        md.contains("### post-quantum twins: bytes on the wire"),
        "{md}"
    );
    assert!(
        html.contains("<h2>Post-quantum twins</h2>")
            && html.contains("unsupported algorithm: ML-DSA-44")
    );
}

#[test]
fn generated_ml_dsa_testcases_pass_every_method_that_implements_ml_dsa() {
    use certbench::limbo::{LimboFile, evaluate};
    use certbench_analysis::limbo::ActualResult;
    let doc = certbench::certs::mldsa::testcases(time::OffsetDateTime::now_utc()).unwrap();
    let file = LimboFile::parse(&doc.to_string()).unwrap();
    assert_eq!(file.cases.len(), 11);
    let cases: Vec<_> = file.cases.iter().map(|c| c.as_ref().unwrap()).collect();
    assert_eq!(cases.iter().filter(|c| c.expected_success).count(), 6);
    for m in methods() {
        let v = m.verifier();
        for case in &cases {
            let (actual, context, _) = evaluate(v.as_ref(), case);
            if !v.capabilities().ml_dsa {
                assert_eq!(actual, ActualResult::Skipped, "{m} {}", case.id);
                assert!(
                    context
                        .as_deref()
                        .is_some_and(|c| c.contains("unsupported algorithm: ML-DSA-")),
                    "{m} {}: {context:?}",
                    case.id
                );
                continue;
            }
            let expected = if case.expected_success {
                ActualResult::Success
            } else {
                ActualResult::Failure
            };
            // The pedantic key-usage cases: RFC 9881 §5, which upstream expects most
            // verifiers not to check; every method here accepts them (docs/limbo.md).
            if case.id.contains("-key-") {
                continue;
            }
            assert_eq!(actual, expected, "{m} {}: {context:?}", case.id);
        }
    }
}

#[test]
fn a_method_without_ml_dsa_called_on_a_twin_anyway_rejects_it() {
    let corpus = corpus();
    let made = twins(&corpus, Profile::MlDsa44);
    let mut roots = RootSet::from_certs("corpus", corpus.roots());
    roots.extend("pq", made.roots.iter().cloned());
    let without: Vec<Method> = (methods().into_iter())
        .filter(|m| !m.verifier().capabilities().ml_dsa)
        .collect();
    assert!(without.contains(&Method::OpenSsl), "{without:?}");
    for m in without {
        let v = m.verifier();
        for twin in &made.chains {
            // Fail closed: the library rejects what it cannot check (no runner asked first).
            let (_, verdict) = verify::measure(v.as_ref(), None, &roots, twin);
            assert!(
                matches!(verdict, Verdict::Rejected(_)),
                "{m} {}: {verdict:?}",
                twin.id
            );
        }
    }
}
