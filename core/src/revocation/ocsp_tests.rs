use super::*;
use crate::methods::rustls_serial::signature_algorithms;
use std::path::Path;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../corpus/real-chains/revoked.badssl.com__platform-verifier"
);
/// The chain's validation time in the corpus (inside the response's window).
const TIME: u64 = 1_638_705_600;
/// The response's nextUpdate, 2021-12-09T01:24:01Z.
const NEXT_UPDATE: u64 = 1_639_013_041;

fn pem(name: &str) -> Vec<Vec<u8>> {
    crate::chain::read_pem_certs(&Path::new(DIR).join(name))
        .unwrap()
        .into_iter()
        .map(|c| c.as_ref().to_vec())
        .collect()
}

struct Real {
    leaf: Vec<u8>,
    inter: Vec<u8>,
    root: Vec<u8>,
    response: Vec<u8>,
}

fn real() -> Real {
    Real {
        leaf: pem("leaf.pem").remove(0),
        inter: pem("intermediates.pem").remove(0),
        root: pem("root.pem").remove(0),
        response: std::fs::read(Path::new(DIR).join("stapled.ocsp")).unwrap(),
    }
}

fn check(
    r: &Real,
    leaf: &[u8],
    response: Option<&[u8]>,
    now: u64,
) -> Result<Status, RevocationError> {
    let root = CertFields::parse(&r.root).unwrap();
    let spki_tlv = crate::der::spki_tlv(&r.root).unwrap();
    let certs = [leaf, r.inter.as_slice()];
    let path = VerifiedPath {
        certs: &certs,
        anchor_subject: root.subject_tlv,
        anchor_spki: spki_tlv,
        anchor_cert: Some(&r.root),
    };
    check_stapled(response, &path, signature_algorithms(), now)
}

#[test]
fn real_revoked_badssl_response_is_revoked() {
    let r = real();
    assert_eq!(
        check(&r, &r.leaf, Some(&r.response), TIME),
        Ok(Status::Revoked { depth: 0 })
    );
    // The last second of its window.
    assert_eq!(
        check(&r, &r.leaf, Some(&r.response), NEXT_UPDATE),
        Ok(Status::Revoked { depth: 0 })
    );
}

#[test]
fn real_response_after_next_update_is_an_error() {
    let r = real();
    let e = check(&r, &r.leaf, Some(&r.response), NEXT_UPDATE + 1).unwrap_err();
    assert!(matches!(e, RevocationError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("expired"), "{e}");
}

#[test]
fn real_response_before_this_update_minus_skew_is_an_error() {
    let r = real();
    let this_update = 1_638_410_941; // 2021-12-02T02:09:01Z
    assert!(
        check(
            &r,
            &r.leaf,
            Some(&r.response),
            this_update - THIS_UPDATE_SKEW_SECS
        )
        .is_ok()
    );
    let e = check(
        &r,
        &r.leaf,
        Some(&r.response),
        this_update - THIS_UPDATE_SKEW_SECS - 1,
    )
    .unwrap_err();
    assert!(e.to_string().contains("future"), "{e}");
}

#[test]
fn real_response_for_another_leaf_is_an_error() {
    let r = real();
    // Another certificate from the same issuer: the leaf with its serial's last byte
    // changed (the signature is not looked at: the path is taken as verified).
    let mut other = r.leaf.clone();
    let serial = CertFields::parse(&r.leaf).unwrap().serial;
    let at = serial.as_ptr() as usize - r.leaf.as_ptr() as usize + serial.len() - 1;
    other[at] ^= 1;
    let e = check(&r, &other, Some(&r.response), TIME).unwrap_err();
    assert!(e.to_string().contains("not for this certificate"), "{e}");
}

#[test]
fn real_response_with_a_flipped_byte_is_an_error() {
    let r = real();
    // Every byte of the signed response data and of the signature: each flip is an
    // error (a parse error, a wrong certificate, or a bad signature), never an accept.
    for i in 0..r.response.len() {
        let mut bad = r.response.clone();
        bad[i] ^= 0x01;
        let got = check(&r, &r.leaf, Some(&bad), TIME);
        assert!(got.is_err(), "byte {i} flipped: {got:?}");
    }
}

#[test]
fn no_response_soft_fails_unless_must_staple() {
    let r = real();
    assert_eq!(
        check(&r, &r.leaf, None, TIME),
        Ok(Status::SoftFail(SoftFail::NoData))
    );
    assert!(!must_staple_cert(&r.leaf));
}

#[test]
fn garbage_and_unsuccessful_responses_are_errors() {
    let r = real();
    assert!(matches!(
        check(&r, &r.leaf, Some(b"not ocsp"), TIME),
        Err(RevocationError::Corrupt { .. })
    ));
    // OCSPResponse { responseStatus tryLater (3) }.
    let try_later = [0x30, 0x03, 0x0a, 0x01, 0x03];
    assert!(matches!(
        check(&r, &r.leaf, Some(&try_later), TIME),
        Err(RevocationError::Invalid { .. })
    ));
}
