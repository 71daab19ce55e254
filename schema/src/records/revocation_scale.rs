//! `certbench revocation-scale`'s record: per revocation data set, its size and its lookup
//! cost cold and warm ([`Row`]), and a run's rows ([`Report`]).
//!
//! Quantiles are nearest-rank over the sorted samples (p10: the `⌈0.1·n⌉`-th smallest); the
//! median is the middle sample, or the mean of the two middle ones.

use serde::{Deserialize, Serialize};

use super::{Kind, Record};

/// One measured quantity's median and nearest-rank p10 and p90, in nanoseconds (a wider
/// summary than the analysis' `Spread` range: a lookup's outliers are not its cost).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quantiles {
    /// Samples.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// 10th percentile (nearest rank).
    pub p10: f64,
    /// 90th percentile (nearest rank).
    pub p90: f64,
}

impl Quantiles {
    /// The quantiles of `ns`; `None` when it is empty.
    pub fn of(ns: &[u64]) -> Option<Quantiles> {
        let mut v: Vec<f64> = ns.iter().map(|&x| x as f64).collect();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = match n {
            0 => return None,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        };
        let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Some(Quantiles {
            n: v.len(),
            median,
            p10: rank(0.10),
            p90: rank(0.90),
        })
    }
}

/// One data set, measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// What it is (`CRLSet, Chrome's size`, `CRL, 100,000 serials`, …).
    pub data: String,
    /// How it is checked (`crlset`, `crlite (gecko)`, `crlite (rustls)`, `upki`, `crl`).
    pub check: String,
    /// What it holds (serials, certificates, parents).
    pub holds: String,
    /// The published figure it stands beside.
    pub published: String,
    /// Milliseconds it took to generate (once; from the cache: the time it took then).
    pub generated_ms: f64,
    /// Read from the cache in this run.
    pub cached: bool,
    /// Bytes of its files.
    pub data_bytes: u64,
    /// Heap bytes the loaded structure keeps, by its own estimate (`None`: it keeps nothing
    /// between checks but a handle: upki reads its files per check).
    pub resident_bytes: Option<u64>,
    /// Resident-set growth around its first load (`/proc/self/statm`), bytes; allocator-
    /// dependent, negative when the allocator gave pages back.
    pub rss_delta_bytes: Option<i64>,
    /// Cold: a fresh load (read the file, parse or map it).
    pub cold: Quantiles,
    /// Warm: one check of a covered leaf that is not revoked.
    pub warm_good: Quantiles,
    /// Warm: one check of a revoked leaf.
    pub warm_revoked: Quantiles,
    /// The verdict on the leaf that is not revoked (every warm check had it).
    pub verdict_good: String,
    /// The verdict on the revoked leaf (every warm check had it).
    pub verdict_revoked: String,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The data sets, in the order measured.
    pub rows: Vec<Row>,
    /// Fresh loads per data set (K).
    pub cold_runs: usize,
    /// Warm checks per leaf and data set (N).
    pub warm_runs: usize,
    /// Where the data is cached.
    pub cache: String,
}

impl Record for Report {
    const KIND: Kind = Kind::RevocationScale;
}
