//! How far `rustlsparallel` can gain on each chain, beside how far it got: the chain's path
//! checks timed alone (passed in, [`ChainChecks`]), its floor (their sum) and its largest
//! check; the bound serial ÷ (serial − floor + largest) — what overlapping every check but the
//! largest with it could give at best on two or more cores — and the share of the bound's gain
//! the measured ratio reached; then the same bound with the checks split over the machine's
//! threads ([`PathChecks::on_threads`]) and the share of that gain reached. Serial and parallel
//! are the run's `total-verification` medians (the tables' cells); the ratio's interval is the
//! two-sample Hodges–Lehmann one ([`RatioInterval`]). `export::markdown::verify` writes it.

pub use certbench_schema::records::verify::{ChainChecks, PathChecks};

use crate::stats::RatioInterval;
use crate::table::{SeedTable, build_seed_tables};
use certbench_schema::{Sample, Stage};

const SERIAL: &str = "rustlsserial";
const PARALLEL: &str = "rustlsparallel";

/// What overlapping a chain's checks could give at best.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// The sum of its checks, nanoseconds.
    pub floor: f64,
    /// Its largest check, nanoseconds.
    pub largest: f64,
    /// serial ÷ (serial − floor + largest): every check beside the largest on a thread of its
    /// own.
    pub bound: f64,
    /// The same with the checks split over the machine's threads.
    pub on_threads: f64,
}

impl Bound {
    fn of(path: &PathChecks, serial: f64) -> Bound {
        let floor = path.checks.iter().sum::<u64>() as f64;
        let largest = path.checks.iter().copied().max().unwrap_or(0) as f64;
        let over = |makespan: f64| serial / (serial - floor + makespan).max(1.0);
        Bound {
            floor,
            largest,
            bound: over(largest),
            on_threads: over(path.on_threads as f64),
        }
    }

    /// The share of `bound`'s gain a measured `ratio` reached; `None` when no gain is possible
    /// (a bound of ×1.02 or less).
    pub fn share(ratio: f64, bound: f64) -> Option<f64> {
        (bound > 1.02).then(|| (ratio - 1.0) / (bound - 1.0))
    }
}

/// One chain both rustls methods measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundRow {
    /// The chain's id.
    pub chain: String,
    /// Its key types, joined.
    pub keys: String,
    /// A P-384 signature on it.
    pub p384: bool,
    /// Samples in `rustlsserial`'s cell.
    pub n: usize,
    /// `rustlsserial`'s `total-verification` median, nanoseconds.
    pub serial: f64,
    /// `rustlsparallel`'s, nanoseconds.
    pub parallel: f64,
    /// serial ÷ parallel, by medians.
    pub ratio: f64,
    /// The Hodges–Lehmann ratio with its 95 % interval.
    pub interval: Option<RatioInterval>,
    /// The bound, for a chain with a path's checks.
    pub bound: Option<Bound>,
}

/// The figures under the table.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundSummary {
    /// The geometric mean of every chain's ratio.
    pub geomean: f64,
    /// Chains.
    pub chains: usize,
    /// The least ratio, and its chain.
    pub worst: f64,
    /// The chain of [`BoundSummary::worst`].
    pub worst_chain: String,
    /// Chains below ×0.97 by medians.
    pub below_by_medians: usize,
    /// Chains below ×0.97 by the Hodges–Lehmann ratio.
    pub below_by_ratio: usize,
    /// Chains whose whole interval is below ×0.97.
    pub below_by_interval: usize,
    /// The P-384 chains' geomean and count, when there are any.
    pub p384: Option<(f64, usize)>,
}

/// `rustlsparallel` against its bound: the rows, their summary, and the machine's thread
/// count the [`PathChecks::on_threads`] were computed for.
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelBound {
    /// One per chain, in the order given.
    pub rows: Vec<BoundRow>,
    /// Over the rows.
    pub summary: BoundSummary,
    /// The machine's threads.
    pub threads: usize,
}

/// A chain's row, when both methods have its `total-verification` median.
fn row(tables: &[SeedTable], samples: &[Sample], c: &ChainChecks) -> Option<BoundRow> {
    // The run's medians, from the same tables the output shows.
    let median = |method: &str| {
        let row = tables
            .iter()
            .filter(|t| t.method == method)
            .flat_map(|t| &t.rows)
            .find(|r| r.chain.as_deref() == Some(c.id.as_str()))?;
        let s = row.cells.get(&Stage::TotalVerification)?;
        Some((s.median, s.n))
    };
    // Every measured total-verification of one method on the chain (for the ratio's interval).
    let times = |method: &str| -> Vec<f64> {
        samples
            .iter()
            .filter(|s| !s.warmup && s.method == method && s.chain.as_deref() == Some(&c.id))
            .filter_map(|s| s.stage(Stage::TotalVerification))
            .map(|ns| ns as f64)
            .collect()
    };
    let (Some((serial, n)), Some((parallel, _))) = (median(SERIAL), median(PARALLEL)) else {
        return None;
    };
    Some(BoundRow {
        chain: c.id.clone(),
        keys: c.keys.clone(),
        p384: c.p384,
        n,
        serial,
        parallel,
        ratio: serial / parallel,
        interval: RatioInterval::of(&times(SERIAL), &times(PARALLEL), 0.95),
        bound: c.path.as_ref().map(|p| Bound::of(p, serial)),
    })
}

/// Geomean, worst chain, chains below ×0.97 (by medians, by the Hodges–Lehmann ratio, by the
/// whole interval), and the P-384 chains' geomean. `rows` is not empty.
fn summary(rows: &[BoundRow]) -> BoundSummary {
    let geomean = |v: &[f64]| (v.iter().map(|r| r.ln()).sum::<f64>() / v.len() as f64).exp();
    let all: Vec<f64> = rows.iter().map(|r| r.ratio).collect();
    let p384: Vec<f64> = rows.iter().filter(|r| r.p384).map(|r| r.ratio).collect();
    let worst = rows
        .iter()
        .min_by(|a, b| a.ratio.total_cmp(&b.ratio))
        .expect("rows");
    let below = |f: fn(&RatioInterval) -> f64| {
        rows.iter()
            .filter(|r| r.interval.as_ref().is_some_and(|i| f(i) < 0.97))
            .count()
    };
    BoundSummary {
        geomean: geomean(&all),
        chains: all.len(),
        worst: worst.ratio,
        worst_chain: worst.chain.clone(),
        below_by_medians: all.iter().filter(|r| **r < 0.97).count(),
        below_by_ratio: below(|i| i.ratio),
        below_by_interval: below(|i| i.high),
        p384: (!p384.is_empty()).then(|| (geomean(&p384), p384.len())),
    }
}

/// `rustlsparallel` against its bound: one row per chain of `chains` (in order) that both
/// `rustlsserial` and `rustlsparallel` measured, then the summary; `threads` is the machine's
/// thread count the [`PathChecks::on_threads`] were computed for. `None` when no chain has
/// both.
pub fn parallel_bound(
    samples: &[Sample],
    chains: &[ChainChecks],
    threads: usize,
) -> Option<ParallelBound> {
    let tables = build_seed_tables(samples);
    let rows: Vec<BoundRow> = chains
        .iter()
        .filter_map(|c| row(&tables, samples, c))
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(ParallelBound {
        summary: summary(&rows),
        rows,
        threads,
    })
}
