//! Summary statistics over nanosecond samples, computed with `statrs`.
//!
//! Quantiles (median, p90, p99) use statrs' estimator (Hyndman & Fan type 8, "R-8"); the
//! 95 % confidence interval of the mean is Student's t: `mean ± t(0.975, n-1) · sd / √n`.
//! Outliers are flagged with Tukey's fences: below Q1 − 1.5·IQR or above Q3 + 1.5·IQR (the
//! quartiles by the same estimator), as hyperfine warns about them.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::statistics::{Data, Distribution, Max, Min, OrderStatistics};

/// Statistics of one cell (one method × site × stage), all in nanoseconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub n: usize,
    /// Arithmetic mean (the 2017 experiment's figure).
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Sample standard deviation (n − 1); 0 when n = 1.
    pub sd: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Lower bound of the 95 % confidence interval of the mean (= mean when n = 1).
    pub ci95_low: f64,
    /// Upper bound of the 95 % confidence interval of the mean (= mean when n = 1).
    pub ci95_high: f64,
    /// Samples outside Tukey's fences (Q1 − 1.5·IQR, Q3 + 1.5·IQR).
    #[serde(default)]
    pub outliers: usize,
}

impl Summary {
    /// Summarises `values` (nanoseconds). `None` when there are no values.
    pub fn of(values: &[u64]) -> Option<Summary> {
        if values.is_empty() {
            return None;
        }
        let n = values.len();
        let mut data = Data::new(values.iter().map(|&v| v as f64).collect::<Vec<f64>>());
        let mean = data.mean().expect("non-empty");
        let sd = if n > 1 {
            data.std_dev().expect("n > 1")
        } else {
            0.0
        };
        let half_width = if n > 1 {
            let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
                .expect("n - 1 > 0 degrees of freedom")
                .inverse_cdf(0.975);
            t * sd / (n as f64).sqrt()
        } else {
            0.0
        };
        let (q1, q3) = (data.lower_quartile(), data.upper_quartile());
        let fence = 1.5 * (q3 - q1);
        let outliers = values
            .iter()
            .filter(|&&v| (v as f64) < q1 - fence || (v as f64) > q3 + fence)
            .count();
        Some(Summary {
            n,
            outliers,
            mean,
            median: data.median(),
            p90: data.quantile(0.90),
            p99: data.quantile(0.99),
            sd,
            min: data.min(),
            max: data.max(),
            ci95_low: mean - half_width,
            ci95_high: mean + half_width,
        })
    }
}

/// The median of `v` as its middle element, or the mean of the two middle ones (sorts `v`);
/// `None` when `v` is empty. For medians of medians and of ratios, where the summaries'
/// quantile estimator (above) is not wanted.
pub fn middle(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn matches_hand_computed_values() {
        // 1..=10: mean 5.5; median 5.5; sd = sqrt(82.5/9) = 3.0276503540974917.
        // R-8 p90: h = (10 + 1/3)·0.9 + 1/3 = 9.6333…, x9 + 0.6333…·(x10 − x9) = 9.6333….
        // CI: t(0.975, 9) = 2.2621571627409915 → half width 2.1658506...
        let v: Vec<u64> = (1..=10).collect();
        let s = Summary::of(&v).unwrap();
        assert_eq!(s.n, 10);
        assert!(close(s.mean, 5.5));
        assert!(close(s.median, 5.5));
        assert!(close(s.sd, 3.0276503540974917), "{}", s.sd);
        assert!(
            close(s.p90, (10.0 + 1.0 / 3.0) * 0.9 + 1.0 / 3.0),
            "{}",
            s.p90
        );
        let half = 2.2621571627409915 * 3.0276503540974917 / 10f64.sqrt();
        assert!(close(s.ci95_low, 5.5 - half), "{}", s.ci95_low);
        assert!(close(s.ci95_high, 5.5 + half));
        assert_eq!((s.min, s.max), (1.0, 10.0));
    }

    #[test]
    fn tukey_fences_flag_the_far_value_only() {
        // 1..=10 and 100: R-8 quartiles of 11 values: Q1 = x(3 + 2/3·... ) computed by hand:
        // h = (11 + 1/3)·p + 1/3 → p = .25: 3.1667 → 3.1667; p = .75: 8.8333 → 8.8333.
        // IQR 5.6667, upper fence 8.8333 + 8.5 = 17.33: only 100 is out.
        let mut v: Vec<u64> = (1..=10).collect();
        v.push(100);
        let s = Summary::of(&v).unwrap();
        assert_eq!(s.outliers, 1);
        assert_eq!(
            Summary::of(&(1..=10).collect::<Vec<u64>>())
                .unwrap()
                .outliers,
            0
        );
    }

    #[test]
    fn single_value_has_zero_spread_and_empty_is_none() {
        let s = Summary::of(&[42]).unwrap();
        assert_eq!((s.mean, s.median, s.p90, s.sd), (42.0, 42.0, 42.0, 0.0));
        assert_eq!((s.ci95_low, s.ci95_high), (42.0, 42.0));
        assert!(Summary::of(&[]).is_none());
    }
}
