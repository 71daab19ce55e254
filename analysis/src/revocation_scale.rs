//! `certbench revocation-scale`: lookup cost against data size, per revocation data set (a
//! CRLSet, a CRLite filter in memory or through upki, one CRL) — the spread of the measured
//! times and the table, with the published sizes beside ours.
//!
//! Quantiles are nearest-rank over the sorted samples (p10: the `⌈0.1·n⌉`-th smallest); the
//! median is the middle sample, or the mean of the two middle ones.

use serde::{Deserialize, Serialize};

use crate::units::human;

/// The spread of one measured quantity, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Samples.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// 10th percentile (nearest rank).
    pub p10: f64,
    /// 90th percentile (nearest rank).
    pub p90: f64,
}

impl Spread {
    /// The spread of `ns`; `None` when it is empty.
    pub fn of(ns: &[u64]) -> Option<Spread> {
        let mut v: Vec<f64> = ns.iter().map(|&x| x as f64).collect();
        let median = crate::stats::middle(&mut v)?; // sorts `v`
        let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Some(Spread {
            n: v.len(),
            median,
            p10: rank(0.10),
            p90: rank(0.90),
        })
    }

    /// `median [p10–p90] (n)`, in human units.
    pub fn cell(&self) -> String {
        format!(
            "{} [{}–{}] (n={})",
            human(self.median),
            human(self.p10),
            human(self.p90),
            self.n
        )
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
    pub cold: Spread,
    /// Warm: one check of a covered leaf that is not revoked.
    pub warm_good: Spread,
    /// Warm: one check of a revoked leaf.
    pub warm_revoked: Spread,
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

fn bytes(b: u64) -> String {
    match b {
        b if b >= 10_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 10_000 => format!("{:.1} KB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

fn signed_bytes(b: i64) -> String {
    match b < 0 {
        true => format!("−{}", bytes(b.unsigned_abs())),
        false => bytes(b as u64),
    }
}

impl Report {
    /// The Markdown table and its notes.
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "| data | check | holds | published | data bytes | resident (estimate) | RSS Δ first load | cold: load | warm: not revoked | warm: revoked | verdicts |\n\
             | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        );
        for r in &self.rows {
            let resident = r
                .resident_bytes
                .map_or_else(|| "— (files read per check)".into(), bytes);
            let rss = r.rss_delta_bytes.map_or_else(|| "—".into(), signed_bytes);
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} |\n",
                r.data,
                r.check,
                r.holds,
                r.published,
                bytes(r.data_bytes),
                resident,
                rss,
                r.cold.cell(),
                r.warm_good.cell(),
                r.warm_revoked.cell(),
                r.verdict_good,
                r.verdict_revoked,
            ));
        }
        out.push_str(&format!(
            "\nTimes: median [p10–p90] (n samples), monotonic clock. Cold: a fresh load in this process \
             (the file read from the page cache, then parsed, deserialised or, for upki, opened and \
             checked), {k} per data set, the data sets in turn. Warm: one check of the path (leaf, \
             CA) with the data loaded, {n} per leaf and data set, every data set's checks interleaved; \
             every check's verdict was the one shown. Resident: the structure's own estimate of its \
             heap; RSS Δ: `/proc/self/statm` resident pages before and after its first load (the \
             allocator's doing as much as the data's).\n\n",
            k = self.cold_runs,
            n = self.warm_runs,
        ));
        out.push_str("Generation (once, cached in `");
        out.push_str(&self.cache);
        out.push_str("`): ");
        // One entry per data set (CRLite's in-memory rows share a filter; upki's store is
        // written from it).
        let mut made: Vec<String> = Vec::new();
        for (i, r) in self.rows.iter().enumerate() {
            if self.rows[..i].iter().any(|o| o.data == r.data) {
                continue;
            }
            let took = human(r.generated_ms * 1e6);
            let when = if r.cached { "earlier run" } else { "this run" };
            made.push(format!("{} {took} ({when})", r.data));
        }
        out.push_str(&made.join("; "));
        out.push_str(".\n");
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A CRLSet read from the cache, and a CRLite filter made this run (two checks of it).
    pub(crate) fn report() -> Report {
        let spread = |ns: &[u64]| Spread::of(ns).unwrap();
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
    fn the_table_and_its_notes() {
        crate::export::golden::check("revocation-scale.md", &report().markdown());
    }

    #[test]
    fn spread_is_nearest_rank() {
        let s = Spread::of(&(1..=10).collect::<Vec<u64>>()).unwrap();
        assert_eq!((s.n, s.median, s.p10, s.p90), (10, 5.5, 1.0, 9.0));
        assert!(Spread::of(&[]).is_none());
        assert_eq!(Spread::of(&[7]).unwrap().p90, 7.0);
    }
}
