//! Revocation data made in one place, for all who make it (`--revocation`'s cached data,
//! [`super::bundle`]; a handshake run's, `crate::handshake::revocation`; `revocation-scale`'s
//! data sets, [`super::scale`]): Chrome's CRLSet, the CRLite filter with the CT coverage of
//! its issuers' SCTs, upki's store of that filter, synthetic CRLs; and the one table of what
//! each [`Scale`] makes ([`Scale::sizes`]).
//!
//! Every generator is seeded the same (1) wherever it is called, so the same issuers at the
//! same scale and time give the same bytes.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rcgen::{Issuer as Signer, SigningKey};

use super::{Issuer, crlite, crlset};
use crate::certs::crl;

/// Days a CRLSet of data cached across runs is valid (`NotAfter`).
pub const CRLSET_DAYS: u64 = 30;

/// How big the generated data is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Chrome's CRLSet size and the published filter's population
    /// ([`crlite::Scale::LARGE`]: 900 M certificates, minutes to make once): what the docs and
    /// the benchmarks measure (`--revocation-scale full`).
    Full,
    /// Chrome's CRLSet size and a filter of 100 M certificates at the published revocation
    /// rate ([`crlite::Scale::MEDIUM`], a ninth of the published population, seconds to make
    /// once): the default, so that a first run is not held up minutes; the run says which
    /// scale its data is.
    Medium,
    /// The issuers given and a tiny synthetic population: for tests (well under a second).
    Test,
}

/// What one [`Scale`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// The CRLSet's size.
    pub crlset: crlset::Scale,
    /// The CRLite filter's synthetic population, for data cached across runs.
    pub filter: crlite::Scale,
    /// The CRLite filter's synthetic population for data made afresh for every run (a
    /// handshake run, whose CA is new each time, cannot cache it): never the published 900 M,
    /// which takes minutes to build.
    pub fresh_filter: crlite::Scale,
}

impl Scale {
    /// The scale table: what each scale makes.
    pub fn sizes(self) -> Sizes {
        match self {
            Scale::Full => Sizes {
                crlset: crlset::Scale::CHROME,
                filter: crlite::Scale::LARGE,
                fresh_filter: crlite::Scale::SMALL,
            },
            Scale::Medium => Sizes {
                crlset: crlset::Scale::CHROME,
                filter: crlite::Scale::MEDIUM,
                fresh_filter: crlite::Scale::SMALL,
            },
            Scale::Test => Sizes {
                crlset: crlset::Scale::GIVEN,
                filter: crlite::Scale::TINY,
                fresh_filter: crlite::Scale::TINY,
            },
        }
    }

    /// Its name (`full`, `medium`, `test`), as in cache keys and provenance.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Full => "full",
            Scale::Medium => "medium",
            Scale::Test => "test",
        }
    }
}

/// Chrome's CRLSet of `issuers` padded to `scale`, valid until `not_after` (Unix seconds).
pub fn crlset(
    issuers: &[Issuer],
    scale: crlset::Scale,
    not_after: u64,
) -> Result<Vec<u8>, crlset::CrlSetError> {
    crlset::generate(issuers, scale, 1, not_after)
}

/// The CT logs of the issuers' SCTs, each covered from a day before its oldest SCT to
/// `made_at` (Unix seconds; at least just past that SCT), ordered by log id.
pub fn coverage(issuers: &[Issuer], made_at: u64) -> Vec<([u8; 32], u64, u64)> {
    let mut logs: std::collections::BTreeMap<[u8; 32], u64> = Default::default();
    for (log, ts) in issuers.iter().flat_map(|i| &i.issued).flat_map(|c| &c.scts) {
        let min = logs.entry(*log).or_insert(*ts);
        *min = (*min).min(*ts);
    }
    let end = made_at * 1000;
    logs.into_iter()
        .map(|(log, min)| (log, min.saturating_sub(86_400_000), end.max(min + 1)))
        .collect()
}

/// A clubcard CRLite filter of `issuers` beside `scale`'s synthetic population, covering
/// `coverage` ([`coverage`]).
pub fn filter(
    issuers: &[Issuer],
    coverage: &[([u8; 32], u64, u64)],
    scale: crlite::Scale,
) -> Result<Vec<u8>, crlite::GenError> {
    crlite::build_filter(issuers, coverage, scale, 1)
}

/// `filter` as upki's store in `dir`, made at `made_at` (Unix seconds).
pub fn upki_store(dir: &Path, filter: &[u8], made_at: u64) -> Result<(), crlite::GenError> {
    crlite::write_upki_store(dir, filter, made_at)
}

/// A CRL signed by `signer`: `serials` serials, `revoked` among them and the rest synthetic
/// (from `seed`), issued an hour before `made_at`, its next update at `next_update`.
pub fn crl(
    signer: &Signer<'_, impl SigningKey>,
    serials: usize,
    seed: u64,
    revoked: &[Vec<u8>],
    made_at: u64,
    next_update: u64,
) -> Result<Vec<u8>, crl::CrlGenError> {
    crl::synthetic(signer, serials, seed, revoked, made_at - 3600, next_update)
}

/// What [`write()`] makes: a CRLSet and a filter (with its upki store), each of its issuers.
pub struct Spec<'a> {
    /// The CRLSet's issuers, its size and its `NotAfter` (Unix seconds).
    pub crlset: (&'a [Issuer], crlset::Scale, u64),
    /// The filter's issuers (its coverage: the logs of their SCTs) and its size.
    pub filter: (&'a [Issuer], crlite::Scale),
    /// When the data is made (Unix seconds): the coverage's end, the upki store's time.
    pub made_at: u64,
}

/// What [`write()`] made.
pub struct Written {
    /// The CRLSet's bytes.
    pub crlset_bytes: usize,
    /// How long generating the CRLSet took.
    pub crlset_took: Duration,
    /// The filter's bytes.
    pub filter_bytes: usize,
    /// How long building the filter took.
    pub filter_took: Duration,
    /// The CT logs the filter covers.
    pub logs: usize,
}

/// Why [`write()`] could not make the data.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The CRLSet generator refused its input.
    #[error("CRLSet: {0}")]
    CrlSet(#[from] crlset::CrlSetError),
    /// The filter builder refused its input.
    #[error("CRLite filter: {0}")]
    Filter(crlite::GenError),
    /// The upki store could not be made.
    #[error("upki store: {0}")]
    Upki(crlite::GenError),
    /// A file could not be written.
    #[error("{file}: {source}")]
    Io {
        /// The file's name in the layout.
        file: &'static str,
        /// Its path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Makes `spec`'s CRLSet (`crlset`), filter (`crlite.filter`) and upki store (`upki/`) into
/// `dir`, in the layout `DataFiles::in_dir` reads, in that order.
pub fn write(dir: &Path, spec: Spec<'_>) -> Result<Written, WriteError> {
    let put = |file: &'static str, bytes: &[u8]| {
        let path = dir.join(file);
        std::fs::write(&path, bytes).map_err(|source| WriteError::Io { file, path, source })
    };
    let (issuers, scale, not_after) = spec.crlset;
    let t = Instant::now();
    let set = crlset(issuers, scale, not_after)?;
    let crlset_took = t.elapsed();
    put("crlset", &set)?;

    let (issuers, scale) = spec.filter;
    let coverage = coverage(issuers, spec.made_at);
    let t = Instant::now();
    let filter = filter(issuers, &coverage, scale).map_err(WriteError::Filter)?;
    let filter_took = t.elapsed();
    put("crlite.filter", &filter)?;
    upki_store(&dir.join("upki"), &filter, spec.made_at).map_err(WriteError::Upki)?;
    Ok(Written {
        crlset_bytes: set.len(),
        crlset_took,
        filter_bytes: filter.len(),
        filter_took,
        logs: coverage.len(),
    })
}
