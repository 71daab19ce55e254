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

/// A set of values as its median ([`middle`]) and its range, `lo` the least value and `hi`
/// the greatest: the one summary of a median over sites, over chains, over a method's runs,
/// of per-site ratios. Every figure of a range in the tables and the answer is one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// The middle value, or the mean of the two middle ones.
    pub median: f64,
    /// The least value.
    pub lo: f64,
    /// The greatest value.
    pub hi: f64,
}

impl Spread {
    /// The spread of `values`; `None` when there is none.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut v = values.to_vec();
        let median = middle(&mut v)?; // sorts `v`
        Some(Spread {
            median,
            lo: v[0],
            hi: v[v.len() - 1],
        })
    }

    /// The median of `values` alone (a [`Spread`]'s); `None` when there is none.
    pub fn median_of(values: impl IntoIterator<Item = f64>) -> Option<f64> {
        Spread::of(&values.into_iter().collect::<Vec<f64>>()).map(|s| s.median)
    }

    /// The spread of the values `f` gives of each of `items`.
    pub fn of_each<T>(items: impl IntoIterator<Item = T>, f: impl Fn(T) -> f64) -> Option<Spread> {
        Spread::of(&items.into_iter().map(f).collect::<Vec<f64>>())
    }
}

/// The ratio of two samples' typical values, `a` over `b`, with its confidence interval: the
/// two-sample Hodges–Lehmann estimate on logarithms (the median of every pairwise
/// `ln aᵢ − ln bⱼ`, exponentiated) and its distribution-free interval from the Mann–Whitney
/// statistic, as R's `wilcox.test(log(a), log(b), conf.int = TRUE)` gives it with the normal
/// approximation (Hollander & Wolfe, *Nonparametric Statistical Methods*, 4.3): the interval
/// runs from the `k`-th smallest to the `k`-th largest pairwise difference, with
/// `k = ⌊mn/2 − z·√(mn(m+n+1)/12)⌋`.
///
/// It uses every sample of both sides, so it moves less than the ratio of two medians when
/// the timings fall into clusters (a median can sit in either of two clusters), and the
/// interval says whether a difference is more than noise. At most 2,000 samples a side are
/// used (every ⌈n/2,000⌉-th of the sorted values beyond that: a wider, so conservative,
/// interval). `None` when a side has fewer than two positive values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatioInterval {
    /// The estimate of `a / b`.
    pub ratio: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

impl RatioInterval {
    /// [`RatioInterval`] of `a` over `b` at `confidence` (e.g. 0.95).
    pub fn of(a: &[f64], b: &[f64], confidence: f64) -> Option<RatioInterval> {
        const MAX: usize = 2_000;
        let logs = |v: &[f64]| {
            let mut l: Vec<f64> = v.iter().filter(|x| **x > 0.0).map(|x| x.ln()).collect();
            l.sort_by(f64::total_cmp);
            let step = l.len().div_ceil(MAX).max(1);
            l.into_iter().step_by(step).collect::<Vec<f64>>()
        };
        let (a, b) = (logs(a), logs(b));
        let (m, n) = (a.len(), b.len());
        if m < 2 || n < 2 || !(0.0..1.0).contains(&confidence) {
            return None;
        }
        let mut d: Vec<f64> = a
            .iter()
            .flat_map(|x| b.iter().map(move |y| x - y))
            .collect();
        let z = statrs::distribution::Normal::standard().inverse_cdf(0.5 + confidence / 2.0);
        let (mf, nf) = (m as f64, n as f64);
        let k = (mf * nf / 2.0 - z * (mf * nf * (mf + nf + 1.0) / 12.0).sqrt()).floor();
        let k = (k.max(0.0) as usize).min(d.len() - 1);
        let total = d.len();
        let mut nth = |i: usize| *d.select_nth_unstable_by(i, f64::total_cmp).1;
        let centre = if total % 2 == 1 {
            nth(total / 2)
        } else {
            (nth(total / 2 - 1) + nth(total / 2)) / 2.0
        };
        let (low, high) = (nth(k), nth(total - 1 - k));
        Some(RatioInterval {
            ratio: centre.exp(),
            low: low.exp(),
            high: high.exp(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratio_interval_finds_a_scale_and_brackets_it() {
        // b is a scaled by 1/2 exactly: every estimate is 2, and the interval holds it.
        let a: Vec<f64> = (1..=40).map(|i| 100.0 + f64::from(i * i % 17)).collect();
        let b: Vec<f64> = a.iter().map(|x| x / 2.0).collect();
        let r = RatioInterval::of(&a, &b, 0.95).unwrap();
        assert!((r.ratio - 2.0).abs() < 1e-12, "{r:?}");
        assert!(
            r.low < 2.0 && r.high > 2.0 && r.low > 1.8 && r.high < 2.2,
            "{r:?}"
        );
        // Identical samples: 1, inside the interval; swapping the sides inverts everything.
        let same = RatioInterval::of(&a, &a, 0.95).unwrap();
        assert!((same.ratio - 1.0).abs() < 1e-12 && same.low < 1.0 && same.high > 1.0);
        let back = RatioInterval::of(&b, &a, 0.95).unwrap();
        assert!((back.ratio - 0.5).abs() < 1e-12);
        assert!((back.low - 1.0 / r.high).abs() < 1e-12);
        // Hand-computed: a = {2, 4, 8}, b = {1, 2}: log₂ differences {1, 0, 2, 1, 3, 2} →
        // median 1.5 → ratio 2^1.5; with k = ⌊3 − 1.96·√3⌋ < 0 → 0, the interval is the
        // extremes, 2^0 and 2^3.
        let h = RatioInterval::of(&[2.0, 4.0, 8.0], &[1.0, 2.0], 0.95).unwrap();
        assert!((h.ratio - 2f64.powf(1.5)).abs() < 1e-9, "{h:?}");
        assert!(
            (h.low - 1.0).abs() < 1e-9 && (h.high - 8.0).abs() < 1e-9,
            "{h:?}"
        );
        // A wider confidence, a wider interval; too few values, none.
        let wide = RatioInterval::of(&a, &b, 0.99).unwrap();
        assert!(wide.low <= r.low && wide.high >= r.high);
        assert!(RatioInterval::of(&[1.0], &b, 0.95).is_none());
    }

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
    fn a_spread_is_the_middle_and_the_range() {
        let s = Spread::of(&[3.0, 1.0, 10.0, 2.0]).unwrap();
        assert_eq!((s.median, s.lo, s.hi), (2.5, 1.0, 10.0));
        let s = Spread::of_each([5u64, 1, 3], |x| x as f64).unwrap();
        assert_eq!((s.median, s.lo, s.hi), (3.0, 1.0, 5.0));
        assert_eq!(Spread::of(&[]), None);
    }

    #[test]
    fn single_value_has_zero_spread_and_empty_is_none() {
        let s = Summary::of(&[42]).unwrap();
        assert_eq!((s.mean, s.median, s.p90, s.sd), (42.0, 42.0, 42.0, 0.0));
        assert_eq!((s.ci95_low, s.ci95_high), (42.0, 42.0));
        assert!(Summary::of(&[]).is_none());
    }
}
