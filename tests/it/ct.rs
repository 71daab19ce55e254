//! Certificate Transparency (`--ct`) on the corpus: every method with a CT check checks every
//! SCT the corpus leaves embed (81 in 32 leaves, counted here with x509-parser, apart from
//! certbench's own reader), each against the corpus's log list, and accepts every chain but
//! the three whose rejection the browsers' sources explain. (Verdicts on crafted SCTs:
//! `ct_verdicts.rs`; the mirror's SCTs: `mirror_certs.rs`.)

use std::collections::BTreeMap;

use certbench_core::ct::CtLogs;
use certbench_core::methods::Method;
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use certbench_schema::Stage;
use x509_parser::extensions::ParsedExtension;
use x509_parser::prelude::{FromDer, X509Certificate};

use crate::common::{all_methods, corpus};

/// The methods with a CT check built here.
pub fn ct_methods() -> Vec<Method> {
    all_methods()
        .iter()
        .copied()
        .filter(|m| m.verifier().capabilities().ct != certbench_core::CtSupport::None)
        .collect()
}

/// The corpus's CT log list.
pub fn corpus_logs() -> CtLogs {
    let path = certbench_core::corpus::bundled_dir().join("../ct-logs/log_list.json");
    CtLogs::load(&path).expect("corpus/ct-logs/log_list.json")
}

/// SCTs embedded in a leaf, as x509-parser reads them.
fn embedded(leaf: &[u8]) -> u32 {
    let (_, x) = X509Certificate::from_der(leaf).unwrap();
    x.extensions()
        .iter()
        .map(|e| match e.parsed_extension() {
            ParsedExtension::SCT(list) => list.len() as u32,
            _ => 0,
        })
        .sum()
}

/// Why a chain of the corpus does not pass a browser's CT policy, from the browsers' sources:
/// no SCT at all (a certificate to a publicly trusted root must have them: Chrome since
/// 2018-05-01, its `CT_POLICY_NOT_ENOUGH_SCTS`; Firefox since 135; udctest's was issued on
/// 2018-04-26, before Chrome asked), or, for tm.cn (issued 2019, 438 days, 2 SCTs), the policy
/// Chrome applies to every certificate since 2022 (3 SCTs beyond 180 days; its 2019 policy
/// asked 2 below 15 months).
const NOT_COMPLIANT: [&str; 2] = ["udctest.ads.vt.edu__go-x509", "tm.cn__go-x509"];

/// Each method's error for a certificate that does not comply.
fn ct_error(method: Method) -> &'static str {
    match method.name() {
        "firefox" => {
            "MOZILLA_PKIX_ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY: CTPolicyCompliance::NotEnoughScts"
        }
        "chrome" => "ERR_CERTIFICATE_TRANSPARENCY_REQUIRED: CT_POLICY_NOT_ENOUGH_SCTS",
        _ => "ERR_CERTIFICATE_TRANSPARENCY_REQUIRED (CT_POLICY_NOT_ENOUGH_SCTS",
    }
}

#[test]
fn every_corpus_sct_is_checked_by_every_method_with_ct_and_the_verdicts_are_the_browsers() {
    let corpus = corpus();
    let logs = corpus_logs();
    let want: BTreeMap<&str, u32> = corpus
        .chains
        .iter()
        .map(|c| (c.id.as_str(), embedded(&c.chain.leaf)))
        .collect();
    assert_eq!(want.values().sum::<u32>(), 81);
    assert_eq!(want.values().filter(|&&n| n > 0).count(), 32);
    let private: Vec<&str> = corpus
        .chains
        .iter()
        .filter(|c| !c.public_root)
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(private, ["irelease-dev.sanofi.com__webpki-tests"]);
    for m in ct_methods() {
        let v = m.verifier();
        let mut checked = 0;
        for c in &corpus.chains {
            let store = v.build_roots(&c.roots).unwrap();
            let mut rec = Recorder::new();
            // As `verify --ct` asks: a private CA's chain (irelease-dev.sanofi.com's Sanofi
            // Root CA) is not asked for CT, as no browser requires it there.
            let ct = c.public_root.then_some(&logs);
            let target = Target::server(&c.host, c.validation_time).with_ct(ct);
            let verdict = v.verify(&store, &c.chain, target, &mut rec);
            if !c.public_root {
                assert!(
                    rec.ct().is_none() && verdict.is_ok(),
                    "{m} {}: {verdict:?}",
                    c.id
                );
                continue;
            }
            // webpki does not implement the directory-name constraint of udctest's
            // intermediate: its path fails before any CT check.
            if m.name() != "chrome" && m.name() != "firefox" && c.id.starts_with("udctest") {
                assert!(rec.ct().is_none(), "{m} {}", c.id);
                continue;
            }
            let ct = rec
                .ct()
                .unwrap_or_else(|| panic!("{m} {}: no CT outcome ({verdict:?})", c.id));
            assert!(rec.get(Stage::Ct).is_some(), "{m} {}: no ct stage", c.id);
            assert_eq!(ct.scts, want[c.id.as_str()], "{m} {}", c.id);
            assert_eq!((ct.valid, ct.checked), (ct.scts, ct.scts), "{m} {}", c.id);
            assert_eq!((ct.unknown_log, ct.invalid), (0, 0), "{m} {}", c.id);
            checked += ct.checked;
            if NOT_COMPLIANT.contains(&c.id.as_str()) {
                assert!(!ct.compliant, "{m} {}", c.id);
                let reason = verdict.expect_err(&c.id).reason;
                assert!(reason.starts_with(ct_error(m)), "{m} {}: {reason}", c.id);
            } else {
                assert!(ct.compliant, "{m} {}", c.id);
                assert!(verdict.is_ok(), "{m} {}: {verdict:?}", c.id);
            }
        }
        assert_eq!(checked, 81, "{m}");
    }
}

#[test]
fn without_ct_no_method_checks_any_sct() {
    for m in ct_methods() {
        let rec = crate::common::verified(m, "reddit.com__rustls-bench");
        assert!(rec.ct().is_none() && rec.get(Stage::Ct).is_none(), "{m}");
    }
}

/// `verify --ct` names the log list in each CT method's configuration, counts every SCT in
/// the samples, and leaves the methods without a CT check (gnutls: WebKitGTK enforces none)
/// without a `ct` stage.
#[test]
fn verify_ct_records_the_ct_stage_and_the_scts_per_sample() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("ct.jsonl");
    let methods: Vec<&str> = ["chrome", "firefox", "gnutls", "rustlsserial", "platform"]
        .into_iter()
        .filter(|n| all_methods().iter().any(|m| m.name() == *n))
        .collect();
    let out = crate::common::certbench_command()
        .args(["verify", "--method", &methods.join(","), "--ct", "--quiet"])
        .args(["--runs", "1", "--warmup", "0", "--format", "json"])
        .arg("--raw")
        .arg(&raw)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut scts: BTreeMap<String, u64> = BTreeMap::new();
    for line in std::fs::read_to_string(&raw).unwrap().lines() {
        let s: serde_json::Value = serde_json::from_str(line).unwrap();
        if s.get("schema").is_none() {
            continue; // the run header
        }
        let method = s["method"].as_str().unwrap();
        let has_ct = s["stages"].get("ct").is_some();
        if method == "gnutls" {
            assert!(!has_ct && s["config"].get("ct").is_none(), "{s}");
            continue;
        }
        assert_eq!(s["config"]["ct"], "28 logs of corpus/ct-logs", "{s}");
        if has_ct {
            *scts.entry(method.to_owned()).or_default() +=
                s["meta"]["ct"]["scts"].as_u64().unwrap();
        }
    }
    for m in methods.iter().filter(|m| **m != "gnutls") {
        assert_eq!(scts.get(*m), Some(&81), "{m}: {scts:?}");
    }
}
