//! `certbench revocation-scale`: lookup cost against data size, per revocation data set (a
//! CRLSet, a CRLite filter in memory or through upki, one CRL) — the spread of the measured
//! times and the rows, with the published sizes beside ours; `export::markdown::revocation_scale`
//! writes the table.
//!
//! Quantiles are nearest-rank over the sorted samples (p10: the `⌈0.1·n⌉`-th smallest); the
//! median is the middle sample, or the mean of the two middle ones.

pub use certbench_schema::records::revocation_scale::{Quantiles, Report, Row};

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
