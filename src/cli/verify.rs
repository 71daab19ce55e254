//! `certbench verify`: verification alone on stored real chains (args → options →
//! [`crate::verify::run`]).

use std::path::PathBuf;

use anyhow::Result;
use certbench_analysis::export::{
    Format, render_parallel_bound, render_startup, render_store_scaling,
};
use certbench_analysis::{units::human, verify as summary};
use certbench_core::{corpus::bundled_dir, roots::RootsSpec};
use certbench_schema::{Sample, Verdict};
use clap::Args;

use super::args::{MethodArg, methods};
use super::output::{Outcome, OutputArgs};
use crate::run::sink::RawSink;
use crate::verify::{self, Plan, PlanOptions, VerifyOptions};

#[derive(Args, Debug)]
pub(super) struct VerifyArgs {
    /// Methods, comma-separated (or repeated): any of the possible values.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    method: Vec<MethodArg>,
    /// Measured runs per chain and method.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
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
    #[command(flatten)]
    pq: super::pq::VerifyPqArgs,
    #[command(flatten)]
    checks: super::checks::ChecksArgs,
    /// Append every sample (warm-up included) to FILE as JSON lines, flushed as taken.
    #[arg(long)]
    raw: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

/// The corpus and the store `args` ask for.
fn plan_options(args: &VerifyArgs) -> PlanOptions {
    PlanOptions {
        chains: args.chains.clone().unwrap_or_else(bundled_dir),
        roots: args.roots.clone(),
        corpus_roots: !args.no_corpus_roots,
        extra_roots: args.extra_roots.unwrap_or(0),
        extra_intermediates: args.extra_intermediates.unwrap_or(0),
        pq: args.pq.pq.clone(),
        scenarios: args.pq.scenarios(),
    }
}

pub(super) fn run(args: VerifyArgs, argv: Vec<String>) -> Result<Outcome> {
    let out = &args.out;
    let plan = Plan::prepare(&plan_options(&args))?;
    (plan.generated().into_iter().chain(plan.twins_made())).for_each(|l| out.note(&l));
    for f in plan.failures() {
        out.error(&format!("certbench: error: chain {}: {}", f.id, f.why));
    }
    let methods = methods(&args.method, &args.pq.pq);
    let checks = (args.checks).resolve(&methods, (None, &[]), out)?;
    let opts = VerifyOptions {
        methods,
        runs: args.runs,
        warmup: args.warmup,
        cache_roots: args.cache_roots,
        extra_intermediates: plan.extra.intermediates.clone(),
        checks,
    };
    out.note(&plan.describe(&opts));

    let mut raw = RawSink::open(
        args.raw.as_deref(),
        &certbench_core::versions::run_info(argv),
    )?;
    let per_run = (plan.items().len() * opts.methods.len()) as u64;
    let bar = out.progress(per_run * u64::from(args.runs + args.warmup));
    let mut samples: Vec<Sample> = Vec::new();
    let cached = verify::run(&plan, &opts, |s| {
        raw.write(&s);
        if !matches!(s.verdict, Verdict::Error(_)) {
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
    let mut text = out.tables(&plan.title(&opts), &samples, &opts.methods, None);
    if out.format == Format::Markdown {
        let scaling = args.extra_roots.is_some() || args.extra_intermediates.is_some();
        let figures = verify::figures(&plan, &opts, &cached, scaling);
        text.push_str(&sections(&samples, &figures));
        let startup = crate::startup::for_run(&opts.checks, &opts.methods, true)?;
        text += &render_startup(&startup, out.format);
    }
    out.write(&text)?;

    let failed = samples
        .iter()
        .any(|s| matches!(s.verdict, Verdict::Error(_)));
    Ok(Outcome::partial_if(failed))
}

/// The markdown sections after the tables, as `certbench_analysis::verify` summarises the
/// samples with the run's figures: store scaling, then the parallel bound.
fn sections(samples: &[Sample], figures: &verify::Figures) -> String {
    let mut text = String::new();
    if let Some(s) = &figures.scaling {
        let methods: Vec<&str> = s.methods.iter().map(String::as_str).collect();
        let rows = summary::store_scaling(samples, &methods, &s.built_once);
        text += &render_store_scaling(&rows, &s.store);
    }
    let bound = (figures.bound.as_ref())
        .and_then(|b| summary::parallel_bound(samples, &b.chains, b.threads));
    text + &bound.map(|b| render_parallel_bound(&b)).unwrap_or_default()
}
