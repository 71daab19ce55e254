use super::*;
use crate::revocation::Issued;
use certbench_core::revocation::crlset::{CrlSet, Lookup};
use certbench_core::revocation::{Status, VerifiedPath};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, SerialNumber};

const NOT_AFTER: u64 = 1_900_000_000;

fn issued(serial: &[u8], revoked: bool) -> Issued {
    Issued {
        serial: serial.to_vec(),
        revoked,
        scts: Vec::new(),
    }
}

#[test]
fn round_trip_through_parse() {
    let spec = Spec {
        sequence: 9941,
        not_after: NOT_AFTER,
        parents: vec![
            ([1; 32], vec![vec![0x00, 0x84, 0x01], vec![0x05]]),
            ([2; 32], vec![]),
        ],
        blocked_spkis: vec![[3; 32], [4; 32]],
    };
    let bytes = write(&spec).unwrap();
    let set = CrlSet::parse(&bytes).unwrap();
    assert_eq!((set.sequence(), set.not_after()), (9941, NOT_AFTER));
    assert_eq!(set.counts(), (2, 2));
    assert_eq!(set.data_bytes(), bytes.len() as u64);
    // The serial is stored without its leading zero (2 bytes), and matches either way.
    assert!(bytes.windows(3).any(|w| w == [2, 0x84, 0x01]));
    assert_eq!(
        set.check_serial(&[0x00, 0x84, 0x01], &[1; 32]),
        Lookup::Revoked
    );
    assert_eq!(set.check_serial(&[0x05], &[1; 32]), Lookup::Revoked);
    assert_eq!(set.check_serial(&[0x06], &[1; 32]), Lookup::Good);
    assert_eq!(set.check_serial(&[0x05], &[2; 32]), Lookup::Good);
    assert_eq!(set.check_serial(&[0x05], &[9; 32]), Lookup::Unknown);
    assert_eq!(set.check_spki(&[4; 32]), Lookup::Revoked);
    assert_eq!(set.check_spki(&[5; 32]), Lookup::Good);
    // No NotAfter written for 0.
    let none = write(&Spec::default()).unwrap();
    assert_eq!(CrlSet::parse(&none).unwrap().not_after(), 0);
}

#[test]
fn generates_at_chrome_scale() {
    let bytes = generate(&[], Scale::CHROME, 7, NOT_AFTER).unwrap();
    let set = CrlSet::parse(&bytes).unwrap();
    assert_eq!(set.counts(), (184, 850));
    // Chrome's set 9941: 21,740 bytes (its header, 2,202 bytes, names fewer fields).
    assert!(
        (15_000..30_000).contains(&bytes.len()),
        "{} bytes",
        bytes.len()
    );
    let limit = generate(&[], Scale::LIMIT, 7, NOT_AFTER).unwrap();
    assert_eq!(CrlSet::parse(&limit).unwrap().counts(), (184, 15_800));
    assert!(
        (240_000..=250_000).contains(&limit.len()),
        "{} bytes",
        limit.len()
    );
}

#[test]
fn generation_is_deterministic_in_its_seed() {
    let a = generate(&[], Scale::CHROME, 1, NOT_AFTER).unwrap();
    assert_eq!(a, generate(&[], Scale::CHROME, 1, NOT_AFTER).unwrap());
    assert_ne!(a, generate(&[], Scale::CHROME, 2, NOT_AFTER).unwrap());
}

fn ca(cn: &str) -> CertificateParams {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.distinguished_name.push(DnType::CommonName, cn);
    p
}

/// A root → intermediate → two leaves (serials `0x9a…`, DER-encoded with a leading
/// zero, and `0x11…`), the first revoked: its status through a generated CRLSet.
#[test]
fn generated_set_revokes_the_given_issuers_revoked_leaf() {
    let (root_key, int_key) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let root = ca("root").self_signed(&root_key).unwrap();
    let int = ca("intermediate")
        .signed_by(&int_key, &rcgen::Issuer::new(ca("root"), &root_key))
        .unwrap();
    let leaf = |serial: &[u8]| {
        let mut p = CertificateParams::new(vec!["a.example".to_owned()]).unwrap();
        p.serial_number = Some(SerialNumber::from_slice(serial));
        let key = KeyPair::generate().unwrap();
        p.signed_by(&key, &rcgen::Issuer::new(ca("intermediate"), &int_key))
            .unwrap()
    };
    let (revoked, good) = (leaf(&[0x9a, 1, 2, 3]), leaf(&[0x11, 1, 2, 3]));
    let serial = |der: &[u8]| {
        let (_, c) = x509_parser::parse_x509_certificate(der).unwrap();
        c.tbs_certificate.raw_serial().to_vec()
    };
    let issuer = Issuer {
        name: "intermediate".into(),
        spki: der::spki_tlv(int.der()).unwrap().to_vec(),
        issued: vec![
            issued(&serial(revoked.der()), true),
            issued(&serial(good.der()), false),
        ],
    };
    let bytes = generate(&[issuer], Scale::CHROME, 3, NOT_AFTER).unwrap();
    let set = CrlSet::parse(&bytes).unwrap();
    assert_eq!(set.counts(), (184, 850));
    let (_, root_cert) = x509_parser::parse_x509_certificate(root.der()).unwrap();
    let check = |leaf: &[u8]| {
        let certs = [leaf, int.der().as_ref()];
        let path = VerifiedPath {
            certs: &certs,
            anchor_subject: root_cert.tbs_certificate.subject.as_raw(),
            anchor_spki: der::spki_tlv(root.der()).unwrap(),
            anchor_cert: Some(root.der()),
        };
        set.check_path(&path, NOT_AFTER - 1).unwrap()
    };
    assert_eq!(serial(revoked.der())[0], 0, "DER adds a sign byte");
    assert_eq!(check(revoked.der()), Status::Revoked { depth: 0 });
    assert_eq!(check(good.der()), Status::Good);
}

#[test]
fn bad_input_is_a_typed_error() {
    let issuer = |spki: Vec<u8>, serial: Vec<u8>| Issuer {
        name: "CA".into(),
        spki,
        issued: vec![issued(&serial, true)],
    };
    let spki = der::spki_tlv(
        rcgen::generate_simple_self_signed(vec!["x".into()])
            .unwrap()
            .cert
            .der(),
    )
    .unwrap()
    .to_vec();
    let err = generate(&[issuer(b"not DER".to_vec(), vec![1])], Scale::GIVEN, 0, 0);
    assert!(matches!(err, Err(CrlSetError::BadSpki { .. })), "{err:?}");
    for (serial, why) in [
        (
            [&[1u8][..], &[7; 255]].concat(),
            "it is longer than 255 bytes",
        ),
        (vec![0x80, 1], "it is negative"),
        (vec![], "it is empty"),
    ] {
        let err = generate(&[issuer(spki.clone(), serial)], Scale::GIVEN, 0, 0).unwrap_err();
        assert!(
            matches!(err, CrlSetError::BadSerial { why: w, .. } if w == why),
            "{err}"
        );
    }
    // Leading zeros do not count towards the 255.
    let padded = [&[0u8; 5][..], &[1], &[7; 254]].concat();
    assert!(generate(&[issuer(spki, padded)], Scale::GIVEN, 0, 0).is_ok());
    let spec = |sequence, blocked| Spec {
        sequence,
        blocked_spkis: vec![[0; 32]; blocked],
        ..Spec::default()
    };
    assert_eq!(
        write(&spec(1 << 31, 0)),
        Err(CrlSetError::Sequence(1 << 31))
    );
    assert!(matches!(
        write(&spec(1, 2000)),
        Err(CrlSetError::HeaderTooLong(_))
    ));
}
