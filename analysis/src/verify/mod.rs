//! `certbench verify`'s summaries beside its tables, computed from its samples: store scaling
//! (one row per method for one run, and the curve over store sizes the HTML report draws from
//! several runs) and how far `rustlsparallel` got against its bound.
//!
//! Nothing here measures: the path checks' costs the bound needs are measured by the caller
//! (`certbench::bench::floor::check_costs`) and passed in as [`ChainChecks`].
//!
//! Medians of medians are a [`Spread`]'s (the middle element, or the mean of the two middle ones);
//! each chain's own median in [`store_scaling`] and [`parallel_bound`] is its table cell's.

pub use certbench_schema::records::verify::Store;

use std::collections::{BTreeMap, BTreeSet};

use crate::stats::Spread;
use crate::table::{SeedTable, build_seed_tables};
use certbench_schema::{Sample, Source, Stage, Verdict};

/// How a method's store was built in one `verify` run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Creation {
    /// Once, for the whole run (`--cache-roots`): its nanoseconds.
    BuiltOnce(u64),
    /// In every measured sample: the builds' spread and count.
    Measured(Spread, usize),
    /// No sample built it.
    None,
}

/// One method's store-scaling row.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingRow {
    /// The method.
    pub method: String,
    /// Its `roots-creation`.
    pub creation: Creation,
    /// The median over chains of each chain's `verify` median.
    pub verify: Option<f64>,
    /// The median over chains of each chain's `total-verification` median.
    pub total: Option<f64>,
    /// Chains the first measured run accepted.
    pub accepted: usize,
    /// Chains of the first measured run.
    pub chains: usize,
}

/// The `roots-creation` of `method`: the one build when the store was cached
/// (`built_once`), else the spread of every measured sample's build.
fn creation(samples: &[Sample], method: &str, built_once: Option<u64>) -> Creation {
    if let Some(ns) = built_once {
        return Creation::BuiltOnce(ns);
    }
    // Every cold sample built the store.
    let builds: Vec<f64> = samples
        .iter()
        .filter(|s| s.method == method && !s.warmup)
        .filter_map(|s| s.stages.get(&Stage::RootsCreation))
        .map(|&ns| ns as f64)
        .collect();
    Spread::of(&builds).map_or(Creation::None, |s| Creation::Measured(s, builds.len()))
}

/// One method's store-scaling row.
fn scaling_row(
    tables: &[SeedTable],
    samples: &[Sample],
    method: &str,
    built_once: Option<u64>,
) -> ScalingRow {
    let of = |stage: Stage| {
        Spread::of_each(
            tables
                .iter()
                .filter(|t| t.method == method)
                .flat_map(|t| &t.rows)
                .filter_map(|r| r.cells.get(&stage)),
            |c| c.median,
        )
        .map(|s| s.median)
    };
    let first = || {
        samples
            .iter()
            .filter(|s| s.method == method && !s.warmup && s.run == 0)
    };
    ScalingRow {
        method: method.to_owned(),
        creation: creation(samples, method, built_once),
        verify: of(Stage::Verify),
        total: of(Stage::TotalVerification),
        accepted: first().filter(|s| s.verdict == Verdict::Ok).count(),
        chains: first().count(),
    }
}

/// Store scaling, one row per method (in `methods` order): `roots-creation` (the one build
/// of a method in `built_once` — `--cache-roots` — else the spread over samples), and the
/// median over chains of each chain's `verify` and `total-verification` medians.
pub fn store_scaling(
    samples: &[Sample],
    methods: &[&str],
    built_once: &[(String, u64)],
) -> Vec<ScalingRow> {
    let tables = build_seed_tables(samples);
    methods
        .iter()
        .map(|m| {
            let once = built_once.iter().find(|c| c.0 == *m).map(|c| c.1);
            scaling_row(&tables, samples, m, once)
        })
        .collect()
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
    let median = |v: Vec<f64>| Spread::of(&v).map_or(0.0, |s| s.median);
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

pub use bound::{
    Bound, BoundRow, BoundSummary, ChainChecks, ParallelBound, PathChecks, parallel_bound,
};

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use certbench_schema::{SCHEMA_VERSION, SampleMeta};

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
    fn store_scaling_per_method_and_the_bound_per_chain() {
        let s = samples();
        let once = [("rustlsparallel".to_owned(), 2_000_000)];
        let rows = store_scaling(&s, &["rustlsserial", "rustlsparallel"], &once);
        assert_eq!(rows[1].creation, Creation::BuiltOnce(2_000_000));
        assert_eq!((rows[0].accepted, rows[0].chains), (1, 2));
        let Creation::Measured(builds, n) = rows[0].creation else {
            panic!("{rows:?}")
        };
        assert_eq!(
            (builds.median, builds.lo, builds.hi, n),
            (1_001_000.0, 1e6, 1_002_000.0, 6)
        );
        // Chains' total-verification medians 111 and 211 µs: their median.
        assert_eq!(rows[0].total, Some(161_000.0));
        let bound = parallel_bound(&s, &chains(), 4).unwrap();
        assert_eq!(bound.rows.len(), 2);
        assert_eq!(bound.summary.worst_chain, "c2");
        assert!(parallel_bound(&s, &[], 4).is_none());
    }
}
