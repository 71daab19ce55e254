//! The measurements: a data set loaded (cold, and its resident bytes), and the warm checks of
//! both leaves, the data sets interleaved, every verdict checked.

use std::path::Path;
use std::time::Instant;

use certbench_core::methods::rustls_serial::signature_algorithms;
use certbench_core::revocation::crl::Crls;
use certbench_core::revocation::crlite::{Filter, UpkiStore};
use certbench_core::revocation::crlset::CrlSet;
use certbench_core::revocation::{PathParts, RevocationError, Status, VerifiedPath};

use super::cache::Ca;
use super::catalogue::Data;
use super::error::{ScaleError, ca_err, io};
use crate::run::schedule::permutation;

/// A data set loaded.
pub(super) enum Loaded {
    CrlSet(CrlSet),
    Filter(Filter),
    Upki(UpkiStore),
    Crl(Crls),
}

impl Loaded {
    /// Reads and parses (or opens) `set`'s data: what a cold check pays first.
    fn load(dir: &Path, set: Data) -> Result<Loaded, ScaleError> {
        let path = dir.join(set.file());
        let bytes = || std::fs::read(&path).map_err(io(&path));
        let loaded = match set {
            Data::CrlSet(..) => CrlSet::parse(&bytes()?).map(Loaded::CrlSet),
            Data::Gecko(_) | Data::Rustls(_) => Filter::load(&bytes()?).map(Loaded::Filter),
            Data::Upki(_) => UpkiStore::open(&path).map(Loaded::Upki),
            Data::Crl(_) => Crls::parse(&[bytes()?]).map(Loaded::Crl),
        };
        loaded.map_err(|source| ScaleError::Check {
            data: set.file(),
            source,
        })
    }

    /// One check of `path` at `now`, as `set` checks.
    fn check(
        &self,
        set: Data,
        path: &VerifiedPath<'_>,
        now: u64,
    ) -> Result<Status, RevocationError> {
        match (self, set) {
            (Loaded::CrlSet(s), _) => s.check_path(path, now),
            (Loaded::Filter(f), Data::Gecko(_)) => f.check_gecko(path, now),
            (Loaded::Filter(f), _) => f.check_rustls(path),
            (Loaded::Upki(u), _) => u.check(path),
            (Loaded::Crl(c), _) => c.check_path(path, signature_algorithms(), now),
        }
    }

    /// The bytes of data a check reads.
    pub(super) fn data_bytes(&self) -> u64 {
        match self {
            Loaded::CrlSet(s) => s.data_bytes(),
            Loaded::Filter(f) => f.data_bytes(),
            Loaded::Upki(u) => u.data_bytes(),
            Loaded::Crl(c) => c.data_bytes(),
        }
    }

    /// The bytes it keeps in memory, by its own estimate (`None`: upki reads its files).
    pub(super) fn resident_bytes(&self) -> Option<u64> {
        match self {
            Loaded::CrlSet(s) => Some(s.resident_bytes()),
            Loaded::Filter(f) => Some(f.resident_bytes()),
            Loaded::Upki(_) => None,
            Loaded::Crl(c) => Some(c.resident_bytes()),
        }
    }
}

/// Resident bytes now, from `/proc/self/statm` (its second field, in pages).
fn statm_resident() -> Option<i64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: i64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Nanoseconds since `t`.
fn elapsed_ns(t: Instant) -> u64 {
    t.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64
}

/// One data set through the run.
pub(super) struct Measured {
    pub(super) set: Data,
    pub(super) loaded: Loaded,
    pub(super) generated_ms: f64,
    pub(super) cached: bool,
    pub(super) rss_delta: Option<i64>,
    pub(super) cold: Vec<u64>,
    pub(super) warm: [Vec<u64>; 2],
}

impl Measured {
    /// `set` loaded for the first time (the RSS growth around it measured), before any timed
    /// run, with room for `cold_runs` fresh loads; `generated_ms` and `cached` say how it was
    /// made.
    pub(super) fn first_load(
        dir: &Path,
        set: Data,
        (generated_ms, cached): (f64, bool),
        cold_runs: usize,
    ) -> Result<Measured, ScaleError> {
        let before = statm_resident();
        let loaded = Loaded::load(dir, set)?;
        let rss_delta = before.zip(statm_resident()).map(|(a, b)| b - a);
        Ok(Measured {
            set,
            loaded,
            generated_ms,
            cached,
            rss_delta,
            cold: Vec::with_capacity(cold_runs),
            warm: [Vec::new(), Vec::new()],
        })
    }
}

/// K fresh loads per data set, the data sets in turn.
pub(super) fn cold(dir: &Path, measured: &mut [Measured], runs: usize) -> Result<(), ScaleError> {
    for _ in 0..runs {
        for m in measured.iter_mut() {
            let t = Instant::now();
            let loaded = Loaded::load(dir, m.set)?;
            m.cold.push(elapsed_ns(t));
            drop(std::hint::black_box(loaded));
        }
    }
    Ok(())
}

/// N checks of each leaf per data set, interleaved by the crate's one schedule: round `i`
/// checks every data set in the order of row `i` of its balanced Latin square
/// ([`permutation`]); every verdict checked. The verdicts, as samples spell them.
pub(super) fn warm(
    ca: &Ca,
    measured: &mut [Measured],
    runs: usize,
) -> Result<[&'static str; 2], ScaleError> {
    let good = PathParts::from_native(vec![&ca.good[..], &ca.der[..]]).map_err(ca_err)?;
    let revoked = PathParts::from_native(vec![&ca.revoked[..], &ca.der[..]]).map_err(ca_err)?;
    let paths = [
        ("not-revoked", good.view(), Status::Good),
        ("revoked", revoked.view(), Status::Revoked { depth: 0 }),
    ];
    let n = measured.len();
    for round in 0..runs {
        for j in permutation(n, round) {
            let m = &mut measured[j];
            for (k, (leaf, path, want)) in paths.iter().enumerate() {
                let t = Instant::now();
                let got = m.loaded.check(m.set, path, ca.made_at);
                let ns = elapsed_ns(t);
                let got = got.map_err(|source| ScaleError::Check {
                    data: m.set.file(),
                    source,
                })?;
                if got != *want {
                    return Err(ScaleError::Verdict {
                        data: m.set.file(),
                        leaf,
                        got,
                        want: *want,
                    });
                }
                m.warm[k].push(ns);
            }
        }
    }
    Ok([paths[0].2.name(), paths[1].2.name()])
}
