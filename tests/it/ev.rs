//! The browsers' EV attempt (`chrome`, `firefox`: a native one only when built): apple.com's
//! chain, the corpus's one EV chain (its leaf asserts the CA/Browser Forum EV OID and
//! DigiCert's, under DigiCert Global Root G3, which both browsers' EV tables list), is granted
//! EV by both, recorded as an `ev-attempt` stage and the sample's `ev`; a leaf asserting the same
//! EV policies under a root no EV table lists falls back to the DV attempt, which accepts it;
//! an exception in the EV attempt is a fallback, never a grant; a leaf without an EV policy makes
//! no attempt.

use crate::common::{all_methods, chain, corpus, verified};
use certbench_core::chain::Chain;
use certbench_core::methods::Method;
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use certbench_schema::EvOutcome;
use certbench_schema::Stage;
use rustls_pki_types::CertificateDer;

/// The browsers' verifiers with an EV attempt, as built here.
fn ev_browsers() -> Vec<Method> {
    all_methods()
        .iter()
        .copied()
        .filter(|m| matches!(m.name(), "chrome" | "firefox"))
        .collect()
}

const APPLE: &str = "apple.com__limbo-online";

#[test]
fn apple_coms_chain_is_granted_ev_by_both_browsers_at_its_validation_time() {
    for m in ev_browsers() {
        // Its own root only (DigiCert Global Root G3): the grant comes from the EV table.
        let rec = verified(m, APPLE);
        assert_eq!(rec.ev(), Some(EvOutcome::Granted), "{m}");
        assert!(rec.get(Stage::EvAttempt).is_some(), "{m}: ev-attempt");
        // Accepted as EV: no DV attempt follows.
        assert!(
            rec.get(Stage::Verify).is_none(),
            "{m}: a DV verify after EV"
        );
        assert!(
            rec.get(Stage::VerifyHostname).is_some(),
            "{m}: verify-hostname"
        );
    }
}

#[test]
fn a_leaf_without_an_ev_policy_makes_no_ev_attempt() {
    for m in ev_browsers() {
        // reddit.com's leaf asserts only the OV policy 2.23.140.1.2.2.
        let rec = verified(m, "reddit.com__rustls-bench");
        assert_eq!(rec.ev(), None, "{m}");
        assert!(rec.get(Stage::EvAttempt).is_none(), "{m}: ev-attempt");
        assert!(rec.get(Stage::Verify).is_some(), "{m}: verify");
    }
}

/// `Policy: 2.23.140.1.1` (the CA/Browser Forum EV OID) and `Policy: 2.16.840.1.114412.2.1`
/// (DigiCert's EV OID), as apple.com's leaf asserts them: the contents of a certificatePolicies
/// extension.
fn apples_ev_policies() -> Vec<u8> {
    let cabf = [0x06, 0x05, 0x67, 0x81, 0x0c, 0x01, 0x01];
    let digicert = [
        0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x86, 0xfd, 0x6c, 0x02, 0x01,
    ];
    let mut policies = Vec::new();
    for oid in [&cabf[..], &digicert[..]] {
        policies.push(0x30);
        policies.push(oid.len() as u8);
        policies.extend_from_slice(oid);
    }
    let mut out = vec![0x30, policies.len() as u8];
    out.extend(policies);
    out
}

#[test]
fn an_ev_leaf_under_a_root_no_ev_table_lists_falls_back_and_the_dv_attempt_accepts_it() {
    use rcgen::{
        BasicConstraints, CertificateParams, CustomExtension, DnType, ExtendedKeyUsagePurpose,
        IsCa, Issuer, KeyPair, KeyUsagePurpose, date_time_ymd,
    };
    const HOST: &str = "ev.certbench.test";
    let root_key = KeyPair::generate().unwrap();
    let mut root_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    root_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    root_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    (root_params.distinguished_name).push(DnType::CommonName, "certbench fresh EV-less root");
    root_params.not_before = date_time_ymd(2024, 1, 1);
    root_params.not_after = date_time_ymd(2034, 1, 1);
    let root = root_params.self_signed(&root_key).unwrap();

    let leaf_key = KeyPair::generate().unwrap();
    let mut leaf_params = CertificateParams::new(vec![HOST.to_owned()]).unwrap();
    (leaf_params.distinguished_name).push(DnType::CommonName, HOST);
    leaf_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    leaf_params.not_before = date_time_ymd(2026, 1, 1);
    leaf_params.not_after = date_time_ymd(2026, 4, 1);
    leaf_params
        .custom_extensions
        .push(CustomExtension::from_oid_content(
            &[2, 5, 29, 32],
            apples_ev_policies(),
        ));
    let leaf = leaf_params
        .signed_by(&leaf_key, &Issuer::new(root_params, root_key))
        .unwrap();

    let roots = [CertificateDer::from(root.der().to_vec())];
    let ch = Chain {
        leaf: CertificateDer::from(leaf.der().to_vec()),
        intermediates: vec![],
    };
    // apple.com's validation time, inside the leaf's validity.
    let time = chain(&corpus(), APPLE).validation_time;
    for m in ev_browsers() {
        let v = m.verifier();
        let store = v.build_roots(&roots).expect("roots");
        let mut rec = Recorder::new();
        v.verify(&store, &ch, Target::server(HOST, time), &mut rec)
            .unwrap_or_else(|e| panic!("{m}: the DV attempt must accept: {e}"));
        assert_eq!(rec.ev(), Some(EvOutcome::Fallback), "{m}");
        assert!(rec.get(Stage::EvAttempt).is_some(), "{m}: ev-attempt");
        assert!(rec.get(Stage::Verify).is_some(), "{m}: the DV verify");
        // The same chain, expired: the EV attempt falls back and DV rejects (no grant on a
        // failed build).
        let mut rec = Recorder::new();
        let late = time + 365 * 86_400;
        assert!(
            v.verify(&store, &ch, Target::server(HOST, late), &mut rec)
                .is_err(),
            "{m}: accepted an expired leaf"
        );
        assert_eq!(rec.ev(), Some(EvOutcome::Fallback), "{m}: expired");
    }
}

/// Runs `certbench verify` over the bundled corpus for the EV browsers, one run, with
/// `CERTBENCH_NATIVE_THROW` set to `throw` if given; apple.com's samples.
fn apple_samples(throw: Option<&str>) -> Vec<serde_json::Value> {
    let methods: Vec<&str> = ev_browsers().iter().map(|m| m.name()).collect();
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("samples.jsonl");
    let mut cmd = crate::common::certbench_command();
    cmd.args(["verify", "--method", &methods.join(","), "--runs", "1"])
        .args(["--warmup", "0", "--quiet", "--raw"])
        .arg(&raw);
    if let Some(point) = throw {
        cmd.env("CERTBENCH_NATIVE_THROW", point);
    }
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&raw).unwrap();
    let samples: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|s| s["chain"] == APPLE)
        .collect();
    assert_eq!(samples.len(), methods.len(), "{text}");
    samples
}

#[test]
fn apple_coms_samples_record_the_ev_attempt_and_its_grant() {
    if ev_browsers().is_empty() {
        return;
    }
    for s in apple_samples(None) {
        assert_eq!(s["outcome"], "ok", "{s}");
        assert_eq!(s["meta"]["ev"], "granted", "{s}");
        assert!(s["stages"]["ev-attempt"].is_u64(), "{s}");
        assert!(s["stages"].get("verify").is_none(), "{s}");
    }
}

#[test]
fn an_exception_in_the_ev_attempt_is_a_fallback_never_a_grant() {
    if ev_browsers().is_empty() {
        return;
    }
    // The EV attempt throws (caught in the shared object): the DV attempt decides, and accepts.
    for s in apple_samples(Some("ev")) {
        assert_eq!(s["outcome"], "ok", "{s}");
        assert_eq!(s["meta"]["ev"], "fallback", "{s}");
        assert!(s["stages"]["ev-attempt"].is_u64(), "{s}");
        assert!(s["stages"]["verify"].is_u64(), "{s}");
    }
}
