//! `certbench revocation-scale`: lookup cost against data size, per revocation data set (a
//! CRLSet, a CRLite filter in memory or through upki, one CRL) — the spread of the measured
//! times and the rows, with the published sizes beside ours; `export::markdown::revocation_scale`
//! writes the table.
//!
//! Quantiles are nearest-rank over the sorted samples (p10: the `⌈0.1·n⌉`-th smallest); the
//! median is the middle sample, or the mean of the two middle ones.

use serde::{Deserialize, Serialize};

/// One measured quantity's median and nearest-rank p10 and p90, in nanoseconds (a wider
/// summary than [`crate::stats::Spread`]'s range: a lookup's outliers are not its cost).
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
        let median = crate::stats::middle(&mut v)?; // sorts `v`
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A CRLSet read from the cache, and a CRLite filter made this run (two checks of it).
    pub(crate) fn report() -> Report {
        let spread = |ns: &[u64]| Quantiles::of(ns).unwrap();
        let row = |data: &str, check: &str, resident, rss, cached| Row {
            data: data.into(),
            check: check.into(),
            holds: "1,000 serials".into(),
            published: "Chrome: 600 KB".into(),
            generated_ms: 12.5,
            cached,
            data_bytes: 250_000,
            resident_bytes: resident,
            rss_delta_bytes: rss,
            cold: spread(&[1_000_000, 1_200_000, 900_000]),
            warm_good: spread(&[100, 120, 90, 95]),
            warm_revoked: spread(&[110]),
            verdict_good: "good".into(),
            verdict_revoked: "revoked".into(),
        };
        Report {
            rows: vec![
                row("CRLSet", "crlset", Some(300_000), Some(-40_960), true),
                row("CRLite", "crlite (gecko)", None, None, false),
                row(
                    "CRLite",
                    "crlite (rustls)",
                    Some(12_000_000),
                    Some(8_192),
                    false,
                ),
            ],
            cold_runs: 3,
            warm_runs: 4,
            cache: ".certbench-cache/revocation".into(),
        }
    }

    #[test]
    fn a_report_of_three_rows() {
        let r = report();
        assert_eq!(r.rows[0].warm_good.median, 97.5);
    }

    #[test]
    fn spread_is_nearest_rank() {
        let s = Quantiles::of(&(1..=10).collect::<Vec<u64>>()).unwrap();
        assert_eq!((s.n, s.median, s.p10, s.p90), (10, 5.5, 1.0, 9.0));
        assert!(Quantiles::of(&[]).is_none());
        assert_eq!(Quantiles::of(&[7]).unwrap().p90, 7.0);
    }
}
