//! The CRLite verdicts on rcgen chains whose leaves embed SCTs minted by a test log: Gecko's
//! (`Filter::check_gecko`), a rustls user's in memory (`Filter::check_rustls`) and upki's
//! (`UpkiStore::check`), over filters built here; and the generators' errors.

use certbench_core::revocation::crlite::{Filter, GECKO_MAX_AGE_SECS, UpkiStore};
use certbench_core::revocation::{RevocationError, SoftFail, Status, VerifiedPath};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, IsCa, Issuer as RcIssuer, KeyPair, SerialNumber,
};

use super::*;
use crate::certs::ct::{MirrorLog, SctSpec, issue_with_scts};
use crate::revocation::Issued;

/// An SCT time inside the test coverage (2023-11-14), ms.
const T0: u64 = 1_700_000_000_000;
const DAY_MS: u64 = 86_400_000;

/// The test's chains: root → intermediate → leaves; `other` is an intermediate the filter
/// does not enroll.
struct World {
    root_spki: Vec<u8>,
    root_subject: Vec<u8>,
    inter: Vec<u8>,
    other: Vec<u8>,
    log: MirrorLog,
    leaves: HashMap<&'static str, Vec<u8>>,
}

fn ca(name: &str) -> CertificateParams {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.distinguished_name.push(DnType::CommonName, name);
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p
}

fn world() -> World {
    let root_key = KeyPair::generate().unwrap();
    let root_params = ca("crlite test root");
    let root = root_params.self_signed(&root_key).unwrap();
    let root_issuer = RcIssuer::new(root_params, &root_key);
    let mut issuers = Vec::new();
    let mut ders = Vec::new();
    for name in ["crlite test CA", "crlite unenrolled CA"] {
        let key = KeyPair::generate().unwrap();
        let params = ca(name);
        ders.push(params.signed_by(&key, &root_issuer).unwrap().der().to_vec());
        issuers.push(RcIssuer::new(params, key));
    }
    let log = MirrorLog::generate("crlite test log", "certbench").unwrap();
    let mut leaves = HashMap::new();
    // name, serial, SCT time (None: no SCT list), issuer.
    let specs: [(&str, u8, Option<u64>, usize); 5] = [
        ("revoked", 1, Some(T0), 0),
        ("good", 2, Some(T0), 0),
        ("no-scts", 3, None, 0),
        ("outside", 4, Some(T0 + 30 * DAY_MS), 0),
        ("unenrolled", 5, Some(T0), 1),
    ];
    for (name, serial, sct, issuer) in specs {
        let key = KeyPair::generate().unwrap();
        let mut p = CertificateParams::new(vec![format!("{name}.example")]).unwrap();
        p.serial_number = Some(SerialNumber::from(vec![0x10, serial]));
        let cert = match sct {
            None => p.signed_by(&key, &issuers[issuer]).unwrap(),
            Some(t) => {
                let spec = SctSpec {
                    log: &log,
                    timestamp_ms: t,
                    extensions: vec![],
                    corrupt_signature: false,
                };
                issue_with_scts(&p, &key, &issuers[issuer], &[spec]).unwrap()
            }
        };
        leaves.insert(name, cert.der().to_vec());
    }
    let root_subject = {
        let parts = certbench_core::der::SignedParts::parse(root.der()).unwrap();
        let mut s = vec![0x30];
        // Short or long form: the subject is under 128 bytes here.
        s.push(parts.subject.len() as u8);
        s.extend_from_slice(parts.subject);
        s
    };
    World {
        root_spki: certbench_core::der::spki_tlv(root.der()).unwrap().to_vec(),
        root_subject,
        inter: ders[0].clone(),
        other: ders[1].clone(),
        log,
        leaves,
    }
}

impl World {
    /// The issuer the filter enrolls: every leaf of the test CA, all but `good` revoked.
    fn issuers(&self) -> Vec<Issuer> {
        let issued = (1..=4)
            .map(|s| Issued {
                serial: vec![0x10, s],
                revoked: s != 2,
                scts: vec![],
            })
            .collect();
        vec![Issuer {
            name: "crlite test CA".into(),
            spki: certbench_core::der::spki_tlv(&self.inter).unwrap().to_vec(),
            issued,
        }]
    }

    fn coverage(&self) -> Vec<([u8; 32], u64, u64)> {
        vec![(*self.log.log_id(), T0 - DAY_MS, T0 + DAY_MS)]
    }

    /// Checks the leaf `name` with `f` over its path.
    fn path<T>(&self, name: &str, f: impl FnOnce(&VerifiedPath<'_>) -> T) -> T {
        let issuer = if name == "unenrolled" {
            &self.other
        } else {
            &self.inter
        };
        let certs = [&self.leaves[name][..], &issuer[..]];
        f(&VerifiedPath {
            certs: &certs,
            anchor_subject: &self.root_subject,
            anchor_spki: &self.root_spki,
            anchor_cert: None,
        })
    }
}

/// A fresh time for the test filter: its coverage ends at T0 + 1 day.
const NOW: u64 = (T0 + 2 * DAY_MS) / 1000;

#[test]
fn verdicts_gecko_rustls_and_upki_agree() {
    let w = world();
    let bytes = build_filter(&w.issuers(), &w.coverage(), Scale::TINY, 7).unwrap();
    let filter = Filter::load(&bytes).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_upki_store(dir.path(), &bytes, NOW).unwrap();
    let store = UpkiStore::open(dir.path()).unwrap();
    assert!(store.data_bytes() > bytes.len() as u64);
    assert!(filter.resident_bytes() > 0 && filter.data_bytes() == bytes.len() as u64);

    let not_covered = Status::SoftFail(SoftFail::NotCovered);
    for (leaf, want) in [
        ("revoked", Status::Revoked { depth: 0 }),
        ("good", Status::Good),
        // Revoked in the data, but not covered: Gecko and upki both let it through.
        ("no-scts", not_covered),
        ("outside", not_covered),
        ("unenrolled", not_covered),
    ] {
        w.path(leaf, |p| {
            assert_eq!(filter.check_gecko(p, NOW).unwrap(), want, "gecko {leaf}");
            assert_eq!(filter.check_rustls(p).unwrap(), want, "rustls {leaf}");
            assert_eq!(store.check(p).unwrap(), want, "upki {leaf}");
        });
    }
}

#[test]
fn a_stale_filter_soft_fails_in_gecko_only() {
    let w = world();
    let bytes = build_filter(&w.issuers(), &w.coverage(), Scale::TINY, 7).unwrap();
    let mut filter = Filter::load(&bytes).unwrap();
    assert_eq!(filter.updated_unix(), (T0 + DAY_MS) / 1000);
    let stale = filter.updated_unix() + GECKO_MAX_AGE_SECS;
    w.path("revoked", |p| {
        assert_eq!(
            filter.check_gecko(p, stale - 1).unwrap(),
            Status::Revoked { depth: 0 }
        );
        assert_eq!(
            filter.check_gecko(p, stale).unwrap(),
            Status::SoftFail(SoftFail::Stale)
        );
        // upki checks no age at query time.
        assert_eq!(
            filter.check_rustls(p).unwrap(),
            Status::Revoked { depth: 0 }
        );
    });
    // A known download time replaces the coverage's.
    filter.set_updated_unix(stale);
    w.path("revoked", |p| {
        assert_eq!(
            filter.check_gecko(p, stale).unwrap(),
            Status::Revoked { depth: 0 }
        );
    });
}

#[test]
fn corrupted_filters_and_stores_are_errors() {
    let w = world();
    let bytes = build_filter(&w.issuers(), &w.coverage(), Scale::TINY, 7).unwrap();
    let corrupt =
        |r: Result<Filter, RevocationError>| matches!(r, Err(RevocationError::Corrupt { .. }));
    assert!(
        corrupt(Filter::load(&bytes[..bytes.len() - 1])),
        "truncated"
    );
    assert!(
        corrupt(Filter::load(&[&bytes[..], &[0]].concat())),
        "trailing byte"
    );
    let mut version = bytes.clone();
    version[0] = 9;
    assert!(corrupt(Filter::load(&version)), "version");

    // The store: a flipped bit anywhere in the filter file fails its manifest hash; a bad
    // index is refused; a missing one is unreadable.
    let dir = tempfile::tempdir().unwrap();
    write_upki_store(dir.path(), &bytes, NOW).unwrap();
    let rev = dir.path().join("revocation");
    let filter_path = rev.join("crlite-full.filter");
    let mut flipped = bytes.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 1;
    std::fs::write(&filter_path, &flipped).unwrap();
    assert!(matches!(
        UpkiStore::open(dir.path()),
        Err(RevocationError::Corrupt { .. })
    ));
    std::fs::write(&filter_path, &bytes).unwrap();
    assert!(UpkiStore::open(dir.path()).is_ok());
    let index = std::fs::read(rev.join("index.bin")).unwrap();
    for bad in [
        &index[..index.len() - 1],
        &index[..20],
        b"upkiidx9\0\0\0\0\0\0",
    ] {
        std::fs::write(rev.join("index.bin"), bad).unwrap();
        assert!(
            matches!(
                UpkiStore::open(dir.path()),
                Err(RevocationError::Corrupt { .. })
            ),
            "{} index bytes",
            bad.len()
        );
    }
    std::fs::remove_file(rev.join("index.bin")).unwrap();
    assert!(matches!(
        UpkiStore::open(dir.path()),
        Err(RevocationError::Unreadable { .. })
    ));
}

#[test]
fn bad_input_is_a_clear_error() {
    let w = world();
    let cov = w.coverage();
    let tiny = Scale::TINY;
    let mut dup = w.issuers();
    dup[0].issued[1].serial = dup[0].issued[0].serial.clone();
    let mut empty_serial = w.issuers();
    empty_serial[0].issued[0].serial.clear();
    let mut no_certs = w.issuers();
    no_certs[0].issued.clear();
    let mut bad_key = w.issuers();
    bad_key[0].spki = vec![1, 2, 3];
    let twice = [w.issuers(), w.issuers()].concat();
    let cases: Vec<(GenError, &str)> = vec![
        (
            build_filter(&dup, &cov, tiny, 1).unwrap_err(),
            "listed twice",
        ),
        (
            build_filter(&empty_serial, &cov, tiny, 1).unwrap_err(),
            "0-byte serial",
        ),
        (
            build_filter(&no_certs, &cov, tiny, 1).unwrap_err(),
            "no certificates",
        ),
        (
            build_filter(&bad_key, &cov, tiny, 1).unwrap_err(),
            "not a DER SEQUENCE",
        ),
        (build_filter(&twice, &cov, tiny, 1).unwrap_err(), "same key"),
        (
            build_filter(&w.issuers(), &[], tiny, 1).unwrap_err(),
            "no CT log coverage",
        ),
        (
            build_filter(&w.issuers(), &[(cov[0].0, 5, 5)], tiny, 1).unwrap_err(),
            "is empty",
        ),
        (
            build_filter(&w.issuers(), &[cov[0], cov[0]], tiny, 1).unwrap_err(),
            "listed twice in the coverage",
        ),
        (
            write_upki_store(Path::new("/nonexistent"), b"junk", 0).unwrap_err(),
            "filter",
        ),
    ];
    for (err, says) in cases {
        assert!(err.to_string().contains(says), "{err} (wanted {says:?})");
    }
}
