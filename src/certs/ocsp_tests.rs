use super::*;
use certbench_core::methods::rustls_serial::signature_algorithms;
use certbench_core::revocation::ocsp::check_stapled;
use certbench_core::revocation::{RevocationError, SoftFail, Status, VerifiedPath};
use rcgen::{
    BasicConstraints, CertificateParams, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

const NOW: u64 = 1_750_000_000;

pub(crate) struct Pki {
    pub root: rcgen::Certificate,
    pub root_key: KeyPair,
    pub inter: rcgen::Certificate,
    pub inter_key: KeyPair,
    pub leaf: rcgen::Certificate,
}

fn ca(name: &str) -> CertificateParams {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.distinguished_name.push(rcgen::DnType::CommonName, name);
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    p
}

fn pki(must_staple: bool) -> Pki {
    let root_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let root_params = ca("OCSP test root");
    let root = root_params.self_signed(&root_key).unwrap();
    let inter_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384).unwrap();
    let inter = ca("OCSP test intermediate")
        .signed_by(&inter_key, &Issuer::new(root_params, &root_key))
        .unwrap();
    let inter_params = ca("OCSP test intermediate");
    let leaf_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let mut lp = CertificateParams::new(vec!["ocsp.test".to_owned()]).unwrap();
    lp.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    if must_staple {
        // id-pe-tlsfeature, SEQUENCE { INTEGER 5 } (RFC 7633).
        lp.custom_extensions = vec![rcgen::CustomExtension::from_oid_content(
            &[1, 3, 6, 1, 5, 5, 7, 1, 24],
            vec![0x30, 0x03, 0x02, 0x01, 0x05],
        )];
    }
    let leaf = lp
        .signed_by(&leaf_key, &Issuer::new(inter_params, &inter_key))
        .unwrap();
    Pki {
        root,
        root_key,
        inter,
        inter_key,
        leaf,
    }
}

fn check(p: &Pki, leaf: &[u8], resp: Option<&[u8]>, now: u64) -> Result<Status, RevocationError> {
    let root = p.root.der().as_ref();
    let (_, parsed) = x509_parser::parse_x509_certificate(root).unwrap();
    let certs = [leaf, p.inter.der().as_ref()];
    let path = VerifiedPath {
        certs: &certs,
        anchor_subject: parsed.tbs_certificate.subject.as_raw(),
        anchor_spki: parsed.tbs_certificate.subject_pki.raw,
        anchor_cert: Some(root),
    };
    check_stapled(resp, &path, signature_algorithms(), now)
}

fn make(p: &Pki, status: OcspStatus) -> Vec<u8> {
    response(
        p.inter.der(),
        &p.inter_key,
        p.leaf.der(),
        status,
        NOW - 3600,
        Some(NOW + 86_400),
    )
    .unwrap()
}

#[test]
fn generated_good_and_revoked_responses_check_as_such() {
    let p = pki(false);
    let leaf = p.leaf.der().as_ref();
    let good = make(&p, OcspStatus::Good);
    assert_eq!(check(&p, leaf, Some(&good), NOW), Ok(Status::Good));
    let revoked = make(&p, OcspStatus::Revoked { at: NOW - 7200 });
    assert_eq!(
        check(&p, leaf, Some(&revoked), NOW),
        Ok(Status::Revoked { depth: 0 })
    );
    let unknown = make(&p, OcspStatus::Unknown);
    assert_eq!(
        check(&p, leaf, Some(&unknown), NOW),
        Ok(Status::SoftFail(SoftFail::NoData))
    );
    // After nextUpdate, and signed by another key (the root's, through a wrong issuer
    // certificate pairing): errors.
    assert!(check(&p, leaf, Some(&good), NOW + 86_401).is_err());
    let mut flipped = good.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    assert!(check(&p, leaf, Some(&flipped), NOW).is_err());
    // A response for the intermediate, checked for the leaf: not for this certificate.
    let other = response(
        p.root.der(),
        &p.root_key,
        p.inter.der(),
        OcspStatus::Good,
        NOW - 3600,
        Some(NOW + 86_400),
    )
    .unwrap();
    assert!(check(&p, leaf, Some(&other), NOW).is_err());
}

#[test]
fn must_staple_without_a_response_is_an_error() {
    let p = pki(true);
    let leaf = p.leaf.der().as_ref();
    assert!(matches!(
        check(&p, leaf, None, NOW),
        Err(RevocationError::Invalid { .. })
    ));
    let good = make(&p, OcspStatus::Good);
    assert_eq!(check(&p, leaf, Some(&good), NOW), Ok(Status::Good));
    let plain = pki(false);
    assert_eq!(
        check(&plain, plain.leaf.der(), None, NOW),
        Ok(Status::SoftFail(SoftFail::NoData))
    );
}

#[test]
fn bad_generator_input_is_a_typed_error() {
    let p = pki(false);
    let leaf = p.leaf.der().as_ref();
    let r = |issuer: &[u8], key: &KeyPair, leaf: &[u8], this: u64, next: Option<u64>| {
        response(issuer, key, leaf, OcspStatus::Good, this, next)
    };
    assert!(matches!(
        r(b"junk", &p.inter_key, leaf, NOW, None),
        Err(OcspGenError::BadCertificate {
            which: "issuer",
            ..
        })
    ));
    assert!(matches!(
        r(p.inter.der(), &p.inter_key, b"junk", NOW, None),
        Err(OcspGenError::BadCertificate { which: "leaf", .. })
    ));
    assert!(matches!(
        r(p.root.der(), &p.root_key, leaf, NOW, None),
        Err(OcspGenError::NotIssuedBy)
    ));
    assert!(matches!(
        r(p.inter.der(), &p.root_key, leaf, NOW, None),
        Err(OcspGenError::KeyMismatch)
    ));
    assert!(matches!(
        r(p.inter.der(), &p.inter_key, leaf, NOW, Some(NOW)),
        Err(OcspGenError::BadTime(_))
    ));
}
