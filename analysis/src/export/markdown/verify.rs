//! `certbench verify`'s sections beside its tables, in markdown: store scaling (a row per
//! method) and `rustlsparallel` against its bound (a row per chain, then the summary and what
//! the columns mean).

use super::table::plain_table;
use crate::units::human;
use crate::verify::{Bound, BoundRow, BoundSummary, Creation, ParallelBound, ScalingRow, Store};

/// A duration in nanoseconds, or `—` when there is none.
fn show(v: Option<f64>) -> String {
    v.map_or("—".to_owned(), human)
}

fn creation(c: &Creation) -> String {
    match c {
        Creation::BuiltOnce(ns) => format!("{} (built once)", human(*ns as f64)),
        Creation::Measured(s, n) => format!(
            "{} (n {n}, {}–{})",
            human(s.median),
            human(s.lo),
            human(s.hi)
        ),
        Creation::None => "—".to_owned(),
    }
}

/// Store scaling under a title naming the store.
pub(crate) fn store_scaling(rows: &[ScalingRow], store: &Store) -> String {
    let rows = rows
        .iter()
        .map(|r| {
            vec![
                r.method.clone(),
                creation(&r.creation),
                show(r.verify),
                show(r.total),
                format!("{} of {}", r.accepted, r.chains),
            ]
        })
        .collect();
    format!(
        "\n### Store scaling: roots {} ({} extra, {} decoys), +{} untrusted intermediates per chain ({} decoys)\n\n{}\nverify and total-verification: the median over chains of each chain's median.\n",
        store.roots,
        store.extra_roots,
        store.decoy_roots,
        store.extra_intermediates,
        store.decoy_intermediates,
        plain_table(
            &[
                "method",
                "roots-creation",
                "verify",
                "total-verification",
                "chains accepted",
            ],
            rows,
            1,
        )
    )
}

/// The share of the bound's gain a ratio reached.
fn share(ratio: f64, bound: f64) -> String {
    Bound::share(ratio, bound).map_or("no gain possible".to_owned(), |s| {
        format!("{:.0} %", 100.0 * s)
    })
}

fn bound_row(r: &BoundRow) -> Vec<String> {
    let or_dash = |f: &dyn Fn(&Bound) -> String| r.bound.as_ref().map_or("—".to_owned(), f);
    vec![
        r.chain.clone(),
        r.keys.clone(),
        r.n.to_string(),
        human(r.serial),
        human(r.parallel),
        format!("×{:.2}", r.ratio),
        r.interval.map_or("—".to_owned(), |i| {
            format!("×{:.3} [{:.3}, {:.3}]", i.ratio, i.low, i.high)
        }),
        or_dash(&|b| human(b.floor)),
        or_dash(&|b| human(b.largest)),
        or_dash(&|b| format!("×{:.2}", b.bound)),
        or_dash(&|b| share(r.ratio, b.bound)),
        or_dash(&|b| format!("×{:.2}", b.on_threads)),
        or_dash(&|b| share(r.ratio, b.on_threads)),
    ]
}

fn summary(s: &BoundSummary) -> String {
    let mut summary = format!(
        "serial ÷ parallel: geomean ×{:.2} over {} chains, worst ×{:.2} ({}), {} chains below ×0.97 \
         by medians, {} by the Hodges–Lehmann ratio, {} with its whole 95 % interval below",
        s.geomean,
        s.chains,
        s.worst,
        s.worst_chain,
        s.below_by_medians,
        s.below_by_ratio,
        s.below_by_interval,
    );
    if let Some((geomean, n)) = s.p384 {
        summary.push_str(&format!(
            "; chains with a P-384 signature: geomean ×{geomean:.2} over {n}"
        ));
    }
    summary
}

/// `rustlsparallel` against its bound: the table, the summary, what the columns mean.
pub(crate) fn parallel_bound(b: &ParallelBound) -> String {
    let (summary, threads) = (summary(&b.summary), b.threads);
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
            b.rows.iter().map(bound_row).collect(),
            2,
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::golden::check;
    use crate::verify::tests::{chains, samples, store};

    #[test]
    fn store_scaling_and_the_parallel_bound_as_verify_prints_them() {
        let s = samples();
        let once = [("rustlsparallel".to_owned(), 2_000_000)];
        let rows = crate::verify::store_scaling(&s, &["rustlsserial", "rustlsparallel"], &once);
        check("verify-scaling.md", &store_scaling(&rows, &store()));
        let bound = crate::verify::parallel_bound(&s, &chains(), 4).unwrap();
        check("verify-bound.md", &parallel_bound(&bound));
    }
}
