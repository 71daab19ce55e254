//! Each method's CT verdict on crafted chains, as its browser gives it: a leaf whose SCTs are
//! valid, one with a corrupted SCT signature, one with an SCT from a log the browser does not
//! know, and one with too few SCTs for its lifetime. The chains are issued here with the
//! mirror's SCT minting (`certbench::certs::ct`); only a verdict (and its counts) comes back
//! across a native verifier's ABI.

use certbench::certs::ct::{MirrorLog, SctSpec, issue_with_scts};
use certbench_core::chain::Chain;
use certbench_core::ct::CtLogs;
use certbench_core::methods::Method;
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use rustls_pki_types::CertificateDer;

use crate::ct::ct_methods;

const HOST: &str = "ct.certbench.test";
const DAY: i64 = 86_400;
/// The leaves' notBefore: 2026-01-01.
const NOT_BEFORE: i64 = 1_767_225_600;

struct Fixture {
    root: CertificateDer<'static>,
    inter: CertificateDer<'static>,
    inter_key: KeyPair,
    inter_params: CertificateParams,
}

fn ca(name: &str) -> CertificateParams {
    let mut p = CertificateParams::default();
    p.distinguished_name.push(DnType::CommonName, name);
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    p.not_before = time::OffsetDateTime::from_unix_timestamp(NOT_BEFORE - 365 * DAY).unwrap();
    p.not_after = time::OffsetDateTime::from_unix_timestamp(NOT_BEFORE + 3650 * DAY).unwrap();
    p
}

fn fixture() -> Fixture {
    let root_key = KeyPair::generate().unwrap();
    let root_params = ca("certbench CT test root");
    let root = root_params.self_signed(&root_key).unwrap();
    let root_issuer = Issuer::new(root_params, &root_key);
    let inter_key = KeyPair::generate().unwrap();
    let mut inter_params = ca("certbench CT test CA");
    inter_params.use_authority_key_identifier_extension = true;
    let inter = inter_params.signed_by(&inter_key, &root_issuer).unwrap();
    Fixture {
        root: root.der().clone(),
        inter: inter.der().clone(),
        inter_key,
        inter_params,
    }
}

/// A leaf valid `days` from [`NOT_BEFORE`], with `scts`, under the fixture's CA.
fn leaf(f: &Fixture, days: i64, scts: &[SctSpec<'_>]) -> Chain {
    let key = KeyPair::generate().unwrap();
    let mut p = CertificateParams::new(vec![HOST.to_owned()]).unwrap();
    p.subject_alt_names = vec![SanType::DnsName(HOST.try_into().unwrap())];
    p.is_ca = IsCa::ExplicitNoCa;
    p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    p.use_authority_key_identifier_extension = true;
    p.not_before = time::OffsetDateTime::from_unix_timestamp(NOT_BEFORE).unwrap();
    p.not_after = time::OffsetDateTime::from_unix_timestamp(NOT_BEFORE + days * DAY).unwrap();
    let issuer = Issuer::new(f.inter_params.clone(), &f.inter_key);
    let cert = issue_with_scts(&p, &key, &issuer, scts).unwrap();
    Chain {
        leaf: cert.der().clone(),
        intermediates: vec![f.inter.clone()],
    }
}

/// The browser's log set: `logs`, each admissible.
fn known(logs: &[&MirrorLog]) -> CtLogs {
    let logs = logs.iter().map(|l| l.ct_log()).collect();
    CtLogs::new(logs, "the test's logs")
}

/// The verdict of `m` on `chain` with CT against `logs`, a day after issuance, and its counts.
fn verdict(
    m: Method,
    f: &Fixture,
    chain: &Chain,
    logs: &CtLogs,
) -> (Result<(), String>, certbench_core::ct::CtOutcome) {
    let v = m.verifier();
    v.prepare_ct(logs);
    let store = v.build_roots(std::slice::from_ref(&f.root)).unwrap();
    let mut rec = Recorder::new();
    let target = Target::server(HOST, (NOT_BEFORE + DAY) as u64).with_ct(Some(logs));
    let r = v
        .verify(&store, chain, target, &mut rec)
        .map_err(|r| r.reason);
    let ct = rec
        .ct()
        .unwrap_or_else(|| panic!("{m}: no CT outcome ({r:?})"));
    (r, ct)
}

/// The rejection each method gives for `compliance` (Chromium's names for Chrome's policy,
/// Gecko's for Firefox's).
fn rejection(m: Method, chrome: &str, firefox: &str) -> String {
    match m.name() {
        "chrome" => format!("ERR_CERTIFICATE_TRANSPARENCY_REQUIRED: {chrome}"),
        "firefox" => format!(
            "MOZILLA_PKIX_ERROR_INSUFFICIENT_CERTIFICATE_TRANSPARENCY: CTPolicyCompliance::{firefox}"
        ),
        _ => format!("ERR_CERTIFICATE_TRANSPARENCY_REQUIRED ({chrome}"),
    }
}

#[test]
fn each_browser_gives_its_own_verdict_on_valid_corrupted_unknown_and_too_few_scts() {
    let f = fixture();
    let a = MirrorLog::generate("test log A", "Operator A").unwrap();
    let b = MirrorLog::generate("test log B", "Operator B").unwrap();
    let stranger = MirrorLog::generate("a log nobody lists", "Operator C").unwrap();
    let logs = known(&[&a, &b]);
    let sct = |log, corrupt_signature| SctSpec {
        log,
        timestamp_ms: NOT_BEFORE as u64 * 1000,
        extensions: Vec::new(),
        corrupt_signature,
    };
    let valid = leaf(&f, 90, &[sct(&a, false), sct(&b, false)]);
    let corrupted = leaf(&f, 90, &[sct(&a, false), sct(&b, true)]);
    let unknown = leaf(&f, 90, &[sct(&a, false), sct(&stranger, false)]);
    // 200 days: 3 SCTs from distinct logs needed, 2 given (of 2 operators).
    let too_few = leaf(&f, 200, &[sct(&a, false), sct(&b, false)]);
    let methods = ct_methods();
    assert!(methods.len() >= 4, "{methods:?}");
    for m in methods {
        let (r, ct) = verdict(m, &f, &valid, &logs);
        assert!(r.is_ok(), "{m}: valid SCTs: {r:?}");
        assert_eq!(
            (ct.scts, ct.checked, ct.valid, ct.compliant),
            (2, 2, 2, true),
            "{m}"
        );

        // One good SCT left, from one operator: Chrome's enforcer finds no operator
        // diversity first; Gecko's counts too few SCTs first.
        let one_left = rejection(m, "CT_POLICY_NOT_DIVERSE_SCTS", "NotEnoughScts");
        let (r, ct) = verdict(m, &f, &corrupted, &logs);
        let reason = r.expect_err("a corrupted SCT signature");
        assert!(reason.starts_with(&one_left), "{m}: {reason}");
        assert_eq!(
            (ct.scts, ct.checked, ct.valid, ct.invalid),
            (2, 2, 1, 1),
            "{m}"
        );

        let (r, ct) = verdict(m, &f, &unknown, &logs);
        let reason = r.expect_err("an SCT from an unknown log");
        assert!(reason.starts_with(&one_left), "{m}: {reason}");
        assert_eq!((ct.scts, ct.valid, ct.unknown_log), (2, 1, 1), "{m}");
        assert_eq!(
            ct.checked, 1,
            "{m}: no signature checked for an unknown log"
        );

        let (r, ct) = verdict(m, &f, &too_few, &logs);
        let reason = r.expect_err("too few SCTs");
        let want = rejection(m, "CT_POLICY_NOT_ENOUGH_SCTS", "NotEnoughScts");
        assert!(reason.starts_with(&want), "{m}: {reason}");
        assert_eq!((ct.valid, ct.compliant), (2, false), "{m}");

        // The same chains without --ct: the path alone decides (no CT stage at all).
        let v = m.verifier();
        let store = v.build_roots(std::slice::from_ref(&f.root)).unwrap();
        for chain in [&corrupted, &unknown, &too_few] {
            let mut rec = Recorder::new();
            let target = Target::server(HOST, (NOT_BEFORE + DAY) as u64);
            assert!(v.verify(&store, chain, target, &mut rec).is_ok(), "{m}");
            assert!(rec.ct().is_none(), "{m}");
        }
    }
}

/// An SCT timestamped after the check (a server cannot have it yet) is invalid to both
/// browsers (Chromium's `SCT_STATUS_INVALID_TIMESTAMP`, Gecko's `InvalidTimestamp`), with no
/// signature checked by the rustls methods' check and Chromium's.
#[test]
fn an_sct_from_the_future_does_not_count() {
    let f = fixture();
    let a = MirrorLog::generate("test log A", "Operator A").unwrap();
    let b = MirrorLog::generate("test log B", "Operator B").unwrap();
    let logs = known(&[&a, &b]);
    let at = |log, t: i64| SctSpec {
        log,
        timestamp_ms: t as u64 * 1000,
        extensions: Vec::new(),
        corrupt_signature: false,
    };
    let chain = leaf(&f, 90, &[at(&a, NOT_BEFORE), at(&b, NOT_BEFORE + 2 * DAY)]);
    for m in ct_methods() {
        let (r, ct) = verdict(m, &f, &chain, &logs);
        assert!(r.is_err(), "{m}");
        assert_eq!((ct.valid, ct.invalid), (1, 1), "{m}");
    }
}

/// Gecko's order: the SCTs are verified first (inside `CheckRevocationByCRLite`) and CRLite
/// counts only the valid ones, then the CT policy reuses that result. A leaf whose only SCT
/// from a log the filter covers has a bad signature is not covered (a soft-fail: the filter,
/// which lists it as revoked, is not consulted), and is then rejected by the CT policy; a
/// revoked leaf with valid SCTs is rejected as revoked, its sample showing its SCTs checked.
/// Chrome checks its SCTs before its CRLSet too.
#[test]
fn firefox_verifies_scts_before_crlite_and_counts_only_valid_ones() {
    use certbench::revocation::crlite::{Scale, build_filter};
    use certbench::revocation::{Issued, Issuer};
    use certbench_core::revocation::{DataFiles, Mechanism, RevocationData};

    let f = fixture();
    let a = MirrorLog::generate("test log A", "Operator A").unwrap();
    let b = MirrorLog::generate("test log B", "Operator B").unwrap();
    let logs = known(&[&a, &b]);
    let sct = |log, corrupt_signature| SctSpec {
        log,
        timestamp_ms: NOT_BEFORE as u64 * 1000,
        extensions: Vec::new(),
        corrupt_signature,
    };
    // Both leaves are revoked in the filter, which covers log B only.
    let bad_covering = leaf(&f, 90, &[sct(&a, false), sct(&b, true)]);
    let revoked = leaf(&f, 90, &[sct(&a, false), sct(&b, false)]);
    let serial = |c: &Chain| certbench_core::der::serial(&c.leaf).unwrap().to_vec();
    let issuer = Issuer {
        name: "certbench CT test CA".into(),
        spki: certbench_core::der::spki_tlv(&f.inter).unwrap().to_vec(),
        issued: [&bad_covering, &revoked]
            .map(|c| Issued {
                serial: serial(c),
                revoked: true,
                scts: vec![],
            })
            .to_vec(),
    };
    let t0 = NOT_BEFORE as u64 * 1000;
    let coverage = [(*b.log_id(), t0 - 86_400_000, t0 + 86_400_000)];
    let filter = build_filter(&[issuer], &coverage, Scale::TINY, 7).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("crlite.filter"), filter).unwrap();
    let data = RevocationData::new(DataFiles::in_dir(dir.path(), "the test's filter"));

    let Some(&m) = crate::common::all_methods()
        .iter()
        .find(|m| m.name() == "firefox")
    else {
        return; // not built here (named by `all_methods`)
    };
    let v = m.verifier();
    v.prepare_ct(&logs);
    let store = v.build_roots(std::slice::from_ref(&f.root)).unwrap();
    let check = |chain: &Chain| {
        let mut rec = Recorder::new();
        let target = Target::server(HOST, (NOT_BEFORE + DAY) as u64)
            .with_ct(Some(&logs))
            .with_revocation(Some((Mechanism::Crlite, &data)), None);
        let r = v
            .verify(&store, chain, target, &mut rec)
            .map_err(|r| r.reason);
        (
            r,
            rec.ct().expect("the SCTs were checked"),
            rec.revocation().cloned(),
        )
    };

    let (r, ct, revocation) = check(&bad_covering);
    let revocation = revocation.expect("CRLite consulted");
    assert_eq!(
        revocation.status.to_string(),
        "soft-fail: not-covered",
        "the covering SCT's signature is bad: {revocation:?}"
    );
    let reason = r.expect_err("one valid SCT left: the CT policy is not met");
    assert!(
        reason.starts_with(&rejection(m, "", "NotEnoughScts")),
        "{reason}"
    );
    assert_eq!((ct.scts, ct.valid, ct.invalid), (2, 1, 1));

    let (r, ct, revocation) = check(&revoked);
    let reason = r.expect_err("revoked");
    assert!(reason.starts_with("revoked (crlite)"), "{reason}");
    assert_eq!(revocation.unwrap().status.name(), "revoked");
    assert_eq!(
        (ct.scts, ct.checked, ct.valid, ct.compliant),
        (2, 2, 2, true),
        "a revoked leaf's SCTs are checked before CRLite answers"
    );
}
