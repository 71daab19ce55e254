//! `certbench verify`'s summaries beside its tables, computed from its samples: store scaling
//! (one row per method for one run, and the curve over store sizes the HTML report draws from
//! several runs) and how far `rustlsparallel` got against its bound.
//!
//! Nothing here measures: the path checks' costs the bound needs are measured by the caller
//! (`certbench::bench::floor::check_costs`) and passed in as [`ChainChecks`].
//!
//! Medians of medians use [`middle`] (the middle element, or the mean of the two middle ones);
//! each chain's own median in [`store_scaling`] and [`parallel_bound`] is its table cell's.

use std::collections::{BTreeMap, BTreeSet};

use crate::export::markdown::table::plain_table;
use crate::schema::{Sample, Source, Stage, Verdict};
use crate::stats::middle;
use crate::table::{SeedTable, build_seed_tables};
use crate::units::human;

/// The median of `v` ([`middle`]); `None` when `v` is empty.
fn median(mut v: Vec<f64>) -> Option<f64> {
    middle(&mut v)
}

/// A duration in nanoseconds, or `—` when there is none.
fn show(v: Option<f64>) -> String {
    v.map_or("—".to_owned(), human)
}

/// The trust store and the untrusted intermediates of one `verify` run.
#[derive(Clone, Debug)]
pub struct Store {
    /// The store as its samples' configuration names it (`mozilla+corpus+extra (1621)`).
    pub roots: String,
    /// Generated roots added (`--extra-roots`), decoys included.
    pub extra_roots: usize,
    /// Of those, same-subject decoys of the corpus's anchors.
    pub decoy_roots: usize,
    /// Generated intermediates offered with every chain (`--extra-intermediates`).
    pub extra_intermediates: usize,
    /// Of those, decoys of the leaves' issuers.
    pub decoy_intermediates: usize,
}

/// The `roots-creation` cell of `method`'s store-scaling row: the one build when the store
/// was cached (`built_once`), else the median, n and range of every measured sample's build.
fn creation(samples: &[Sample], method: &str, built_once: Option<u64>) -> String {
    if let Some(ns) = built_once {
        return format!("{} (built once)", human(ns as f64));
    }
    // Every cold sample built the store: their median, n and range.
    let mut builds: Vec<f64> = samples
        .iter()
        .filter(|s| s.method == method && !s.warmup)
        .filter_map(|s| s.stages.get(&Stage::RootsCreation))
        .map(|&ns| ns as f64)
        .collect();
    builds.sort_by(f64::total_cmp);
    match (builds.first(), builds.last()) {
        (Some(lo), Some(hi)) => format!(
            "{} (n {}, {}–{})",
            show(median(builds.clone())),
            builds.len(),
            human(*lo),
            human(*hi)
        ),
        _ => "—".to_owned(),
    }
}

/// One method's store-scaling row: method, roots-creation, the median over chains of each
/// chain's `verify` and `total-verification` medians, and the chains it accepted.
fn scaling_row(
    tables: &[SeedTable],
    samples: &[Sample],
    method: &str,
    built_once: Option<u64>,
) -> Vec<String> {
    let of = |stage: Stage| {
        median(
            tables
                .iter()
                .filter(|t| t.method == method)
                .flat_map(|t| &t.rows)
                .filter_map(|r| r.cells.get(&stage).map(|c| c.median))
                .collect(),
        )
    };
    let first = || {
        samples
            .iter()
            .filter(|s| s.method == method && !s.warmup && s.run == 0)
    };
    let accepted = first().filter(|s| s.verdict == Verdict::Ok).count();
    vec![
        method.to_owned(),
        creation(samples, method, built_once),
        show(of(Stage::Verify)),
        show(of(Stage::TotalVerification)),
        format!("{accepted} of {}", first().count()),
    ]
}

/// Store scaling, markdown, one row per method (in `methods` order): the store's size,
/// `roots-creation` (the one build of a method in `built_once` — `--cache-roots` — else the
/// median over samples), and the median over chains of each chain's `verify` and
/// `total-verification` medians.
pub fn store_scaling(
    samples: &[Sample],
    methods: &[&str],
    built_once: &[(String, u64)],
    store: &Store,
) -> String {
    let tables = build_seed_tables(samples);
    let rows = methods
        .iter()
        .map(|m| {
            let once = built_once.iter().find(|c| c.0 == *m).map(|c| c.1);
            scaling_row(&tables, samples, m, once)
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

/// A stage against the store's size, over `verify` runs of several sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreCurve {
    /// The store sizes, ascending (two or more).
    pub sizes: Vec<u64>,
    /// Per method: (roots in the store, the median over chains of each chain's median, µs),
    /// by ascending size.
    pub lines: BTreeMap<String, Vec<(f64, f64)>>,
}

/// Store scaling over runs (`verify --extra-roots N` runs given together): `stage` against the
/// number of roots in the store, one line per method, each point the median over chains of
/// each chain's median. `None` unless `verify` samples come with two store sizes or more and
/// have the stage (a 0 — a cached store, built once — is not a build).
pub fn store_curve(samples: &[Sample], stage: Stage) -> Option<StoreCurve> {
    // (method, roots) → chain → values.
    let mut by: BTreeMap<(String, u64), BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    for s in samples
        .iter()
        .filter(|s| s.source == Source::Verify && !s.warmup)
    {
        let store = s.config.trust_store().map(|t| t.roots);
        let (Some(n), Some(&ns)) = (store, s.stages.get(&stage)) else {
            continue;
        };
        if ns == 0 {
            continue; // a cached store: built once, not in this sample
        }
        by.entry((s.method.clone(), n))
            .or_default()
            .entry(s.chain.clone().unwrap_or_default())
            .or_default()
            .push(ns as f64);
    }
    let sizes: BTreeSet<u64> = by.keys().map(|k| k.1).collect();
    if sizes.len() < 2 {
        return None;
    }
    // Every chain and method here has at least one value.
    let median = |v: Vec<f64>| median(v).unwrap_or(0.0);
    let mut lines: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for ((method, n), chains) in by {
        let per_chain: Vec<f64> = chains.into_values().map(median).collect();
        lines
            .entry(method)
            .or_default()
            .push((n as f64, median(per_chain) / 1e3));
    }
    Some(StoreCurve {
        sizes: sizes.into_iter().collect(),
        lines,
    })
}

mod bound;

pub use bound::{ChainChecks, PathChecks, parallel_bound};

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::schema::{SCHEMA_VERSION, SampleMeta};

    /// `verify` samples of both rustls methods on two chains, three runs each: serial
    /// 100/200 µs, parallel 80/250 µs; every build of the store 1 ms (+ run µs).
    pub(crate) fn samples() -> Vec<Sample> {
        let mut v = Vec::new();
        for (method, a, b) in [
            ("rustlsserial", 100_000, 200_000),
            ("rustlsparallel", 80_000, 250_000),
        ] {
            for (chain, ns) in [("c1", a), ("c2", b)] {
                for run in 0..3u32 {
                    let ns = ns + 1_000 * u64::from(run);
                    v.push(Sample {
                        schema: SCHEMA_VERSION,
                        source: Source::Verify,
                        method: method.into(),
                        config: Default::default(),
                        port: None,
                        path: None,
                        site: chain.into(),
                        chain: Some(chain.into()),
                        run,
                        warmup: false,
                        stages: [
                            (Stage::RootsCreation, 1_000_000 + 1_000 * u64::from(run)),
                            (Stage::Verify, ns),
                            (Stage::TotalVerification, ns + 10_000),
                        ]
                        .into_iter()
                        .collect(),
                        verdict: if chain == "c2" && run == 0 {
                            Verdict::Rejected("expired".into())
                        } else {
                            Verdict::Ok
                        },
                        meta: SampleMeta::default(),
                    });
                }
            }
        }
        v
    }

    pub(crate) fn chains() -> Vec<ChainChecks> {
        vec![
            ChainChecks {
                id: "c1".into(),
                keys: "ecdsa-p256".into(),
                p384: false,
                path: Some(PathChecks {
                    checks: vec![30_000, 20_000],
                    on_threads: 30_000,
                }),
            },
            ChainChecks {
                id: "c2".into(),
                keys: "ecdsa-p384, rsa-2048".into(),
                p384: true,
                path: None,
            },
        ]
    }

    pub(crate) fn store() -> Store {
        Store {
            roots: "mozilla+corpus+extra (160)".into(),
            extra_roots: 10,
            decoy_roots: 2,
            extra_intermediates: 5,
            decoy_intermediates: 1,
        }
    }

    #[test]
    fn store_scaling_and_the_parallel_bound_as_verify_prints_them() {
        let s = samples();
        let once = [("rustlsparallel".to_owned(), 2_000_000)];
        crate::export::golden::check(
            "verify-scaling.md",
            &store_scaling(&s, &["rustlsserial", "rustlsparallel"], &once, &store()),
        );
        crate::export::golden::check("verify-bound.md", &parallel_bound(&s, &chains(), 4));
    }
}
