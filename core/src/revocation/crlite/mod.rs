//! CRLite: a clubcard filter (Mozilla's `clubcard-crlite`, the code Gecko runs) queried for a
//! verified path's end-entity certificate, three ways:
//!
//! - [`Filter::check_gecko`]: as Firefox does. Gecko's `NSSCertDBTrustDomain::CheckRevocation`
//!   consults CRLite for end entities only (CA certificates go through OneCRL in
//!   `GetCertTrust`), and only when the leaf has an SCT list extension;
//!   `CheckRevocationByCRLite` builds the timestamps with `BuildCRLiteTimestampArray` (a list
//!   that does not decode: CRLite "will be not be consulted"; an SCT that does not decode is
//!   skipped, `DecodeSCTs`); `cert_storage`'s `get_crlite_revocation_state` answers
//!   `STATE_NO_FILTER` when the filter is not fresh (`is_crlite_fresh`: the last update less
//!   than [`GECKO_MAX_AGE_SECS`] ago), then `Filter::has` counts the SCTs the filter's coverage
//!   holds (`in_universe`) and answers `STATE_NOT_COVERED` below
//!   `security.pki.crlite_timestamps_for_coverage` ([`GECKO_TIMESTAMPS_FOR_COVERAGE`]), else
//!   `CRLiteClubcard::contains`. With `security.pki.crlite_mode` 2 (enforce) `CheckRevocation`
//!   returns CRLite's Revoked or Good; not enrolled, not covered and no filter fall through to
//!   OCSP, which Firefox 142+ no longer fetches for DV certificates: a soft-fail.
//! - [`Filter::check_rustls`]: as a rustls user holding the same filter in memory gets it,
//!   with `upki`'s semantics (`upki::revocation::Index::check`): revoked, good, or
//!   "not covered by revocation data" (a soft-fail), no freshness check at query time, and an
//!   SCT that does not decode is an error (`RevocationCheckInput::from_certificates`).
//! - [`UpkiStore::check`]: through `upki::revocation::Store` itself, which reads its index and
//!   the filter files from disk on every check.
//!
//! Gecko keeps one full filter plus delta filters (`crlite_filters`) and a stash: any filter
//! answering revoked wins, then any good, then not enrolled, else not covered. Only one full
//! filter is supported here, no deltas and no stash.
//!
//! Invariants: a filter that does not deserialise, or whose index points outside its own
//! matrices, is [`RevocationError::Corrupt`] at load (never a silent accept, never a panic at
//! query time); a check never reads anything but the leaf, its issuer's key and the filter.

mod upki;

use clubcard::Queryable;
use clubcard_crlite::{
    CRLiteClubcard, CRLiteKey, CRLiteQuery, CRLiteStatus, IssuerSpkiHash, LogId, Timestamp,
};

pub use self::upki::UpkiStore;
use super::{Mechanism, RevocationError, SoftFail, Status, VerifiedPath};
use crate::ct::{sct, sha256};
use crate::der;

/// How old a filter Gecko still uses: `cert_storage`'s `is_crlite_fresh` requires
/// `now < last_update + 60 * 60 * 24 * 10` (ten days, hard-coded, not a pref).
pub const GECKO_MAX_AGE_SECS: u64 = 60 * 60 * 24 * 10;

/// How many of the leaf's SCTs the filter must cover before Gecko uses its answer: the pref
/// `security.pki.crlite_timestamps_for_coverage`, default 1 (`StaticPrefList.yaml`).
pub const GECKO_TIMESTAMPS_FOR_COVERAGE: usize = 1;

/// A CRLite filter in memory, as Gecko's `cert_storage` holds it (`Filter::Clubcard`).
pub struct Filter {
    card: CRLiteClubcard,
    data_bytes: u64,
    resident_bytes: u64,
    updated_unix: u64,
}

impl Filter {
    /// Deserialises a filter as `cert_storage`'s `Filter::load` does
    /// (`CRLiteClubcard::from_bytes`), then checks that every index entry stays inside the
    /// filter's matrices (clubcard trusts them at query time: a bad offset is a panic or a
    /// wrong answer). Its last update is taken as the newest time its coverage reaches
    /// ([`Filter::updated_unix`]).
    pub fn load(bytes: &[u8]) -> Result<Filter, RevocationError> {
        let card = CRLiteClubcard::from_bytes(bytes).map_err(|e| {
            let cause = std::error::Error::source(&e).map(|s| format!(": {s}"));
            corrupt(
                Mechanism::Crlite,
                format!("{e}{}", cause.unwrap_or_default()),
            )
        })?;
        validate(&card).map_err(|d| corrupt(Mechanism::Crlite, d))?;
        let updated_unix = card
            .universe()
            .iter()
            .map(|(_, interval)| interval.high.0 / 1000)
            .max()
            .unwrap_or(0);
        Ok(Filter {
            resident_bytes: heap_bytes(&card),
            data_bytes: bytes.len() as u64,
            card,
            updated_unix,
        })
    }

    /// When the filter was last updated, Unix seconds. Gecko stores its download time
    /// (`note_crlite_update_time`); a filter file carries no time, so [`Filter::load`] takes
    /// the end of its newest coverage window (the newest SCT time its data reaches; a real
    /// filter is published about a day, one log MMD, after that).
    pub fn updated_unix(&self) -> u64 {
        self.updated_unix
    }

    /// Sets the last update time (the download time, when the caller knows it).
    pub fn set_updated_unix(&mut self, unix: u64) {
        self.updated_unix = unix;
    }

    /// Firefox's answer for the path's end-entity certificate at `now_unix` (module docs).
    pub fn check_gecko(
        &self,
        path: &VerifiedPath<'_>,
        now_unix: u64,
    ) -> Result<Status, RevocationError> {
        let leaf = Leaf::read(path)?;
        // No SCT extension, or a list that does not decode: CRLite is not consulted.
        let Some(Ok(list)) = &leaf.scts else {
            return Ok(Status::SoftFail(SoftFail::NotCovered));
        };
        if now_unix >= self.updated_unix.saturating_add(GECKO_MAX_AGE_SECS) {
            return Ok(Status::SoftFail(SoftFail::Stale));
        }
        let stamps: Vec<_> = list.iter().filter_map(|s| s.ok()).collect();
        let key = leaf.key();
        let key = key.crlite();
        let covered = stamps
            .iter()
            .filter(|&&t| CRLiteQuery::new(&key, Some(t)).in_universe(self.card.universe()))
            .count();
        if covered < GECKO_TIMESTAMPS_FOR_COVERAGE {
            return Ok(Status::SoftFail(SoftFail::NotCovered));
        }
        Ok(status(self.card.contains(&key, stamps.into_iter())))
    }

    /// A rustls user's answer with this filter in memory, as `upki` gives it (module docs).
    pub fn check_rustls(&self, path: &VerifiedPath<'_>) -> Result<Status, RevocationError> {
        let leaf = Leaf::read(path)?;
        let stamps = leaf.strict_scts()?;
        let key = leaf.key();
        Ok(status(
            self.card.contains(&key.crlite(), stamps.into_iter()),
        ))
    }

    /// Bytes of the serialised filter.
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes
    }

    /// Heap bytes the deserialised filter keeps: its matrices, index (keys, entries and
    /// exceptions) and coverage. Gecko's memory reporter counts less
    /// (`CRLiteClubcard::approximate_size_of` leaves out the index keys and exceptions).
    pub fn resident_bytes(&self) -> u64 {
        self.resident_bytes
    }
}

/// Gecko's and upki's reading of the filter's answer: not enrolled and not covered are both
/// "the filter cannot say".
fn status(s: CRLiteStatus) -> Status {
    match s {
        CRLiteStatus::Revoked => Status::Revoked { depth: 0 },
        CRLiteStatus::Good => Status::Good,
        CRLiteStatus::NotEnrolled | CRLiteStatus::NotCovered => {
            Status::SoftFail(SoftFail::NotCovered)
        }
    }
}

fn corrupt(mechanism: Mechanism, detail: String) -> RevocationError {
    RevocationError::Corrupt { mechanism, detail }
}

/// Every index entry within the matrices: the approximate filter's rank at most its column
/// count, and each query's start (`offset + hash mod m`) inside its column.
pub(crate) fn validate(card: &CRLiteClubcard) -> Result<(), String> {
    let c = card.as_ref();
    for (block, e) in c.index() {
        let bad = |what: &str| format!("index entry {}: {what}", hex(&block[..4]));
        if e.approx_filter_rank > c.approx_filter.len() {
            return Err(bad("rank beyond the approximate filter's columns"));
        }
        let reach = |offset: usize, m: usize| offset.checked_add(m).map(|end| end.div_ceil(64));
        if e.approx_filter_m > 0 {
            let end = reach(e.approx_filter_offset, e.approx_filter_m);
            let short = c.approx_filter[..e.approx_filter_rank]
                .iter()
                .any(|col| end.is_none_or(|end| end > col.len()));
            if short {
                return Err(bad("approximate filter offset out of range"));
            }
        }
        if e.exact_filter_m > 0
            && reach(e.exact_filter_offset, e.exact_filter_m)
                .is_none_or(|end| end > c.exact_filter.len())
        {
            return Err(bad("exact filter offset out of range"));
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The deserialised filter's heap (see [`Filter::resident_bytes`]).
fn heap_bytes(card: &CRLiteClubcard) -> u64 {
    use std::mem::size_of;
    let c = card.as_ref();
    let words: usize =
        c.approx_filter.iter().map(Vec::capacity).sum::<usize>() + c.exact_filter.capacity();
    let columns = c.approx_filter.capacity() * size_of::<Vec<u64>>();
    let index: usize = c
        .index()
        .iter()
        .map(|(k, e)| {
            k.capacity()
                + size_of::<(Vec<u8>, clubcard::ClubcardIndexEntry)>()
                + e.exceptions.capacity() * size_of::<Vec<u8>>()
                + e.exceptions.iter().map(Vec::capacity).sum::<usize>()
        })
        .sum();
    // A HashMap entry: log id and interval, plus a control byte.
    let coverage = card.universe().iter().count() * (32 + 16 + 1);
    (words * 8 + columns + index + coverage) as u64
}

/// What a CRLite query reads from a path: the leaf's serial, its issuer's key hash, and its
/// embedded SCTs (`None`: no SCT extension; `Some(Err)`: a list that does not decode).
struct Leaf<'a> {
    serial: &'a [u8],
    issuer: IssuerSpkiHash,
    scts: Option<Result<Vec<Stamp>, sct::SctError>>,
}

/// One embedded SCT's log and time, or why it does not decode.
type Stamp = Result<(LogId, Timestamp), sct::SctError>;

/// A leaf's CRLite key: the issuer's key hash and the serial, hashed once.
struct Key<'a>(&'a IssuerSpkiHash, &'a [u8]);

impl Key<'_> {
    fn crlite(&self) -> CRLiteKey<'_> {
        CRLiteKey::new(self.0, self.1)
    }
}

impl<'a> Leaf<'a> {
    fn read(path: &VerifiedPath<'a>) -> Result<Leaf<'a>, RevocationError> {
        let bad = |what: &str| RevocationError::BadPath(format!("CRLite: {what}"));
        let leaf = *path.certs.first().ok_or_else(|| bad("an empty path"))?;
        let issuer_spki = match path.certs.get(1) {
            Some(issuer) => der::spki_tlv(issuer).ok_or_else(|| bad("the issuer's key"))?,
            None => path.anchor_spki,
        };
        let serial = serial(leaf).ok_or_else(|| bad("the leaf's serial number"))?;
        let scts = der::embedded_scts(leaf)
            .map_err(|e| bad(&format!("the leaf's extensions: {e}")))?
            .map(|e| {
                sct::split_list(e.list).map(|list| {
                    list.into_iter()
                        .map(|s| {
                            sct::decode(s).map(|s| (LogId(s.log_id), Timestamp(s.timestamp_ms)))
                        })
                        .collect()
                })
            });
        Ok(Leaf {
            serial,
            issuer: IssuerSpkiHash(sha256(issuer_spki)),
            scts,
        })
    }

    fn key(&self) -> Key<'_> {
        Key(&self.issuer, self.serial)
    }

    /// The SCTs as upki reads them (webpki's `sct_log_timestamps`): none without the
    /// extension, an error for any SCT that does not decode.
    fn strict_scts(&self) -> Result<Vec<(LogId, Timestamp)>, RevocationError> {
        let bad = |e: sct::SctError| RevocationError::BadPath(format!("upki: invalid SCT: {e}"));
        match &self.scts {
            None => Ok(Vec::new()),
            Some(Err(e)) => Err(bad(*e)),
            Some(Ok(list)) => list.iter().map(|s| s.map_err(bad)).collect(),
        }
    }
}

/// The content bytes of a certificate's serialNumber INTEGER (what CRLite keys on, as Gecko's
/// `CertID::serialNumber` and webpki's `Cert::serial` give it), from the DER headers alone.
fn serial(der: &[u8]) -> Option<&[u8]> {
    let (cert, _) = tlv(der, 0x30)?;
    let (tbs, _) = tlv(cert, 0x30)?;
    let tbs = match tlv(tbs, 0xa0) {
        Some((_, rest)) => rest,
        None => tbs,
    };
    tlv(tbs, 0x02)
        .map(|(serial, _)| serial)
        .filter(|s| !s.is_empty())
}

/// The contents of the TLV at the start of `b` if its tag is `tag`, and what follows it.
fn tlv(b: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&t, rest) = b.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (first as usize, rest)
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n].iter().fold(0usize, |a, &b| (a << 8) | b as usize);
        (len, &rest[n..])
    };
    (t == tag && rest.len() >= len).then(|| rest.split_at(len))
}

#[cfg(test)]
mod tests;
