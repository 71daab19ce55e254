use super::*;
use certbench_core::methods::rustls_serial::signature_algorithms;
use certbench_core::revocation::crl::Crls;
use certbench_core::revocation::{RevocationError, SoftFail, Status, VerifiedPath};
use rcgen::{
    BasicConstraints, CertificateParams, CrlDistributionPoint, CrlIssuingDistributionPoint,
    CrlScope, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls_pki_types::{CertificateDer, UnixTime};
use std::time::Duration;
use webpki::{
    CertRevocationList, EndEntityCert, KeyUsage, OwnedCertRevocationList, RevocationCheckDepth,
    RevocationOptionsBuilder, UnknownStatusPolicy,
};

const NOW: u64 = 1_750_000_000;

struct Ca {
    params: CertificateParams,
    key: KeyPair,
    cert: rcgen::Certificate,
}

impl Ca {
    fn issuer(&self) -> Issuer<'_, &KeyPair> {
        Issuer::from_params(&self.params, &self.key)
    }
}

fn ca_params(name: &str, usages: Vec<KeyUsagePurpose>) -> CertificateParams {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.distinguished_name.push(rcgen::DnType::CommonName, name);
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.key_usages = usages;
    p
}

fn both() -> Vec<KeyUsagePurpose> {
    vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign]
}

struct Chain {
    root: Ca,
    inter: Ca,
    leaf: rcgen::Certificate,
}

/// root → intermediate → leaf; the intermediate's certificate with `inter_ku` (its
/// Issuer for CRLs always may sign them, so rcgen signs what webpki then judges), the
/// leaf with `leaf_dp` as its CRL distribution point.
fn chain(inter_ku: Vec<KeyUsagePurpose>, leaf_dp: Option<&str>) -> Chain {
    let root_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let root_params = ca_params("CRL test root", both());
    let root_cert = root_params.self_signed(&root_key).unwrap();
    let root = Ca {
        params: root_params,
        key: root_key,
        cert: root_cert,
    };
    let inter_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let inter_cert = ca_params("CRL test intermediate", inter_ku)
        .signed_by(&inter_key, &root.issuer())
        .unwrap();
    let inter = Ca {
        params: ca_params("CRL test intermediate", both()),
        key: inter_key,
        cert: inter_cert,
    };
    let leaf_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let mut lp = CertificateParams::new(vec!["crl.test".to_owned()]).unwrap();
    if let Some(uri) = leaf_dp {
        lp.crl_distribution_points = vec![CrlDistributionPoint {
            uris: vec![uri.to_owned()],
        }];
    }
    let leaf = lp.signed_by(&leaf_key, &inter.issuer()).unwrap();
    Chain { root, inter, leaf }
}

fn serial_of(cert: &rcgen::Certificate) -> Vec<u8> {
    let (_, c) = x509_parser::parse_x509_certificate(cert.der()).unwrap();
    c.tbs_certificate.raw_serial().to_vec()
}

/// Ours: `Crls::check_path` over the chain's path.
fn ours(c: &Chain, crls: &[Vec<u8>]) -> Result<Status, RevocationError> {
    let crls = Crls::parse(crls)?;
    let (_, root) = x509_parser::parse_x509_certificate(c.root.cert.der()).unwrap();
    let certs = [c.leaf.der().as_ref(), c.inter.cert.der().as_ref()];
    let path = VerifiedPath {
        certs: &certs,
        anchor_subject: root.tbs_certificate.subject.as_raw(),
        anchor_spki: root.tbs_certificate.subject_pki.raw,
        anchor_cert: Some(c.root.cert.der()),
    };
    crls.check_path(&path, signature_algorithms(), NOW)
}

/// rustls-webpki's own verdict: `verify_for_usage` with the CRLs, depth Chain, unknown
/// status allowed (expiration ignored, rustls' default).
fn webpki(c: &Chain, crls: &[Vec<u8>]) -> Result<(), webpki::Error> {
    let owned: Vec<CertRevocationList<'_>> = crls
        .iter()
        .map(|d| OwnedCertRevocationList::from_der(d).unwrap().into())
        .collect();
    let refs: Vec<&CertRevocationList<'_>> = owned.iter().collect();
    let revocation = RevocationOptionsBuilder::new(&refs).ok().map(|b| {
        b.with_depth(RevocationCheckDepth::Chain)
            .with_status_policy(UnknownStatusPolicy::Allow)
            .build()
    });
    let anchor = webpki::anchor_from_trusted_cert(c.root.cert.der()).unwrap();
    let leaf = CertificateDer::from(c.leaf.der().as_ref());
    let ee = EndEntityCert::try_from(&leaf).unwrap();
    let inter = [CertificateDer::from(c.inter.cert.der().as_ref())];
    ee.verify_for_usage(
        signature_algorithms(),
        &[anchor],
        &inter,
        UnixTime::since_unix_epoch(Duration::from_secs(NOW)),
        KeyUsage::server_auth(),
        revocation,
        None,
    )
    .map(|_| ())
}

fn same(c: &Chain, crls: &[Vec<u8>]) -> Result<Status, RevocationError> {
    let (mine, theirs) = (ours(c, crls), webpki(c, crls));
    match (&mine, &theirs) {
        (Ok(Status::Good | Status::SoftFail(_)), Ok(())) => {}
        (Ok(Status::Revoked { .. }), Err(webpki::Error::CertRevoked)) => {}
        (Err(_), Err(e)) if *e != webpki::Error::CertRevoked => {}
        _ => panic!("ours {mine:?}, rustls-webpki {theirs:?}"),
    }
    mine
}

const WEEK: u64 = 7 * 86_400;

#[test]
fn crl_verdicts_equal_rustls_webpki() {
    let c = chain(both(), None);
    let (leaf, inter) = (serial_of(&c.leaf), serial_of(&c.inter.cert));
    let others = synthetic_serials(50, 7);
    let root_crl = |s: &[Vec<u8>]| crl(&c.root.issuer(), s, NOW - 60, NOW + WEEK).unwrap();
    let inter_crl = |s: &[Vec<u8>]| crl(&c.inter.issuer(), s, NOW - 60, NOW + WEEK).unwrap();
    let with = |extra: &Vec<u8>| {
        let mut s = others.clone();
        s.insert(17, extra.clone());
        s
    };

    // Revoked leaf.
    let crls = [root_crl(&others), inter_crl(&with(&leaf))];
    assert_eq!(same(&c, &crls), Ok(Status::Revoked { depth: 0 }));
    // Revoked intermediate (webpki reaches it first, from the anchor's side).
    let crls = [inter_crl(&with(&leaf)), root_crl(&with(&inter))];
    assert_eq!(same(&c, &crls), Ok(Status::Revoked { depth: 1 }));
    // Not revoked.
    let crls = [root_crl(&others), inter_crl(&others)];
    assert_eq!(same(&c, &crls), Ok(Status::Good));
    // Only the leaf's issuer has a CRL: the intermediate's status is unknown, allowed.
    assert_eq!(same(&c, &[inter_crl(&others)]), Ok(Status::Good));
    // No CRL for any issuer of the path.
    let stranger = ca_params("Another CA", both());
    let stranger_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let stranger = Issuer::from_params(&stranger, &stranger_key);
    let crls = [crl(&stranger, &with(&leaf), NOW - 60, NOW + WEEK).unwrap()];
    assert_eq!(same(&c, &crls), Ok(Status::SoftFail(SoftFail::NoData)));
    // Another CA under the root's name (a CRL authoritative by name): its signature
    // fails, and both reject.
    let twin = chain(both(), None);
    let crls = [crl(&twin.root.issuer(), &others, NOW - 60, NOW + WEEK).unwrap()];
    assert!(matches!(
        same(&c, &crls),
        Err(RevocationError::Invalid { .. })
    ));

    // The intermediate's CRL signed by another key under its name: both reject, revoked
    // serial or not.
    let impostor_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let impostor = Issuer::from_params(&c.inter.params, &impostor_key);
    for serials in [others.clone(), with(&leaf)] {
        let bad = crl(&impostor, &serials, NOW - 60, NOW + WEEK).unwrap();
        let got = same(&c, &[root_crl(&others), bad]);
        assert!(
            matches!(got, Err(RevocationError::Invalid { .. })),
            "{got:?}"
        );
    }
}

#[test]
fn crl_key_usage_and_distribution_points_as_rustls_webpki() {
    // An intermediate whose KeyUsage lacks cRLSign: its CRL is refused by both.
    let c = chain(vec![KeyUsagePurpose::KeyCertSign], None);
    let leaf = serial_of(&c.leaf);
    let bad = crl(&c.inter.issuer(), &[leaf], NOW - 60, NOW + WEEK).unwrap();
    assert!(same(&c, &[bad]).is_err());

    // IDPs: a root CRL scoped to user certificates does not cover the intermediate, one
    // scoped to CA certificates does; a leaf naming a distribution point is covered by a
    // CRL whose IDP lists that URI, not by one listing another.
    let c = chain(both(), Some("http://crl.test/inter.crl"));
    let (leaf, inter) = (serial_of(&c.leaf), serial_of(&c.inter.cert));
    let with_idp = |ca: &Ca, serials: &[Vec<u8>], uri: &str, scope| {
        let mut p = params(serials, NOW - 60, NOW + WEEK).unwrap();
        p.issuing_distribution_point = Some(CrlIssuingDistributionPoint {
            distribution_point: CrlDistributionPoint {
                uris: vec![uri.to_owned()],
            },
            scope,
        });
        p.signed_by(&ca.issuer()).unwrap().der().to_vec()
    };
    let root_user_only = with_idp(
        &c.root,
        std::slice::from_ref(&inter),
        "http://r",
        Some(CrlScope::UserCertsOnly),
    );
    assert_eq!(
        same(&c, &[root_user_only]),
        Ok(Status::SoftFail(SoftFail::NoData))
    );
    let root_ca_only = with_idp(
        &c.root,
        std::slice::from_ref(&inter),
        "http://r",
        Some(CrlScope::CaCertsOnly),
    );
    assert_eq!(same(&c, &[root_ca_only]), Ok(Status::Revoked { depth: 1 }));
    let matching = with_idp(
        &c.inter,
        std::slice::from_ref(&leaf),
        "http://crl.test/inter.crl",
        None,
    );
    assert_eq!(same(&c, &[matching]), Ok(Status::Revoked { depth: 0 }));
    let elsewhere = with_idp(
        &c.inter,
        std::slice::from_ref(&leaf),
        "http://crl.test/other.crl",
        None,
    );
    assert_eq!(
        same(&c, &[elsewhere]),
        Ok(Status::SoftFail(SoftFail::NoData))
    );
    // No IDP: authoritative whatever the leaf's distribution points.
    let plain = crl(&c.inter.issuer(), &[leaf], NOW - 60, NOW + WEEK).unwrap();
    assert_eq!(same(&c, &[plain]), Ok(Status::Revoked { depth: 0 }));
}

#[test]
fn corrupt_crl_is_an_error_and_sizes_are_reported() {
    let c = chain(both(), None);
    let good = crl(
        &c.inter.issuer(),
        &synthetic_serials(2_000, 1),
        NOW - 60,
        NOW + WEEK,
    )
    .unwrap();
    let crls = Crls::parse(std::slice::from_ref(&good)).unwrap();
    assert_eq!(crls.data_bytes(), good.len() as u64);
    // 2 000 entries: at least the slots and the serials' two copies.
    assert!(
        crls.resident_bytes() > 2_000 * 100,
        "{}",
        crls.resident_bytes()
    );
    let mut bad = good.clone();
    bad.truncate(good.len() - 10);
    assert!(matches!(
        Crls::parse(&[bad]),
        Err(RevocationError::Corrupt { .. })
    ));
}

#[test]
fn bad_generator_input_is_a_typed_error() {
    let c = chain(both(), None);
    let i = c.inter.issuer();
    assert!(matches!(
        crl(&i, &[vec![1], vec![]], NOW, NOW + 1),
        Err(CrlGenError::EmptySerial { index: 1 })
    ));
    assert!(matches!(
        crl(&i, &[vec![1; 21]], NOW, NOW + 1),
        Err(CrlGenError::SerialTooLong { index: 0, len: 21 })
    ));
    assert!(matches!(
        crl(&i, &[vec![1]], NOW, NOW),
        Err(CrlGenError::BadTime(_))
    ));
    assert!(matches!(
        crl(&i, &[vec![1]], u64::MAX - 1, u64::MAX),
        Err(CrlGenError::BadTime(_))
    ));
    let no_crl_sign = ca_params("x", vec![KeyUsagePurpose::KeyCertSign]);
    let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    assert!(matches!(
        crl(
            &Issuer::from_params(&no_crl_sign, &key),
            &[vec![1]],
            NOW,
            NOW + 1
        ),
        Err(CrlGenError::Rcgen(rcgen::Error::IssuerNotCrlSigner))
    ));
    assert_eq!(synthetic_serials(100, 3), synthetic_serials(100, 3));
    assert_ne!(synthetic_serials(100, 3), synthetic_serials(100, 4));
}
