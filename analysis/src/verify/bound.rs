//! How far `rustlsparallel` can gain on each chain, beside how far it got: the chain's path
//! checks timed alone (passed in, [`ChainChecks`]), its floor (their sum) and its largest
//! check; the bound serial ÷ (serial − floor + largest) — what overlapping every check but the
//! largest with it could give at best on two or more cores — and the share of the bound's gain
//! the measured ratio reached; then the same bound with the checks split over the machine's
//! threads ([`PathChecks::on_threads`]) and the share of that gain reached. Serial and parallel
//! are the run's `total-verification` medians (the tables' cells); the ratio's interval is the
//! two-sample Hodges–Lehmann one ([`RatioInterval`]).

use crate::export::markdown::table::plain_table;
use crate::schema::{Sample, Stage};
use crate::stats::RatioInterval;
use crate::table::{SeedTable, build_seed_tables};
use crate::units::human;

const SERIAL: &str = "rustlsserial";
const PARALLEL: &str = "rustlsparallel";

/// One chain of the corpus, with its path's checks timed alone.
#[derive(Clone, Debug)]
pub struct ChainChecks {
    /// The chain's id (its samples' `chain`).
    pub id: String,
    /// Its key types, joined for the table (`ecdsa-p256, rsa-2048`).
    pub keys: String,
    /// A P-384 signature somewhere on the sent chain (the root's on the last intermediate
    /// included): a check worth overlapping even with the pool asleep.
    pub p384: bool,
    /// Its path's checks, for a chain with a path to a root and at least one check.
    pub path: Option<PathChecks>,
}

/// A path's checks timed alone.
#[derive(Clone, Debug)]
pub struct PathChecks {
    /// Each check's median time alone, nanoseconds (not empty).
    pub checks: Vec<u64>,
    /// The least time the machine's threads can take to make them, each check whole on one
    /// thread (`certbench::bench::floor::makespan_bound`), nanoseconds.
    pub on_threads: u64,
}

/// A chain's (floor, largest check, bound, bound on the machine's threads).
type Bound = (f64, f64, f64, f64);

fn bound_of(path: &PathChecks, serial: f64) -> Bound {
    let floor = path.checks.iter().sum::<u64>() as f64;
    let largest = path.checks.iter().copied().max().unwrap_or(0) as f64;
    let over = |makespan: f64| serial / (serial - floor + makespan).max(1.0);
    (floor, largest, over(largest), over(path.on_threads as f64))
}

/// The share of the bound's gain a ratio reached.
fn share(ratio: f64, bound: f64) -> String {
    if bound > 1.02 {
        format!("{:.0} %", 100.0 * (ratio - 1.0) / (bound - 1.0))
    } else {
        "no gain possible".to_owned()
    }
}

/// One chain's measured ratio: (serial ÷ parallel, P-384, chain, Hodges–Lehmann interval).
type Ratio = (f64, bool, String, Option<RatioInterval>);

/// A chain's row and its ratio, when both methods have its `total-verification` median.
fn row(tables: &[SeedTable], samples: &[Sample], c: &ChainChecks) -> Option<(Vec<String>, Ratio)> {
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
    let ratio = serial / parallel;
    let interval = RatioInterval::of(&times(SERIAL), &times(PARALLEL), 0.95);
    let bound = c.path.as_ref().map(|p| bound_of(p, serial));
    let or_dash = |f: &dyn Fn(Bound) -> String| bound.map_or("—".to_owned(), f);
    let cells = vec![
        c.id.clone(),
        c.keys.clone(),
        n.to_string(),
        human(serial),
        human(parallel),
        format!("×{ratio:.2}"),
        interval.map_or("—".to_owned(), |i| {
            format!("×{:.3} [{:.3}, {:.3}]", i.ratio, i.low, i.high)
        }),
        or_dash(&|b| human(b.0)),
        or_dash(&|b| human(b.1)),
        or_dash(&|b| format!("×{:.2}", b.2)),
        or_dash(&|b| share(ratio, b.2)),
        or_dash(&|b| format!("×{:.2}", b.3)),
        or_dash(&|b| share(ratio, b.3)),
    ];
    Some((cells, (ratio, c.p384, c.id.clone(), interval)))
}

/// The line under the table: geomean, worst chain, chains below ×0.97 (by medians, by the
/// Hodges–Lehmann ratio, by the whole interval), and the P-384 chains' geomean. `ratios` is
/// not empty.
fn summary(ratios: &[Ratio]) -> String {
    let geomean = |v: &[f64]| (v.iter().map(|r| r.ln()).sum::<f64>() / v.len() as f64).exp();
    let all: Vec<f64> = ratios.iter().map(|r| r.0).collect();
    let p384: Vec<f64> = ratios.iter().filter(|r| r.1).map(|r| r.0).collect();
    let worst = ratios
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("rows");
    let below = |f: fn(&RatioInterval) -> f64| {
        ratios
            .iter()
            .filter(|r| r.3.as_ref().is_some_and(|i| f(i) < 0.97))
            .count()
    };
    let mut summary = format!(
        "serial ÷ parallel: geomean ×{:.2} over {} chains, worst ×{:.2} ({}), {} chains below ×0.97 \
         by medians, {} by the Hodges–Lehmann ratio, {} with its whole 95 % interval below",
        geomean(&all),
        all.len(),
        worst.0,
        worst.2,
        all.iter().filter(|r| **r < 0.97).count(),
        below(|i| i.ratio),
        below(|i| i.high),
    );
    if !p384.is_empty() {
        summary.push_str(&format!(
            "; chains with a P-384 signature: geomean ×{:.2} over {}",
            geomean(&p384),
            p384.len()
        ));
    }
    summary
}

/// `rustlsparallel` against its bound, markdown: one row per chain of `chains` (in order)
/// that both `rustlsserial` and `rustlsparallel` measured, then the summary; `threads` is the
/// machine's thread count the [`PathChecks::on_threads`] were computed for. Empty when no
/// chain has both.
pub fn parallel_bound(samples: &[Sample], chains: &[ChainChecks], threads: usize) -> String {
    let tables = build_seed_tables(samples);
    let (rows, ratios): (Vec<Vec<String>>, Vec<Ratio>) = chains
        .iter()
        .filter_map(|c| row(&tables, samples, c))
        .unzip();
    if rows.is_empty() {
        return String::new();
    }
    let summary = summary(&ratios);
    format!(
        "\n### rustlsparallel against its bound (total-verification medians; each path check timed alone, 30 times, median)\n\n{}\n\n{summary}.\n\nHodges–Lehmann: serial ÷ parallel from every pair of the two methods' samples on the chain (the median of their ratios), with its distribution-free 95 % interval; an interval that holds ×1.00 is a difference within this run's noise. Bound: serial ÷ (serial − floor + largest check), every check beside the largest on a thread of its own. Bound on {threads} threads: the same with the path's checks split as well as they can be over this machine's {threads} threads (the pool's workers and the caller), each check whole on one thread; the two differ when a path has more checks than threads.\n",
        plain_table(
            &[
                "chain",
                "keys",
                "n",
                "serial",
                "parallel",
                "serial ÷ parallel",
                "Hodges–Lehmann [95 % CI]",
                "floor",
                "largest check",
                "bound",
                "of the bound's gain",
                &format!("bound on {threads} threads"),
                "of its gain",
            ],
            rows,
            2,
        )
    )
}
