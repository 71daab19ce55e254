//! x509-limbo: every method against the testcases' expectations and against the upstream
//! harness of its own library; `rustlsparallel` ≡ `rustlsserial`; `certbench limbo` output.
//!
//! The bundled sample (479 testcases, `corpus/x509-limbo/`) always runs; the full corpus
//! (9,780) runs too when the shared data folder is beside the clone (as in CI).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use certbench::limbo::{LimboFile, evaluate, run::run};
use certbench_analysis::limbo::{ActualResult, Agreement, LimboResult};
use certbench_core::methods::Method;
use certbench_core::verifier::{Eku, PeerName, Target};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn sample() -> LimboFile {
    LimboFile::load(&root().join("corpus/x509-limbo/limbo-sample.json")).unwrap()
}

fn shared() -> Option<PathBuf> {
    let dir = root().join("../shared/data/x509-limbo");
    dir.join("limbo.json").exists().then_some(dir)
}

fn upstream(dir: &Path) -> Vec<LimboResult> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "json") {
            out.push(serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap());
        }
    }
    assert_eq!(
        out.len(),
        3,
        "three upstream result files in {}",
        dir.display()
    );
    out
}

/// Every method on `file`: agreement with its upstream harness on every testcase both ran
/// (each at least `min_ran[method]` of them), and `rustlsparallel` ≡ `rustlsserial` on every
/// testcase, skips included.
fn check_against_upstream(file: &LimboFile, upstream: &[LimboResult], min_ran: &[(Method, usize)]) {
    assert!(file.cases.iter().all(|c| c.is_ok()), "every testcase reads");
    // Every method whose library has an upstream harness (not `platform`: system roots).
    let methods: Vec<Method> = crate::common::all_methods()
        .iter()
        .copied()
        .filter(|m| m.verifier().library().limbo_harness.is_some())
        .collect();
    assert_eq!(methods.len(), min_ran.len());
    let before = crate::common::force_overlap();
    let runs = run(file, &methods, || {});
    for r in &runs {
        let lib = r.method.verifier().library();
        let up = upstream
            .iter()
            .find(|u| lib.limbo_harness.is_some_and(|h| u.harness.starts_with(h)))
            .unwrap_or_else(|| panic!("no upstream harness for {}", r.method));
        let ag = Agreement::of(&r.result, up);
        let min = min_ran.iter().find(|(m, _)| *m == r.method).unwrap().1;
        assert!(
            ag.both_ran >= min,
            "{}: only {} testcases ran on both sides (expected ≥ {min})",
            r.method,
            ag.both_ran
        );
        assert!(
            ag.differences.is_empty(),
            "{} differs from {} on {} testcases: {:#?}",
            r.method,
            up.harness,
            ag.differences.len(),
            &ag.differences[..ag.differences.len().min(10)]
        );
    }
    let serial = &runs
        .iter()
        .find(|r| r.method == Method::RustlsSerial)
        .unwrap()
        .result;
    let parallel = &runs
        .iter()
        .find(|r| r.method == Method::RustlsParallel)
        .unwrap()
        .result;
    assert_eq!(serial.results.len(), file.cases.len());
    for (s, p) in serial.results.iter().zip(&parallel.results) {
        assert_eq!(s.id, p.id);
        assert_eq!(
            (s.actual_result, &s.context),
            (p.actual_result, &p.context),
            "{}: rustlsparallel differs from rustlsserial",
            s.id
        );
    }
    // Every testcase whose leaf parsed took rustlsparallel's overlapped path, but those with
    // more candidate signatures than MAX_PRECHECKS (webpki's own walk then decides).
    let ran = parallel
        .results
        .iter()
        .filter(|r| r.actual_result != ActualResult::Skipped)
        .count() as u64;
    let paths = crate::common::assert_overlapped_since(before, ran / 2, "limbo");
    eprintln!("{ran} testcases ran; rustlsparallel paths: {paths:?}");
}

#[test]
fn every_method_matches_its_upstream_harness_on_the_bundled_sample() {
    let file = sample();
    assert_eq!(file.cases.len(), 479);
    check_against_upstream(
        &file,
        &upstream(&root().join("corpus/x509-limbo/upstream")),
        &[
            (Method::OpenSsl, 467),
            (Method::RustlsSerial, 461),
            (Method::RustlsParallel, 461),
            (Method::WebpkiLegacy, 347),
            (Method::Webpki, 452),
        ],
    );
}

#[test]
fn every_method_matches_its_upstream_harness_on_the_full_corpus_when_shared_data_is_there() {
    let Some(dir) = shared() else {
        // CI always has the shared data beside the clone: there, its absence is a failure,
        // not a skip (a check that silently does not run proves nothing).
        assert!(
            std::env::var_os("CI").is_none_or(|v| v != "true"),
            "CI=true but ../shared/data/x509-limbo/limbo.json is missing: the full-corpus check cannot run"
        );
        eprintln!("../shared/data/x509-limbo/limbo.json absent: full-corpus check not run");
        return;
    };
    let file = LimboFile::load(&dir.join("limbo.json")).unwrap();
    assert_eq!(file.cases.len(), 9780);
    check_against_upstream(
        &file,
        &upstream(&dir.join("results")),
        &[
            (Method::OpenSsl, 9768),
            (Method::RustlsSerial, 9762),
            (Method::RustlsParallel, 9762),
            (Method::WebpkiLegacy, 5298),
            (Method::Webpki, 9753),
        ],
    );
}

#[test]
fn the_real_chain_corpus_as_a_limbo_file_gives_the_recorded_verdicts() {
    let file = LimboFile::load(&root().join("corpus/real-chains/real-chains.limbo.json")).unwrap();
    assert_eq!(file.cases.len(), 34);
    let corpus = crate::common::corpus();
    let runs = run(&file, crate::common::all_methods(), || {});
    let by_method: HashMap<Method, &LimboResult> =
        runs.iter().map(|r| (r.method, &r.result)).collect();
    for (case, c) in file.cases.iter().flatten().zip(&corpus.chains) {
        // `real::<host>::<source>` ↔ folder `<host>__<source>`.
        assert_eq!(
            case.id.trim_start_matches("real::").replace("::", "__"),
            c.id
        );
        let got = |m: Method| {
            let r = by_method[&m]
                .results
                .iter()
                .find(|r| r.id == case.id)
                .unwrap();
            assert_ne!(
                r.actual_result,
                ActualResult::Skipped,
                "{}: {m} skipped",
                case.id
            );
            r.actual_result == ActualResult::Success
        };
        assert_eq!(
            Some(got(Method::OpenSsl)),
            c.expected.openssl_strict,
            "{}",
            c.id
        );
        assert_eq!(
            Some(got(Method::WebpkiLegacy)),
            c.expected.webpki_legacy,
            "{}",
            c.id
        );
        for m in [Method::RustlsParallel, Method::Webpki, Method::Platform] {
            assert_eq!(got(m), got(Method::RustlsSerial), "{m} on {}", c.id);
        }
        // rustls-webpki 0.103.17 with rustls' aws-lc-rs algorithms accepts sanofi, which the
        // recorded 0.103.13 ring harness rejected (README, "The corpus"; tests/verdicts.rs).
        if !c.id.starts_with("irelease-dev.sanofi.com") {
            assert_eq!(
                Some(got(Method::RustlsSerial)),
                c.expected.rustls_webpki,
                "{}",
                c.id
            );
        }
    }
}

#[test]
fn pathological_testcases_get_a_verdict_from_every_method_within_a_second() {
    let file = sample();
    let cases: Vec<_> = file
        .cases
        .iter()
        .flatten()
        .filter(|c| c.id.starts_with("pathological::"))
        .collect();
    assert_eq!(cases.len(), 11);
    for case in cases {
        for &m in crate::common::all_methods() {
            let v = m.verifier();
            let t = Instant::now();
            let (actual, context, _) = evaluate(v.as_ref(), case);
            let took = t.elapsed();
            assert!(
                took < Duration::from_secs(1),
                "{} with {m}: {took:?}",
                case.id
            );
            if actual != ActualResult::Skipped {
                // Every pathological testcase expects a rejection or an acceptance; what
                // matters here is that a verdict came, without panic, within the bound.
                assert!(
                    !context.as_deref().unwrap_or("").contains("panicked"),
                    "{}: {context:?}",
                    case.id
                );
            }
        }
    }
}

#[test]
fn crls_are_checked_by_the_methods_that_claim_them_and_skipped_by_the_others() {
    let file = sample();
    let case = file
        .cases
        .iter()
        .flatten()
        .find(|c| c.id == "crl::revoked-certificate-with-crl")
        .unwrap();
    let verdict = |m: Method| evaluate(m.verifier().as_ref(), case);
    let (a, ctx, _) = verdict(Method::OpenSsl);
    assert_eq!(a, ActualResult::Failure);
    assert!(ctx.unwrap().contains("certificate revoked"));
    for m in [Method::RustlsSerial, Method::RustlsParallel] {
        let (a, ctx, _) = verdict(m);
        assert_eq!(a, ActualResult::Failure);
        assert_eq!(ctx.as_deref(), Some("CertRevoked"));
    }
    let (a, ctx, _) = verdict(Method::WebpkiLegacy);
    assert_eq!(a, ActualResult::Skipped);
    assert!(ctx.unwrap().contains("cannot check CRLs"));
}

#[test]
fn a_target_beyond_a_methods_capabilities_is_rejected_not_weakened() {
    let corpus = crate::common::corpus();
    let c = crate::common::chain(&corpus, "reddit.com__rustls-bench");
    let check = |m: Method, target: Target<'_>| {
        let v = m.verifier();
        let roots = v.build_roots(&c.roots).unwrap();
        let mut rec = certbench_core::stages::Recorder::new();
        v.verify(&roots, &c.chain, target, &mut rec)
    };
    let server = Target::server(&c.host, c.validation_time);
    for &m in crate::common::all_methods() {
        assert!(check(m, server).is_ok(), "{m}");
    }
    let ip = Target {
        peer: Some(PeerName::Ip("192.0.2.1".parse().unwrap())),
        ..server
    };
    let e = check(Method::WebpkiLegacy, ip).unwrap_err();
    assert!(
        e.reason.contains("cannot check IP address peer names"),
        "{e}"
    );
    let depth = Target {
        max_depth: Some(5),
        ..server
    };
    let e = check(Method::RustlsSerial, depth).unwrap_err();
    assert!(e.reason.contains("cannot limit the chain depth"), "{e}");
    // OpenSSL can: a depth of 0 intermediates fails this 2-certificate chain, 5 passes.
    assert!(check(Method::OpenSsl, depth).is_ok());
    let e = check(
        Method::OpenSsl,
        Target {
            max_depth: Some(0),
            ..server
        },
    )
    .unwrap_err();
    assert!(e.reason.contains("chain too long"), "{e}");
    // Client auth: the leaf's EKU is serverAuth only… or includes clientAuth; either way the
    // verdicts of OpenSSL and rustls-webpki agree.
    let client = Target {
        eku: Some(Eku::ClientAuth),
        ..server
    };
    assert_eq!(
        check(Method::OpenSsl, client).is_ok(),
        check(Method::RustlsSerial, client).is_ok()
    );
}

fn certbench(args: &[&str]) -> std::process::Output {
    crate::common::certbench_command()
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

#[test]
fn the_cli_writes_limbo_results_tallies_and_names_bad_testcases() {
    let dir = tempfile::tempdir().unwrap();
    // Three real testcases from the sample, one broken, one that is not an object.
    let text = std::fs::read_to_string(root().join("corpus/x509-limbo/limbo-sample.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = doc["testcases"].as_array_mut().unwrap();
    let keep: Vec<serde_json::Value> = cases
        .iter()
        .filter(|c| {
            [
                "crl::revoked-certificate-with-crl",
                "online::google.com",
                "webpki::eku::ee-without-eku",
            ]
            .contains(&c["id"].as_str().unwrap())
        })
        .cloned()
        .collect();
    assert_eq!(keep.len(), 3);
    let mut broken = keep[1].clone();
    broken["id"] = "broken::pem".into();
    broken["peer_certificate"] =
        "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n".into();
    let mut all = keep.clone();
    all.push(broken);
    all.push(serde_json::json!(42));
    let input = dir.path().join("small.json");
    std::fs::write(
        &input,
        serde_json::json!({"version": 1, "testcases": all}).to_string(),
    )
    .unwrap();
    let input = input.to_str().unwrap();

    // One method, --output FILE: exactly one result document.
    let out_file = dir.path().join("openssl.json");
    let o = certbench(&[
        "limbo",
        input,
        "--method",
        "openssl",
        "--output",
        out_file.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(3),
        "bad testcases → partial: {stderr}"
    );
    assert!(
        stderr.contains("testcase broken::pem: peer_certificate: not PEM"),
        "{stderr}"
    );
    assert!(stderr.contains("testcase #5: not a testcase"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let r: LimboResult =
        serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    assert_eq!(r.version, 1);
    assert!(
        r.harness.starts_with("certbench-openssl (OpenSSL 3."),
        "{}",
        r.harness
    );
    assert_eq!(r.results.len(), 5);
    assert_eq!(r.results[3].actual_result, ActualResult::Skipped);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("| harness"), "{stdout}");
    assert!(stdout.contains("false accept"), "{stdout}");
    for family in ["crl", "online", "webpki"] {
        assert!(
            stdout.contains(&format!("| {family} ")),
            "{family}: {stdout}"
        );
    }

    // Every method, --output DIR, --compare, --upstream: one document per method.
    let out_dir = dir.path().join("results");
    let o = certbench(&[
        "limbo",
        input,
        "--output",
        out_dir.to_str().unwrap(),
        "--compare",
        "--upstream",
        "corpus/x509-limbo/upstream",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(3));
    for &m in crate::common::all_methods() {
        let p = out_dir.join(format!("{m}.json"));
        let r: LimboResult = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(r.results.len(), 5, "{m}");
    }
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("certbench-rustlsserial (rustls-webpki 0.103.")
            && stdout.contains(" vs rustls-webpki: 0 of 3 testcases both ran differ"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Verdicts that differ between methods"),
        "{stdout}"
    );
    // --quiet: no progress or notes; the bad testcases are errors, and still named.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.lines().all(|l| l.starts_with("certbench: error: ")),
        "--quiet: {err}"
    );

    // JSON summary; a file that is not limbo at all is a fatal error naming it.
    let o = certbench(&[
        "limbo",
        input,
        "--method",
        "rustlsserial",
        "--format",
        "json",
        "--quiet",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["testcases"], 5);
    assert_eq!(v["bad_testcases"].as_array().unwrap().len(), 2);
    let o = certbench(&["limbo", "Cargo.toml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Cargo.toml: not an x509-limbo file"));
}

/// AWS-LC (no upstream harness result to compare with) is tallied beside OpenSSL on the
/// bundled sample: it runs every testcase OpenSSL runs, each of its rejections carries
/// AWS-LC's reason, and it differs from OpenSSL where the two libraries' policies differ —
/// OpenSSL's `X509_STRICT` profile checks (a missing Authority Key Identifier), which AWS-LC
/// does not make, and name constraints on a wildcard SAN, which AWS-LC enforces.
#[test]
fn awslc_is_tallied_beside_openssl_with_its_own_reasons() {
    let file = sample();
    let runs = run(&file, &[Method::OpenSsl, Method::AwsLc], || {});
    let (openssl, awslc) = (&runs[0], &runs[1]);
    assert_eq!(awslc.ran, openssl.ran, "the same testcases run");
    assert!(awslc.ran >= 467, "{}", awslc.ran);
    assert!(
        awslc.result.harness.contains("AWS-LC"),
        "{}",
        awslc.result.harness
    );
    let by_id = |r: &LimboResult| -> HashMap<String, (ActualResult, Option<String>)> {
        r.results
            .iter()
            .map(|x| (x.id.clone(), (x.actual_result, x.context.clone())))
            .collect()
    };
    let (o, a) = (by_id(&openssl.result), by_id(&awslc.result));
    for (id, (verdict, context)) in &a {
        if *verdict == ActualResult::Failure {
            let reason = context.as_deref().unwrap_or("");
            assert!(!reason.is_empty(), "{id}: a rejection without a reason");
        }
    }
    let differ: Vec<&String> = a.keys().filter(|id| a[*id].0 != o[*id].0).collect();
    assert!(
        !differ.is_empty() && differ.len() < 60,
        "{} differences",
        differ.len()
    );
    let aki = "rfc5280::aki::leaf-missing-aki";
    assert_eq!(o[aki].0, ActualResult::Failure, "{:?}", o[aki]);
    assert_eq!(a[aki].0, ActualResult::Success, "{:?}", a[aki]);
    let nc = "rfc5280::nc::nc-forbids-dnsname-wildcard-san";
    assert_eq!(a[nc].0, ActualResult::Failure);
    assert!(
        a[nc]
            .1
            .as_deref()
            .unwrap_or("")
            .contains("excluded subtree"),
        "{:?}",
        a[nc]
    );
}

#[test]
fn timings_rank_each_methods_slowest_testcases_timed_again() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("corpus/x509-limbo/limbo-sample.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let wanted = [
        "online::google.com",
        "webpki::eku::ee-without-eku",
        "pathological::pathological-chain-same-subject-distinct-key",
        "crl::revoked-certificate-with-crl",
    ];
    let keep: Vec<serde_json::Value> = doc["testcases"]
        .as_array_mut()
        .unwrap()
        .iter()
        .filter(|c| wanted.contains(&c["id"].as_str().unwrap()))
        .cloned()
        .collect();
    assert_eq!(keep.len(), 4);
    let input = dir.path().join("four.json");
    std::fs::write(
        &input,
        serde_json::json!({"version": 1, "testcases": keep}).to_string(),
    )
    .unwrap();
    let input = input.to_str().unwrap();
    let args = [
        "limbo",
        input,
        "--method",
        "rustlsserial,openssl",
        "--timings",
        "--timings-top",
        "2",
        "--timing-repeats",
        "3",
        "--quiet",
    ];
    let o = certbench(&[&args[..], &["--format", "json"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let slow = summary["slowest"].as_array().unwrap();
    for method in ["rustlsserial", "openssl"] {
        let rows: Vec<&serde_json::Value> = slow.iter().filter(|r| r["method"] == method).collect();
        // Two rows each, ranked by the median of three calls made again.
        assert_eq!(rows.len(), 2, "{method}: {rows:?}");
        assert_eq!(rows[0]["rank"], 1);
        for r in &rows {
            assert_eq!(r["again_ns"].as_array().unwrap().len(), 3, "{r}");
            assert!(r["median_ns"].as_u64().unwrap() > 0, "{r}");
            assert_eq!(
                r["family"],
                r["id"].as_str().unwrap().split("::").next().unwrap()
            );
        }
        assert!(rows[0]["median_ns"].as_u64() >= rows[1]["median_ns"].as_u64());
    }
    // webpki's path building tries every same-subject issuer: by far its slowest here
    // (~70 ms optimised against well under 1 ms for the others).
    let first = slow
        .iter()
        .find(|r| r["method"] == "rustlsserial" && r["rank"] == 1)
        .unwrap();
    assert_eq!(
        first["id"],
        "pathological::pathological-chain-same-subject-distinct-key"
    );
    // Markdown: one table per method.
    let o = certbench(&args);
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(md.contains("### Slowest testcases per method"), "{md}");
    assert!(
        md.contains("#### rustlsserial") && md.contains("#### openssl"),
        "{md}"
    );
    // Without --timings, no table and no `slowest` key.
    let o = certbench(&[
        "limbo", input, "--method", "openssl", "--format", "json", "--quiet",
    ]);
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(summary.get("slowest").is_none());
}

/// A handful of verdicts per browser verifier on the bundled sample, each where the browsers
/// part ways (docs/limbo.md says why, from their sources): Chrome's path builder gives up after
/// 20 iterations (a false reject of a valid chain) and checks the EKU; Firefox's finds that
/// path, but refuses a CA certificate as an end entity and skips a self-issued intermediate;
/// GnuTLS as
/// glib-networking calls it asks for no purpose (a wrong EKU passes) and applies name
/// constraints to the names it finds (an otherName constraint rejects the chain); neither
/// enforces the CA/Browser Forum's profile (a CN missing from the SANs passes).
#[test]
fn the_browsers_verifiers_give_their_verdicts_on_pinned_testcases() {
    use ActualResult::{Failure, Success};
    // (method, [(testcase, verdict, start of its reason)]).
    type Pins<'a> = &'a [(&'a str, ActualResult, &'a str)];
    let pins: &[(&str, Pins)] = &[
        (
            "chrome",
            &[
                (
                    "bettertls::pathbuilding::tc56",
                    Failure,
                    "PATH_ITERATION_COUNT_EXCEEDED",
                ),
                (
                    "rfc5280::eku::ee-wrong-eku",
                    Failure,
                    "CERTIFICATE_NO_MATCHING_EKU",
                ),
                (
                    "rfc5280::validity::expired-root",
                    Failure,
                    "CERTIFICATE_EXPIRED",
                ),
                (
                    "rfc5280::ski::critical-ski",
                    Failure,
                    "Unconsumed critical extension",
                ),
                ("rfc5280::nc::nc-forbids-othername-noop", Success, ""),
                ("webpki::cn::not-in-san", Success, ""),
            ],
        ),
        (
            "firefox",
            &[
                ("bettertls::pathbuilding::tc56", Success, ""),
                ("rfc5280::ca-as-leaf", Failure, "ERROR_INADEQUATE_KEY_USAGE"),
                (
                    "pathlen::self-issued-certs-pathlen",
                    Failure,
                    "ERROR_UNKNOWN_ISSUER",
                ),
                (
                    "rfc5280::eku::ee-wrong-eku",
                    Failure,
                    "ERROR_INADEQUATE_CERT_TYPE",
                ),
                (
                    "rfc5280::validity::expired-root",
                    Failure,
                    "ERROR_EXPIRED_ISSUER_CERTIFICATE",
                ),
                (
                    "cve::cve-2025-61727",
                    Failure,
                    "ERROR_CERT_NOT_IN_NAME_SPACE",
                ),
                ("webpki::cn::not-in-san", Success, ""),
            ],
        ),
        (
            "gnutls",
            &[
                ("rfc5280::eku::ee-wrong-eku", Success, ""),
                (
                    "rfc5280::validity::expired-root",
                    Failure,
                    "uses expired certificate",
                ),
                (
                    "rfc5280::nc::nc-forbids-othername-noop",
                    Failure,
                    "violates the signer's constraints",
                ),
                (
                    "rfc5280::unknown-critical-extension-root",
                    Failure,
                    "unknown critical extension",
                ),
                ("webpki::forbidden-dsa-leaf", Success, ""),
                ("webpki::cn::not-in-san", Success, ""),
            ],
        ),
    ];
    let file = sample();
    let cases: HashMap<&str, _> = file
        .cases
        .iter()
        .flatten()
        .map(|c| (c.id.as_str(), c))
        .collect();
    for (name, verdicts) in pins {
        let Some(&m) = crate::common::all_methods()
            .iter()
            .find(|m| m.name() == *name)
        else {
            continue;
        };
        let v = m.verifier();
        for (id, want, reason) in *verdicts {
            let (got, ctx, _) = evaluate(v.as_ref(), cases[id]);
            assert_eq!(got, *want, "{m} on {id}: {ctx:?}");
            assert!(
                ctx.as_deref().unwrap_or("").contains(reason),
                "{m} on {id}: {ctx:?}, want {reason}"
            );
        }
    }
}
