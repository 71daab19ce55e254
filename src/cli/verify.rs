//! `certbench verify`: verification alone on stored real chains (args → options →
//! [`crate::verify::run`]).

use std::path::PathBuf;

use anyhow::{Context, Result};
use certbench_analysis::stats::RatioInterval;
use certbench_analysis::units::human;
use certbench_analysis::{Sample, Verdict};
use clap::Args;

use super::args::{MethodArg, methods};
use super::output::Outcome;
use super::output::OutputArgs;
use crate::corpus::{Corpus, bundled_dir};
use crate::methods::Method;
use crate::roots::{RootSet, RootsSpec};
use crate::run::sink::RawSink;
use crate::verify::{self, VerifyOptions};
use certbench_analysis::export::Format;
use certbench_analysis::export::markdown::plain_table;

#[derive(Args, Debug)]
pub(super) struct VerifyArgs {
    /// Methods, comma-separated (or repeated): any of the possible values.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    method: Vec<MethodArg>,
    /// Measured runs per chain and method.
    #[arg(long, default_value_t = 20)]
    runs: u32,
    /// Warm-up runs before measuring (recorded as warm-up, left out of the tables).
    #[arg(long, default_value_t = 2)]
    warmup: u32,
    /// Folder of chains (with or without manifest.json) [default: the bundled corpus].
    #[arg(long)]
    chains: Option<PathBuf>,
    /// Trust roots: mozilla (bundled), system, or a PEM file.
    #[arg(long, default_value = "mozilla")]
    roots: RootsSpec,
    /// Do not add the chains' own root.pem anchors to the trust roots.
    #[arg(long)]
    no_corpus_roots: bool,
    /// Build each method's trust store once and reuse it (roots-creation is then 0 per use).
    #[arg(long)]
    cache_roots: bool,
    /// Store scaling: add N generated roots to the trust store (well-formed CA certificates
    /// with names of their own, plus same-subject decoys of the corpus's anchors).
    /// (Given, even as 0, it adds the store-scaling summary to the output.)
    #[arg(long, value_name = "N")]
    extra_roots: Option<usize>,
    /// Store scaling: offer M generated intermediates with every chain as untrusted
    /// candidates, before the ones the server sent (plus decoys of the leaves' issuers).
    #[arg(long, value_name = "M")]
    extra_intermediates: Option<usize>,
    /// Append every sample (warm-up included) to FILE as JSON lines, flushed as taken.
    #[arg(long)]
    raw: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

pub(super) fn run(args: VerifyArgs, argv: Vec<String>) -> Result<Outcome> {
    let methods = methods(&args.method);
    let dir = args.chains.clone().unwrap_or_else(bundled_dir);
    let corpus =
        Corpus::load(&dir).with_context(|| format!("loading chains from {}", dir.display()))?;
    if corpus.chains.is_empty() && corpus.failures.is_empty() {
        anyhow::bail!("{}: no chain folders found", dir.display());
    }
    let mut roots = RootSet::load(&args.roots).context("loading trust roots")?;
    if !args.no_corpus_roots {
        roots.extend("corpus", corpus.roots());
    }
    let out = &args.out;
    let scaling = args.extra_roots.is_some() || args.extra_intermediates.is_some();
    let (n_roots, n_inter) = (
        args.extra_roots.unwrap_or(0),
        args.extra_intermediates.unwrap_or(0),
    );
    let extra = if n_roots + n_inter > 0 {
        let started = std::time::Instant::now();
        let extra = crate::extra::generate(&corpus, n_roots, n_inter)
            .context("generating the extra roots and intermediates")?;
        out.note(&format!(
            "certbench verify: generated {} extra roots ({} decoys) and {} extra intermediates ({} decoys) in {:.1} s",
            extra.roots.len(),
            extra.decoy_roots,
            extra.intermediates.len(),
            extra.decoy_intermediates,
            started.elapsed().as_secs_f64()
        ));
        roots.extend("extra", extra.roots.iter().cloned());
        extra
    } else {
        crate::extra::Extra::default()
    };
    for f in &corpus.failures {
        out.error(&format!("certbench: error: chain {}: {}", f.id, f.error));
    }
    out.note(&format!(
        "certbench verify: {} chains × {} methods × {} runs (+{} warm-up), roots {}{}{}",
        corpus.chains.len(),
        methods.len(),
        args.runs,
        args.warmup,
        roots.describe(),
        match extra.intermediates.len() {
            0 => String::new(),
            m => format!(", +{m} untrusted intermediates per chain"),
        },
        if args.cache_roots {
            ", cached"
        } else {
            ", cold per sample"
        }
    ));

    let mut raw = RawSink::open(args.raw.as_deref(), &crate::versions::run_info(argv))?;
    let total = (corpus.chains.len() * methods.len()) as u64 * u64::from(args.runs + args.warmup);
    let bar = out.progress(total);
    let mut samples: Vec<Sample> = Vec::new();
    let opts = VerifyOptions {
        methods: methods.clone(),
        runs: args.runs,
        warmup: args.warmup,
        cache_roots: args.cache_roots,
        extra_intermediates: extra.intermediates.clone(),
    };
    let cached = verify::run(&corpus, &roots, &opts, |s| {
        raw.write(&s);
        if !s.stages.is_empty() {
            bar.inc(1);
        }
        samples.push(s);
    });
    bar.finish_and_clear();
    if let Some(e) = raw.error() {
        out.error(&format!("certbench: error: {e}"));
    }
    for c in &cached {
        out.note(&format!(
            "roots-creation, built once for {}: {}",
            c.method,
            human(c.build_ns as f64)
        ));
    }
    let mut text = out.tables(
        &format!(
            "certbench verify — {} chains, {} runs (+{} warm-up), roots {}{}, {}",
            corpus.chains.len(),
            args.runs,
            args.warmup,
            roots.describe(),
            match extra.intermediates.len() {
                0 => String::new(),
                m => format!(", +{m} untrusted intermediates per chain"),
            },
            if args.cache_roots {
                "stores cached"
            } else {
                "stores built cold per sample"
            }
        ),
        &samples,
        &methods,
        None,
    );
    if out.format == Format::Markdown && scaling {
        text.push_str(&store_scaling(&samples, &methods, &cached, &roots, &extra));
    }
    let both = [Method::RustlsSerial, Method::RustlsParallel];
    if out.format == Format::Markdown && both.iter().all(|m| methods.contains(m)) {
        text.push_str(&parallel_bound(&corpus, &roots, &samples));
    }
    out.write(&text)?;

    let failed = samples
        .iter()
        .any(|s| matches!(s.verdict, Verdict::Error(_)));
    Ok(Outcome::partial_if(failed))
}

/// Store scaling, one row per method: the store's size, `roots-creation` (the one build
/// with `--cache-roots`, else the median over samples), and the median over chains of each
/// chain's `verify` and `total-verification` medians.
fn store_scaling(
    samples: &[Sample],
    methods: &[Method],
    cached: &[verify::CachedRoots],
    roots: &RootSet,
    extra: &crate::extra::Extra,
) -> String {
    let tables = certbench_analysis::build_seed_tables(samples);
    let median = |mut v: Vec<f64>| certbench_analysis::stats::middle(&mut v);
    let show = |v: Option<f64>| v.map_or("—".to_owned(), human);
    let rows = methods
        .iter()
        .map(|m| {
            let chains = || {
                tables
                    .iter()
                    .filter(|t| t.method == m.name())
                    .flat_map(|t| &t.rows)
            };
            let of = |stage: certbench_analysis::Stage| {
                median(
                    chains()
                        .filter_map(|r| r.cells.get(&stage).map(|c| c.median))
                        .collect(),
                )
            };
            let creation = match cached.iter().find(|c| c.method == *m) {
                Some(c) => format!("{} (built once)", human(c.build_ns as f64)),
                None => {
                    // Every cold sample built the store: their median, n and range.
                    let mut builds: Vec<f64> = samples
                        .iter()
                        .filter(|s| s.method == m.name() && !s.warmup)
                        .filter_map(|s| s.stages.get(&certbench_analysis::Stage::RootsCreation))
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
            };
            let accepted = samples
                .iter()
                .filter(|s| s.method == m.name() && !s.warmup && s.run == 0)
                .filter(|s| s.verdict == Verdict::Ok)
                .count();
            let ran = samples
                .iter()
                .filter(|s| s.method == m.name() && !s.warmup && s.run == 0)
                .count();
            vec![
                m.name().to_owned(),
                creation,
                show(of(certbench_analysis::Stage::Verify)),
                show(of(certbench_analysis::Stage::TotalVerification)),
                format!("{accepted} of {ran}"),
            ]
        })
        .collect();
    format!(
        "\n### Store scaling: roots {} ({} extra, {} decoys), +{} untrusted intermediates per chain ({} decoys)\n\n{}\nverify and total-verification: the median over chains of each chain's median.\n",
        roots.describe(),
        extra.roots.len(),
        extra.decoy_roots,
        extra.intermediates.len(),
        extra.decoy_intermediates,
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

/// How far `rustlsparallel` can gain on each chain, beside how far it got: the chain's path
/// checks timed alone ([`crate::bench::floor::check_costs`]), its floor (their sum) and its
/// largest check; the bound serial ÷ (serial − floor + largest) — what overlapping every
/// check but the largest with it could give at best on two or more cores — and the share of
/// the bound's gain the measured ratio reached; then the same bound with the checks split over
/// this machine's threads (the pool's workers and the caller, [`makespan_bound`]) and the
/// share of that gain reached. Serial and parallel are the run's `total-verification` medians.
///
/// [`makespan_bound`]: crate::bench::floor::makespan_bound
fn parallel_bound(corpus: &Corpus, roots: &RootSet, samples: &[Sample]) -> String {
    // The run's medians, from the same tables the output shows.
    let tables = certbench_analysis::build_seed_tables(samples);
    let median = |method: &str, chain: &str| {
        let row = tables
            .iter()
            .filter(|t| t.method == method)
            .flat_map(|t| &t.rows)
            .find(|r| r.chain.as_deref() == Some(chain))?;
        let s = row
            .cells
            .get(&certbench_analysis::Stage::TotalVerification)?;
        Some((s.median, s.n))
    };
    let chains: Vec<(
        &crate::chain::Chain,
        &[rustls_pki_types::CertificateDer<'static>],
    )> = corpus
        .chains
        .iter()
        .map(|c| (&c.chain, roots.certs()))
        .collect();
    // Every measured total-verification of one method on one chain (for the ratio's interval).
    let times = |method: &str, chain: &str| -> Vec<f64> {
        samples
            .iter()
            .filter(|s| !s.warmup && s.method == method && s.chain.as_deref() == Some(chain))
            .filter_map(|s| s.stage(certbench_analysis::Stage::TotalVerification))
            .map(|ns| ns as f64)
            .collect()
    };
    let costs = crate::bench::floor::check_costs(&chains, 30);
    let threads = crate::pool::SignaturePool::global().workers() + 1;
    let share = |ratio: f64, bound: f64| {
        if bound > 1.02 {
            format!("{:.0} %", 100.0 * (ratio - 1.0) / (bound - 1.0))
        } else {
            "no gain possible".to_owned()
        }
    };
    let mut rows = Vec::new();
    let mut ratios: Vec<(f64, bool, String, Option<RatioInterval>)> = Vec::new();
    for (c, cost) in corpus.chains.iter().zip(costs) {
        let (Some((serial, n)), Some((parallel, _))) = (
            median("rustlsserial", &c.id),
            median("rustlsparallel", &c.id),
        ) else {
            continue;
        };
        let ratio = serial / parallel;
        let interval = RatioInterval::of(
            &times("rustlsserial", &c.id),
            &times("rustlsparallel", &c.id),
            0.95,
        );
        // A P-384 signature somewhere on the sent chain (the root's on the last intermediate
        // included): a check worth overlapping even with the pool asleep.
        let p384 = c
            .chain
            .iter()
            .any(|cert| crate::chain::signer(cert) == Some(crate::chain::Signer::EcdsaP384));
        ratios.push((ratio, p384, c.id.clone(), interval));
        // (floor, largest check, bound, bound on this machine's threads), for a chain with a
        // path to a root.
        let bound = cost.filter(|checks| !checks.is_empty()).map(|checks| {
            let floor = checks.iter().sum::<u64>() as f64;
            let largest = checks.iter().copied().max().unwrap_or(0) as f64;
            let here = crate::bench::floor::makespan_bound(&checks, threads) as f64;
            let over = |makespan: f64| serial / (serial - floor + makespan).max(1.0);
            (floor, largest, over(largest), over(here))
        });
        let or_dash = |f: &dyn Fn((f64, f64, f64, f64)) -> String| bound.map_or("—".to_owned(), f);
        rows.push(vec![
            c.id.clone(),
            c.key_types.join(", "),
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
        ]);
    }
    if rows.is_empty() {
        return String::new();
    }
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
