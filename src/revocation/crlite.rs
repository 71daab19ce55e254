//! CRLite data: a clubcard filter built with Mozilla's builder (`clubcard::builder` and
//! `clubcard-crlite`'s `CRLiteBuilderItem`, as Mozilla's `crlite` aggregator uses them), and
//! the directory the rustls project's `upki` reads ([`write_upki_store`]).
//!
//! A filter holds, per enrolled issuer (keyed by the SHA-256 of its SubjectPublicKeyInfo),
//! the set of its revoked serials against the universe of all its serials, and the CT
//! coverage: per log, the window of SCT times whose certificates the universe holds. Here the
//! issuers given (every serial they list; the revoked ones revoked) plus synthetic issuers
//! and serials to reach a [`Scale`]. The published full filter: about 900 M certificates with
//! about 8 M revoked in 6.7 MB (clubcard paper, ePrint 2025/610): [`PUBLISHED`].
//!
//! Invariants: the synthetic serials and revocations are a function of the seed (the filter
//! bytes are not: clubcard randomises the tail of its solutions); bad input is a
//! [`GenError`] before anything is built; the index written for upki is the documented
//! `upkiidx1` format (`upki::revocation::index`'s doc comment), written here rather than with
//! upki's private `__fetch` feature, which brings its HTTP client.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use clubcard::builder::{ApproximateRibbon, ClubcardBuilder, ExactRibbon};
use clubcard_crlite::builder::CRLiteBuilderItem;
use clubcard_crlite::{CRLiteClubcard, CRLiteCoverage, CRLiteQuery, Encoding, IssuerSpkiHash};
use sha2::{Digest, Sha256};

use super::Issuer;

/// The published full filter: certificates, revoked, bytes (ePrint 2025/610).
pub const PUBLISHED: (u64, u64, u64) = (900_000_000, 8_000_000, 6_700_000);

/// How many synthetic certificates a filter holds beside the given issuers'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    /// Its name in provenance (`tiny`, `small`, `large`).
    pub name: &'static str,
    /// Synthetic issuers.
    pub issuers: usize,
    /// Serials per synthetic issuer.
    pub certs_per_issuer: usize,
    /// Revoked, per million (the published filter's is about 8,900).
    pub revoked_ppm: u32,
}

impl Scale {
    /// For tests: 20 k certificates, builds in a few tens of milliseconds.
    pub const TINY: Scale = Scale::new("tiny", 4, 5_000, 10_000);
    /// 10 M certificates at the published revocation rate.
    pub const SMALL: Scale = Scale::new("small", 100, 100_000, 8_900);
    /// 100 M certificates at the published revocation rate.
    pub const MEDIUM: Scale = Scale::new("medium", 200, 500_000, 8_900);
    /// The published scale, also the largest built here: 900 M certificates, ~8 M revoked
    /// (8,889 per million), over 900 synthetic issuers of 1 M serials each (the real
    /// distribution is skewed: a few issuers hold most certificates). 164 s on two cores,
    /// 9.0 MB, 1.1 GB peak.
    pub const LARGE: Scale = Scale::new("large", 900, 1_000_000, 8_889);

    const fn new(name: &'static str, issuers: usize, per: usize, ppm: u32) -> Scale {
        Scale {
            name,
            issuers,
            certs_per_issuer: per,
            revoked_ppm: ppm,
        }
    }

    /// Synthetic certificates.
    pub fn certificates(&self) -> u64 {
        (self.issuers * self.certs_per_issuer) as u64
    }
}

/// Why a filter or store cannot be made from what was given.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// An issuer that lists no certificate (a clubcard block needs a universe).
    #[error("CRLite: issuer {0} lists no certificates")]
    NoCertificates(String),
    /// An issuer whose key is not a DER SEQUENCE.
    #[error("CRLite: issuer {0}: its SubjectPublicKeyInfo is not a DER SEQUENCE")]
    BadSpki(String),
    /// Two issuers with the same key (the filter keys on its hash).
    #[error("CRLite: issuers {0} and {1} have the same key")]
    DuplicateIssuer(String, String),
    /// A serial that is empty or longer than the format's 255 bytes.
    #[error("CRLite: issuer {issuer}: certificate {index} has a {len}-byte serial (1..=255)")]
    BadSerial {
        /// The issuer.
        issuer: String,
        /// The certificate's position in its `issued`.
        index: usize,
        /// Its length.
        len: usize,
    },
    /// A serial listed twice for one issuer.
    #[error("CRLite: issuer {issuer}: serial {serial} is listed twice")]
    DuplicateSerial {
        /// The issuer.
        issuer: String,
        /// The serial, hex.
        serial: String,
    },
    /// No coverage: the filter would cover no certificate.
    #[error("CRLite: no CT log coverage given")]
    NoCoverage,
    /// A log listed twice in the coverage.
    #[error("CRLite: log {0} is listed twice in the coverage")]
    DuplicateLog(String),
    /// A coverage window that is empty (clubcard needs min < max).
    #[error("CRLite: log {log}: window {min}..{max} ms is empty")]
    EmptyWindow {
        /// The log, hex.
        log: String,
        /// Window start, ms.
        min: u64,
        /// Window end, ms.
        max: u64,
    },
    /// The filter could not be encoded or decoded.
    #[error("CRLite: filter: {0}")]
    Filter(String),
    /// A file could not be written.
    #[error("CRLite: {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// One block of the filter: an issuer's key hash and its serials with their status.
enum Block<'a> {
    Given(&'a Issuer),
    Synthetic { index: u64, seed: u64, scale: Scale },
}

impl Block<'_> {
    fn id(&self) -> [u8; 32] {
        match self {
            Block::Given(i) => Sha256::digest(&i.spki).into(),
            Block::Synthetic { index, seed, .. } => {
                let mut h = Sha256::new();
                h.update(b"certbench synthetic CRLite issuer");
                h.update(seed.to_be_bytes());
                h.update(index.to_be_bytes());
                h.finalize().into()
            }
        }
    }

    /// Calls `f` with every serial and whether it is revoked.
    fn each(&self, mut f: impl FnMut(Vec<u8>, bool)) {
        match self {
            Block::Given(i) => i.issued.iter().for_each(|c| f(c.serial.clone(), c.revoked)),
            Block::Synthetic { index, seed, scale } => {
                let base = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                for j in 0..scale.certs_per_issuer as u64 {
                    let r = splitmix(base ^ j.wrapping_mul(0xd6e8_feb8_6659_fd93));
                    // A positive INTEGER, unique per issuer (j is in it), random-looking.
                    let mut serial = Vec::with_capacity(17);
                    serial.push(0x40 | (r >> 58) as u8);
                    serial.extend_from_slice(&splitmix(r).to_be_bytes());
                    serial.extend_from_slice(&j.to_be_bytes());
                    f(serial, r % 1_000_000 < u64::from(scale.revoked_ppm));
                }
            }
        }
    }
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Builds a filter (clubcard V4 encoding, what `CRLiteClubcard::from_bytes` and so Gecko's
/// `cert_storage` and upki read) over `issuers` plus `scale`'s synthetic ones, covering the
/// CT logs in `coverage` (`(log id, min ms, max ms)`, inclusive: a certificate is covered when
/// one of its SCTs is from such a log within its window).
pub fn build_filter(
    issuers: &[Issuer],
    coverage: &[([u8; 32], u64, u64)],
    scale: Scale,
    seed: u64,
) -> Result<Vec<u8>, GenError> {
    let coverage = coverage_of(coverage)?;
    let mut blocks = Vec::with_capacity(issuers.len() + scale.issuers);
    let mut keys: HashMap<[u8; 32], &str> = HashMap::new();
    for issuer in issuers {
        check_issuer(issuer)?;
        let block = Block::Given(issuer);
        if let Some(other) = keys.insert(block.id(), &issuer.name) {
            return Err(GenError::DuplicateIssuer(other.into(), issuer.name.clone()));
        }
        blocks.push(block);
    }
    if scale.certs_per_issuer > 0 {
        blocks.extend((0..scale.issuers as u64).map(|index| Block::Synthetic {
            index,
            seed,
            scale,
        }));
    }

    let mut builder = ClubcardBuilder::<4, CRLiteBuilderItem>::new();
    let approx = in_parallel(&blocks, |b| {
        let id = b.id();
        let (mut universe, mut revoked) = (0, 0);
        b.each(|_, r| {
            universe += 1;
            revoked += usize::from(r);
        });
        // A block that is mostly revoked is encoded by its complement (clubcard's
        // `set_inverted`): the ribbon's size follows the set it encodes.
        let inverted = 2 * revoked > universe;
        let mut r = builder.new_approx_builder(&id);
        r.set_universe_size(universe);
        r.set_inverted(inverted);
        b.each(|serial, revoked| {
            if revoked != inverted {
                r.insert(item(id, serial, revoked));
            }
        });
        ApproximateRibbon::from(r)
    });
    builder.collect_approx_ribbons(approx);
    let exact = in_parallel(&blocks, |b| {
        let id = b.id();
        let mut r = builder.new_exact_builder(&id);
        b.each(|serial, revoked| r.insert(item(id, serial, revoked)));
        ExactRibbon::from(r)
    });
    builder.collect_exact_ribbons(exact);
    let card: CRLiteClubcard = builder.build::<CRLiteQuery>(coverage, ()).into();
    card.to_bytes(Encoding::V4)
        .map_err(|e| GenError::Filter(e.to_string()))
}

fn item(id: [u8; 32], serial: Vec<u8>, revoked: bool) -> CRLiteBuilderItem {
    match revoked {
        true => CRLiteBuilderItem::revoked(IssuerSpkiHash(id), serial),
        false => CRLiteBuilderItem::not_revoked(IssuerSpkiHash(id), serial),
    }
}

/// `f` over `blocks` on every core, results in the blocks' order.
fn in_parallel<T: Send>(blocks: &[Block<'_>], f: impl Fn(&Block<'_>) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<(usize, T)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(b) = blocks.get(i) else { break mine };
                        mine.push((i, f(b)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a filter builder thread panicked"))
            .collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, t)| t).collect()
}

fn check_issuer(issuer: &Issuer) -> Result<(), GenError> {
    let name = &issuer.name;
    if certbench_core::der::sequence_contents(&issuer.spki).is_err() {
        return Err(GenError::BadSpki(name.clone()));
    }
    if issuer.issued.is_empty() {
        return Err(GenError::NoCertificates(name.clone()));
    }
    let mut seen = HashSet::with_capacity(issuer.issued.len());
    for (index, c) in issuer.issued.iter().enumerate() {
        if c.serial.is_empty() || c.serial.len() > 255 {
            let len = c.serial.len();
            return Err(GenError::BadSerial {
                issuer: name.clone(),
                index,
                len,
            });
        }
        if !seen.insert(&c.serial) {
            let serial = hex(&c.serial);
            return Err(GenError::DuplicateSerial {
                issuer: name.clone(),
                serial,
            });
        }
    }
    Ok(())
}

/// The coverage as clubcard-crlite builds it (`CRLiteCoverage::from_mozilla_ct_logs_json`,
/// its only constructor: MinEntry 0 and MMD 0 make the window exactly `[min, max]`).
fn coverage_of(coverage: &[([u8; 32], u64, u64)]) -> Result<CRLiteCoverage, GenError> {
    if coverage.is_empty() {
        return Err(GenError::NoCoverage);
    }
    let mut seen = HashSet::new();
    let mut json = Vec::with_capacity(coverage.len());
    for &(log, min, max) in coverage {
        if !seen.insert(log) {
            return Err(GenError::DuplicateLog(hex(&log)));
        }
        if min >= max {
            return Err(GenError::EmptyWindow {
                log: hex(&log),
                min,
                max,
            });
        }
        json.push(serde_json::json!({
            "LogID": crate::certs::ct::base64(&log),
            "MinTimestamp": min, "MaxTimestamp": max, "MMD": 0, "MinEntry": 0,
        }));
    }
    let json = serde_json::to_vec(&json).map_err(|e| GenError::Filter(e.to_string()))?;
    let cov = CRLiteCoverage::from_mozilla_ct_logs_json(&json[..]);
    match cov.iter().count() == coverage.len() {
        true => Ok(cov),
        false => Err(GenError::Filter(
            "clubcard-crlite dropped a coverage entry".into(),
        )),
    }
}

/// Writes the store upki's `Store` reads into its cache directory `dir`:
/// `dir/revocation/{manifest.json, index.bin, crlite-full.filter}`. The index's coverage is
/// read from the filter, as upki's own index writer does. `generated_at` is Unix seconds.
pub fn write_upki_store(dir: &Path, filter: &[u8], generated_at: u64) -> Result<(), GenError> {
    const NAME: &str = "crlite-full.filter";
    let card = CRLiteClubcard::from_bytes(filter).map_err(|e| GenError::Filter(e.to_string()))?;
    let mut logs: Vec<_> = card
        .universe()
        .iter()
        .map(|(l, w)| (l.0, w.low.0, w.high.0))
        .collect();
    logs.sort();
    let rev = dir.join("revocation");
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| GenError::Io { path, source }
    };
    std::fs::create_dir_all(&rev).map_err(io(&rev))?;

    // upkiidx1: magic, file count (u16), log count (u32); the file names (32-byte slots);
    // per log (sorted): id, offset of its entries (u64), entry count (u16); the entries:
    // file index (u16), min and max timestamp (u64). Big-endian.
    let entries_at = 14 + 32 + logs.len() * 42;
    let mut index = Vec::with_capacity(entries_at + logs.len() * 18);
    index.extend_from_slice(b"upkiidx1");
    index.extend_from_slice(&1u16.to_be_bytes());
    index.extend_from_slice(&(logs.len() as u32).to_be_bytes());
    let mut slot = [0u8; 32];
    slot[..NAME.len()].copy_from_slice(NAME.as_bytes());
    index.extend_from_slice(&slot);
    for (i, (log, _, _)) in logs.iter().enumerate() {
        index.extend_from_slice(log);
        index.extend_from_slice(&((entries_at + i * 18) as u64).to_be_bytes());
        index.extend_from_slice(&1u16.to_be_bytes());
    }
    for (_, min, max) in &logs {
        index.extend_from_slice(&0u16.to_be_bytes());
        index.extend_from_slice(&min.to_be_bytes());
        index.extend_from_slice(&max.to_be_bytes());
    }
    let manifest = serde_json::json!({
        "generated_at": generated_at,
        "comment": "certbench: a CRLite filter built with clubcard's builder",
        "files": [{ "filename": NAME, "size": filter.len(), "hash": hex(&Sha256::digest(filter)) }],
    });
    for (name, bytes) in [
        (NAME, filter.to_vec()),
        ("index.bin", index),
        ("manifest.json", manifest.to_string().into_bytes()),
    ] {
        let path = rev.join(name);
        std::fs::write(&path, bytes).map_err(io(&path))?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "crlite_tests.rs"]
mod tests;
