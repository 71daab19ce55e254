//! A/B comparison of two sets of samples: per site, method and stage, is the candidate
//! faster, slower, or within noise of the baseline?
//!
//! The test is Welch's: the 95 % interval of the difference of means
//! `(mean_B − mean_A) ± t(0.975, ν) · √(s²_A/n_A + s²_B/n_B)` with Welch–Satterthwaite's ν,
//! shown as an interval of the ratio `mean_B / mean_A` (the difference's interval divided by
//! `mean_A`, plus one). A change is *significant* when that interval excludes 1 **and** the
//! ratio moves by at least `min_change` (default 2 %): like rustls' ci-bench, which only
//! flags changes above a noise threshold, a statistically clear but tiny shift is not
//! reported as a change.

use serde::Serialize;

use crate::stats::Summary;
use crate::table::build_seed_tables;
use certbench_schema::{Sample, Stage};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The two runs an A/B comparison read, as its title names them.
#[derive(Clone, Debug, PartialEq)]
pub struct AbRuns {
    /// The baseline's file.
    pub baseline: String,
    /// Its samples.
    pub baseline_samples: usize,
    /// The candidate's file.
    pub candidate: String,
    /// Its samples.
    pub candidate_samples: usize,
}

/// The verdict on one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// The candidate is significantly faster.
    Faster,
    /// The candidate is significantly slower.
    Slower,
    /// No significant change.
    Noise,
    /// Fewer than two samples on a side: no interval.
    TooFew,
}

impl Change {
    /// As shown in tables.
    pub fn label(self) -> &'static str {
        match self {
            Change::Faster => "faster",
            Change::Slower => "slower",
            Change::Noise => "within noise",
            Change::TooFew => "n too small",
        }
    }
}

/// One compared cell.
#[derive(Clone, Debug, Serialize)]
pub struct AbRow {
    /// Row label (site, or site [chain source]).
    pub site: String,
    /// The method, with what tells its configuration apart in brackets ([`SeedTable::name`](crate::table::SeedTable::name)).
    pub method: String,
    /// Stage.
    pub stage: Stage,
    /// Baseline statistics.
    pub baseline: Summary,
    /// Candidate statistics.
    pub candidate: Summary,
    /// `mean_B / mean_A`.
    pub ratio: f64,
    /// 95 % interval of the ratio (Welch).
    pub ratio_low: f64,
    /// 95 % interval of the ratio (Welch).
    pub ratio_high: f64,
    /// The verdict.
    pub change: Change,
}

/// Compares every (site, method, stage) cell present in both sets under the same
/// configuration (library versions apart: those may differ, and the row names them).
/// Warm-up samples are left out. `min_change` is the smallest relative change reported (0.02 = 2 %).
pub fn compare(baseline: &[Sample], candidate: &[Sample], min_change: f64) -> Vec<AbRow> {
    let a = build_seed_tables(baseline);
    let b = build_seed_tables(candidate);
    let mut rows = Vec::new();
    for ta in &a {
        // Only the same method under the same configuration is compared; the library
        // versions may differ (comparing two builds is what A/B is for), and the row says so.
        let unversioned = |t: &crate::table::SeedTable| {
            let mut c = t.config.clone();
            c.versions.clear();
            c
        };
        let Some(tb) = b
            .iter()
            .find(|t| t.method == ta.method && unversioned(t) == unversioned(ta))
        else {
            continue;
        };
        let mut method = ta.name();
        if tb.config.versions != ta.config.versions {
            let show = |c: &certbench_schema::Config| {
                c.versions
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            method.push_str(&format!(" ({} → {})", show(&ta.config), show(&tb.config)));
        }
        for ra in &ta.rows {
            let Some(rb) = tb.rows.iter().find(|r| r.label == ra.label) else {
                continue;
            };
            for (stage, sa) in &ra.cells {
                let Some(sb) = rb.cells.get(stage) else {
                    continue;
                };
                if sa.max == 0.0 && sb.max == 0.0 {
                    continue; // a cached stage (`0 (cached)`) on both sides: nothing to compare
                }
                rows.push(row(&ra.label, &method, *stage, sa, sb, min_change));
            }
        }
    }
    rows
}

fn row(site: &str, method: &str, stage: Stage, a: &Summary, b: &Summary, min: f64) -> AbRow {
    let ratio = if a.mean > 0.0 { b.mean / a.mean } else { 1.0 };
    let (low, high, change) = if a.n < 2 || b.n < 2 || a.mean <= 0.0 {
        (ratio, ratio, Change::TooFew)
    } else {
        let (va, vb) = (a.sd * a.sd / a.n as f64, b.sd * b.sd / b.n as f64);
        let se = (va + vb).sqrt();
        let half = if se > 0.0 {
            // Welch–Satterthwaite degrees of freedom.
            let df = (va + vb).powi(2)
                / (va * va / (a.n - 1) as f64 + vb * vb / (b.n - 1) as f64).max(f64::MIN_POSITIVE);
            let t = StudentsT::new(0.0, 1.0, df.max(1.0))
                .map(|d| d.inverse_cdf(0.975))
                .unwrap_or(f64::INFINITY);
            t * se
        } else {
            0.0
        };
        let d = b.mean - a.mean;
        let (low, high) = (1.0 + (d - half) / a.mean, 1.0 + (d + half) / a.mean);
        let change = if low > 1.0 && ratio >= 1.0 + min {
            Change::Slower
        } else if high < 1.0 && ratio <= 1.0 / (1.0 + min) {
            Change::Faster
        } else {
            Change::Noise
        };
        (low, high, change)
    };
    AbRow {
        site: site.to_owned(),
        method: method.to_owned(),
        stage,
        baseline: a.clone(),
        candidate: b.clone(),
        ratio,
        ratio_low: low,
        ratio_high: high,
        change,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certbench_schema::{SCHEMA_VERSION, SampleMeta, Source, Verdict};

    fn samples(values: &[u64], factor: u64) -> Vec<Sample> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| Sample {
                schema: SCHEMA_VERSION,
                source: Source::Verify,
                method: "rustlsserial".into(),
                config: Default::default(),
                port: None,
                path: None,
                site: "example.com".into(),
                chain: None,
                run: i as u32,
                warmup: false,
                stages: [(Stage::Verify, v * factor)].into_iter().collect(),
                verdict: Verdict::Ok,
                meta: SampleMeta::default(),
            })
            .collect()
    }

    /// Noisy values around 100 µs.
    const V: &[u64] = &[
        101_000, 98_000, 103_500, 99_200, 100_700, 97_900, 102_300, 100_100, 99_600, 104_000,
        98_800, 101_900,
    ];

    #[test]
    fn a_doubling_is_slower_and_a_halving_faster() {
        let rows = compare(&samples(V, 1), &samples(V, 2), 0.02);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(r.change, Change::Slower);
        assert!((r.ratio - 2.0).abs() < 1e-9);
        assert!(r.ratio_low > 1.9 && r.ratio_high < 2.1, "{r:?}");
        for f in [
            ("md", crate::export::Format::Markdown),
            ("csv", crate::export::Format::Csv),
        ] {
            crate::export::golden::check(
                &format!("ab.{}", f.0),
                &crate::export::render_ab(&rows, f.1, 0.02),
            );
        }
        let rows = compare(&samples(V, 2), &samples(V, 1), 0.02);
        assert_eq!(rows[0].change, Change::Faster);
    }

    #[test]
    fn the_same_data_twice_is_within_noise() {
        let rows = compare(&samples(V, 1), &samples(V, 1), 0.02);
        assert_eq!(rows[0].change, Change::Noise);
        assert!(rows[0].ratio_low < 1.0 && rows[0].ratio_high > 1.0);
        // A shuffled second run of the same distribution too.
        let mut w = V.to_vec();
        w.reverse();
        w.rotate_left(5);
        assert_eq!(
            compare(&samples(V, 1), &samples(&w, 1), 0.02)[0].change,
            Change::Noise
        );
    }

    #[test]
    fn a_one_percent_shift_is_not_a_change_and_one_sample_is_too_few() {
        let shifted: Vec<u64> = V.iter().map(|v| v + 1_000).collect();
        assert_eq!(
            compare(&samples(V, 1), &samples(&shifted, 1), 0.02)[0].change,
            Change::Noise
        );
        assert_eq!(
            compare(&samples(&V[..1], 1), &samples(V, 2), 0.02)[0].change,
            Change::TooFew
        );
    }
}
