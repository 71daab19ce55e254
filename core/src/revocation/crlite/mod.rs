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

mod leaf;
mod upki;

use clubcard::Queryable;
use clubcard_crlite::{CRLiteClubcard, CRLiteQuery, CRLiteStatus};

use self::leaf::{Leaf, corrupt, validate};
pub use self::upki::UpkiStore;
use crate::revocation::types::{Mechanism, RevocationError, SoftFail, Status, VerifiedPath};

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

    /// Firefox's answer for the path's end-entity certificate at `now_unix` (module docs), every
    /// SCT the leaf embeds taken as valid: for a caller that verified none (the filter measured
    /// alone, `revocation-scale`); the `firefox` method gives only the SCTs its CT check found
    /// valid ([`Filter::check_gecko_verified`]).
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
        let stamps: Vec<_> = list.iter().filter_map(|s| s.ok()).collect();
        self.gecko_query(&leaf, stamps, now_unix)
    }

    /// Firefox's answer as current Gecko gives it inside path building
    /// (`CheckRevocationByCRLite`): the timestamps are those of the SCTs its CT verification
    /// found valid (`mCTVerifyResult`, `verified`: log id and milliseconds), not every SCT the
    /// leaf carries, so an SCT with a bad signature, from an unknown log or from the future
    /// counts for no coverage. A leaf without an SCT list extension is not consulted, as in
    /// [`Filter::check_gecko`].
    pub fn check_gecko_verified(
        &self,
        path: &VerifiedPath<'_>,
        now_unix: u64,
        verified: &[([u8; 32], u64)],
    ) -> Result<Status, RevocationError> {
        let leaf = Leaf::read(path)?;
        if leaf.scts.is_none() {
            return Ok(Status::SoftFail(SoftFail::NotCovered));
        }
        let stamps = verified
            .iter()
            .map(|&(log, ms)| (clubcard_crlite::LogId(log), clubcard_crlite::Timestamp(ms)))
            .collect();
        self.gecko_query(&leaf, stamps, now_unix)
    }

    /// `get_crlite_revocation_state` for `leaf` with `stamps`: freshness, coverage, then the
    /// filter (module docs).
    fn gecko_query(
        &self,
        leaf: &Leaf<'_>,
        stamps: Vec<(clubcard_crlite::LogId, clubcard_crlite::Timestamp)>,
        now_unix: u64,
    ) -> Result<Status, RevocationError> {
        if now_unix >= self.updated_unix.saturating_add(GECKO_MAX_AGE_SECS) {
            return Ok(Status::SoftFail(SoftFail::Stale));
        }
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

#[cfg(test)]
mod tests;
