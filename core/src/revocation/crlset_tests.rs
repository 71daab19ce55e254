use super::*;
use crate::der::push_tlv;

fn tlv(tag: u8, contents: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    push_tlv(&mut v, tag, contents);
    v
}

fn name(cn: &str) -> Vec<u8> {
    let atv = [tlv(0x06, &[0x55, 4, 3]), tlv(0x0c, cn.as_bytes())].concat();
    tlv(0x30, &tlv(0x31, &tlv(0x30, &atv)))
}

fn spki(seed: u8) -> Vec<u8> {
    let alg = tlv(0x30, &tlv(0x06, &[0x2b, 0x65, 0x70]));
    let key = tlv(0x03, &[&[0u8][..], &[seed; 32]].concat());
    tlv(0x30, &[alg, key].concat())
}

/// A certificate as the check reads it (the signature is not checked by a CRLSet).
fn cert(serial: &[u8], issuer: &str, subject: &str, key: &[u8]) -> Vec<u8> {
    let alg = tlv(0x30, &tlv(0x06, &[0x2b, 0x65, 0x70]));
    let validity = [tlv(0x17, b"250101000000Z"), tlv(0x17, b"350101000000Z")].concat();
    let tbs = [
        tlv(0xa0, &tlv(0x02, &[2])),
        tlv(0x02, serial),
        alg.clone(),
        name(issuer),
        tlv(0x30, &validity),
        name(subject),
        key.to_vec(),
    ]
    .concat();
    tlv(0x30, &[tlv(0x30, &tbs), alg, tlv(0x03, &[0, 0])].concat())
}

/// Root (key 1) → intermediate (key 2, serial 0x0102) → leaf (key 3, `leaf_serial`).
struct Chain {
    certs: Vec<Vec<u8>>,
    root_subject: Vec<u8>,
    root_spki: Vec<u8>,
}

impl Chain {
    fn new(leaf_serial: &[u8]) -> Chain {
        Chain {
            certs: vec![
                cert(leaf_serial, "Inter", "Leaf", &spki(3)),
                cert(&[0x01, 0x02], "Root", "Inter", &spki(2)),
            ],
            root_subject: name("Root"),
            root_spki: spki(1),
        }
    }

    fn check(&self, set: &CrlSet, now: u64) -> Result<Status, RevocationError> {
        let certs: Vec<&[u8]> = self.certs.iter().map(Vec::as_slice).collect();
        let path = VerifiedPath {
            certs: &certs,
            anchor_subject: &self.root_subject,
            anchor_spki: &self.root_spki,
            anchor_cert: None,
        };
        set.check_path(&path, now)
    }
}

fn key_hash(seed: u8) -> Hash {
    sha256(&spki(seed))
}

fn b64(h: &Hash) -> String {
    base64::engine::general_purpose::STANDARD.encode(h)
}

/// A CRLSet file: `header` verbatim, then the parents.
fn file(header: &str, parents: &[(Hash, &[&[u8]])]) -> Vec<u8> {
    let mut out = (header.len() as u16).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    for (parent, serials) in parents {
        out.extend_from_slice(parent);
        out.extend_from_slice(&(serials.len() as u32).to_le_bytes());
        for s in *serials {
            out.push(s.len() as u8);
            out.extend_from_slice(s);
        }
    }
    out
}

const NOW: u64 = 1_800_000_000;

fn header(extra: &str) -> String {
    format!(
        r#"{{"Version":0,"ContentType":"CRLSet","Sequence":7,"NotAfter":{}{extra}}}"#,
        NOW + 1
    )
}

fn set(extra: &str, parents: &[(Hash, &[&[u8]])]) -> CrlSet {
    CrlSet::parse(&file(&header(extra), parents)).expect("parses")
}

fn is_corrupt(bytes: &[u8]) -> bool {
    matches!(CrlSet::parse(bytes), Err(RevocationError::Corrupt { .. }))
}

#[test]
fn parses_header_and_parents() {
    let s = set(
        r#","NumParents":2,"BlockedSPKIs":[],"KnownInterceptionSPKIs":null,"DeltaFrom":0"#,
        &[(key_hash(2), &[&[9], &[1, 2, 3]]), (key_hash(1), &[])],
    );
    assert_eq!((s.sequence(), s.not_after()), (7, NOW + 1));
    assert_eq!(s.counts(), (2, 2));
    assert!(s.data_bytes() > 0 && s.resident_bytes() > s.data_bytes());
}

#[test]
fn revoked_leaf_is_depth_0() {
    let s = set("", &[(key_hash(2), &[&[0x44, 0x55]])]);
    assert_eq!(
        Chain::new(&[0x44, 0x55]).check(&s, NOW),
        Ok(Status::Revoked { depth: 0 })
    );
}

#[test]
fn revoked_intermediate_is_depth_1() {
    let s = set("", &[(key_hash(1), &[&[0x01, 0x02]]), (key_hash(2), &[])]);
    assert_eq!(
        Chain::new(&[0x44]).check(&s, NOW),
        Ok(Status::Revoked { depth: 1 })
    );
}

#[test]
fn blocked_spki_revokes_leaf_intermediate_and_root() {
    let chain = Chain::new(&[0x44]);
    for (seed, depth) in [(3, 0), (2, 1), (1, 2)] {
        let s = set(
            &format!(r#","BlockedSPKIs":["{}"]"#, b64(&key_hash(seed))),
            &[],
        );
        assert_eq!(
            chain.check(&s, NOW),
            Ok(Status::Revoked { depth }),
            "key {seed}"
        );
        // BlockedInterceptionSPKIs block too.
        let s = set(
            &format!(
                r#","BlockedInterceptionSPKIs":["{}"]"#,
                b64(&key_hash(seed))
            ),
            &[],
        );
        assert_eq!(
            chain.check(&s, NOW),
            Ok(Status::Revoked { depth }),
            "key {seed}"
        );
    }
}

#[test]
fn leading_zero_serial_matches_as_chrome_strips_it() {
    // DER adds a 0x00 before a serial whose first byte has the high bit set; the set
    // stores it without, and CheckSerial strips it.
    let s = set("", &[(key_hash(2), &[&[0x84, 0x01]])]);
    assert_eq!(
        Chain::new(&[0x00, 0x84, 0x01]).check(&s, NOW),
        Ok(Status::Revoked { depth: 0 })
    );
    assert_eq!(
        s.check_serial(&[0, 0, 0x84, 0x01], &key_hash(2)),
        Lookup::Revoked
    );
    // A negative serial is UNKNOWN, never matched.
    let s = set("", &[(key_hash(2), &[&[0x84, 0x01]])]);
    assert_eq!(s.check_serial(&[0x84, 0x01], &key_hash(2)), Lookup::Unknown);
    assert_eq!(
        Chain::new(&[0x84, 0x01]).check(&s, NOW),
        Ok(Status::SoftFail(SoftFail::NotCovered))
    );
}

#[test]
fn not_listed_is_good_and_uncovered_soft_fails() {
    let s = set("", &[(key_hash(2), &[&[0x45]])]);
    assert_eq!(Chain::new(&[0x44]).check(&s, NOW), Ok(Status::Good));
    let s = set("", &[(key_hash(9), &[&[0x44]])]);
    assert_eq!(
        Chain::new(&[0x44]).check(&s, NOW),
        Ok(Status::SoftFail(SoftFail::NotCovered))
    );
}

#[test]
fn expired_soft_fails_stale_but_still_revokes() {
    let s = set("", &[(key_hash(2), &[&[0x45]])]);
    let later = NOW + 2;
    assert!(s.is_expired(later) && !s.is_expired(NOW + 1));
    assert_eq!(
        Chain::new(&[0x44]).check(&s, later),
        Ok(Status::SoftFail(SoftFail::Stale))
    );
    assert_eq!(
        Chain::new(&[0x45]).check(&s, later),
        Ok(Status::Revoked { depth: 0 })
    );
    // No NotAfter (or a non-number): never expires.
    let s = CrlSet::parse(&file(
        r#"{"Version":0,"ContentType":"CRLSet","Sequence":1,"NotAfter":"x"}"#,
        &[(key_hash(2), &[])],
    ))
    .unwrap();
    assert_eq!(Chain::new(&[0x44]).check(&s, u64::MAX), Ok(Status::Good));
}

#[test]
fn builtin_set_soft_fails_no_data() {
    let s = CrlSet::builtin();
    assert_eq!(s.counts(), (0, 0));
    assert_eq!(
        Chain::new(&[0x44]).check(&s, NOW),
        Ok(Status::SoftFail(SoftFail::NoData))
    );
}

#[test]
fn limited_subjects_revoke_other_keys() {
    let subject = b64(&sha256(&name("Inter")));
    let s = set(
        &format!(
            r#","LimitedSubjects":{{"{subject}":["{}"]}}"#,
            b64(&key_hash(2))
        ),
        &[(key_hash(2), &[])],
    );
    assert_eq!(Chain::new(&[0x44]).check(&s, NOW), Ok(Status::Good));
    let s = set(&format!(r#","LimitedSubjects":{{"{subject}":[]}}"#), &[]);
    assert_eq!(
        Chain::new(&[0x44]).check(&s, NOW),
        Ok(Status::Revoked { depth: 1 })
    );
}

#[test]
fn a_parent_listed_twice_keeps_its_later_list() {
    let s = set(
        "",
        &[
            (key_hash(2), &[&[0x44], &[0x46]]),
            (key_hash(2), &[&[0x45]]),
        ],
    );
    assert_eq!(s.counts(), (1, 1));
    assert_eq!(Chain::new(&[0x44]).check(&s, NOW), Ok(Status::Good));
    assert_eq!(
        Chain::new(&[0x45]).check(&s, NOW),
        Ok(Status::Revoked { depth: 0 })
    );
}

#[test]
fn bad_path_is_an_error() {
    let mut chain = Chain::new(&[0x44]);
    chain.certs[1] = vec![0x30, 0x05, 1];
    let s = set("", &[]);
    assert!(matches!(
        chain.check(&s, NOW),
        Err(RevocationError::BadPath(_))
    ));
}

#[test]
fn corrupted_files_are_errors() {
    let good = file(&header(""), &[(key_hash(2), &[&[1, 2, 3], &[4]])]);
    assert!(CrlSet::parse(&good).is_ok());
    // Truncated anywhere after the header, or within it.
    for cut in [
        0,
        1,
        5,
        good.len() - 1,
        good.len() - 3,
        good.len() - 10,
        good.len() - 40,
    ] {
        assert!(is_corrupt(&good[..cut]), "cut at {cut}");
    }
    // Header length beyond the file.
    let mut long = good.clone();
    long[..2].copy_from_slice(&u16::MAX.to_le_bytes());
    assert!(is_corrupt(&long));
    // Trailing garbage too short for a record.
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"garbage");
    assert!(is_corrupt(&trailing));
    // A count beyond the data, and above Chromium's 32 Mi sanity limit.
    let mut count = file(&header(""), &[(key_hash(2), &[&[1]])]);
    let at = count.len() - 6;
    count[at..at + 4].copy_from_slice(&5u32.to_le_bytes());
    assert!(is_corrupt(&count));
    count[at..at + 4].copy_from_slice(&(MAX_SERIALS + 1).to_le_bytes());
    assert!(is_corrupt(&count));
    // Headers.
    for h in [
        "",
        "{",
        "[]",
        r#"{"Version":0,"ContentType":"CRLSet","Sequence":1,}"#,
        r#"{"Version":1,"ContentType":"CRLSet","Sequence":1}"#,
        r#"{"Version":0.0,"ContentType":"CRLSet","Sequence":1}"#,
        r#"{"ContentType":"CRLSet","Sequence":1}"#,
        r#"{"Version":0,"ContentType":"CRLSeT","Sequence":1}"#,
        r#"{"Version":0,"Sequence":1}"#,
        r#"{"Version":0,"ContentType":"CRLSet"}"#,
        r#"{"Version":0,"ContentType":"CRLSet","Sequence":4294967296}"#,
        r#"{"Version":0,"ContentType":"CRLSet","Sequence":1,"NotAfter":-1}"#,
        r#"{"Version":0,"ContentType":"CRLSet","Sequence":1,"BlockedSPKIs":[1]}"#,
        r#"{"Version":0,"ContentType":"CRLSet","Sequence":1,"BlockedSPKIs":["!!"]}"#,
        r#"{"Version":0,"ContentType":"CRLSet","Sequence":1,"LimitedSubjects":{"AA==":"x"}}"#,
    ] {
        assert!(is_corrupt(&file(h, &[])), "{h}");
    }
}

#[test]
fn resident_bytes_count_capacities() {
    let serials: Vec<Vec<u8>> = (0..1000u32).map(|i| i.to_be_bytes().to_vec()).collect();
    let refs: Vec<&[u8]> = serials.iter().map(Vec::as_slice).collect();
    let parents: Vec<(Hash, &[&[u8]])> = (0..100u8).map(|i| (key_hash(i), &refs[..])).collect();
    let s = set("", &parents);
    assert_eq!(s.counts(), (100, 100_000));
    // 5 bytes per serial in the lists, and a map slot per parent.
    let floor = 100 * 1000 * 5 + 100 * size_of::<(Hash, Vec<u8>)>();
    assert!(
        (floor as u64..floor as u64 * 2).contains(&s.resident_bytes()),
        "{}",
        s.resident_bytes()
    );
}

/// revoked.badssl.com's real chain, its leaf listed under its issuer's key: the check
/// reads real DER (a 16-byte serial, RSA keys) as Chrome would.
#[test]
fn real_chain_leaf_revoked() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/real-chains/revoked.badssl.com__platform-verifier");
    let read = |f: &str| crate::chain::read_pem_certs(&dir.join(f)).expect("corpus chain");
    let (leaf, inters, root) = (
        read("leaf.pem"),
        read("intermediates.pem"),
        read("root.pem"),
    );
    let root = CertFields::read(&root[0]).expect("root parses");
    let leaf_fields = CertFields::read(&leaf[0]).expect("leaf parses");
    let issuer = sha256(CertFields::read(&inters[0]).expect("issuer").spki);
    let certs: Vec<&[u8]> = [&leaf[0], &inters[0]].map(|c| c.as_ref()).to_vec();
    let path = VerifiedPath {
        certs: &certs,
        anchor_subject: root.subject,
        anchor_spki: root.spki,
        anchor_cert: None,
    };
    let s = set("", &[(issuer, &[leaf_fields.serial])]);
    assert_eq!(s.check_path(&path, NOW), Ok(Status::Revoked { depth: 0 }));
    let s = set("", &[(issuer, &[&[1]])]);
    assert_eq!(s.check_path(&path, NOW), Ok(Status::Good));
}
