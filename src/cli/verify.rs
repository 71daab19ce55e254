//! `certbench verify`: verification alone on stored real chains (args → options →
//! [`crate::verify::run`]).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use certbench_analysis::units::human;
use certbench_analysis::{Sample, Verdict};
use clap::Args;

use super::EXIT_PARTIAL;
use super::args::{MethodArg, methods};
use super::output::{OutputArgs, RawSink};
use crate::corpus::{Corpus, bundled_dir};
use crate::roots::{RootSet, RootsSpec};
use crate::verify::{self, VerifyOptions};

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
    /// Append every sample (warm-up included) to FILE as JSON lines, flushed as taken.
    #[arg(long)]
    raw: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

pub(super) fn run(args: VerifyArgs) -> Result<ExitCode> {
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
    for f in &corpus.failures {
        out.error(&format!("certbench: error: chain {}: {}", f.id, f.error));
    }
    out.note(&format!(
        "certbench verify: {} chains × {} methods × {} runs (+{} warm-up), roots {}{}",
        corpus.chains.len(),
        methods.len(),
        args.runs,
        args.warmup,
        roots.describe(),
        if args.cache_roots {
            ", cached"
        } else {
            ", cold per sample"
        }
    ));

    let mut raw = RawSink::open(args.raw.as_deref())?;
    let total = (corpus.chains.len() * methods.len()) as u64 * u64::from(args.runs + args.warmup);
    let bar = out.progress(total);
    let mut samples: Vec<Sample> = Vec::new();
    let opts = VerifyOptions {
        methods: methods.clone(),
        runs: args.runs,
        warmup: args.warmup,
        cache_roots: args.cache_roots,
    };
    let cached = verify::run(&corpus, &roots, &opts, |s| {
        raw.write(&s);
        if !s.stages.is_empty() {
            bar.inc(1);
        }
        samples.push(s);
    });
    bar.finish_and_clear();
    raw.report(out);
    for c in &cached {
        out.note(&format!(
            "roots-creation, built once for {}: {}",
            c.method,
            human(c.build_ns as f64)
        ));
    }
    out.emit(
        &format!(
            "certbench verify — {} chains, {} runs (+{} warm-up), roots {}, {}",
            corpus.chains.len(),
            args.runs,
            args.warmup,
            roots.describe(),
            if args.cache_roots {
                "stores cached"
            } else {
                "stores built cold per sample"
            }
        ),
        &samples,
        &methods,
        None,
    )?;

    let failed = samples
        .iter()
        .any(|s| matches!(s.verdict, Verdict::Error(_)));
    Ok(if failed {
        ExitCode::from(EXIT_PARTIAL)
    } else {
        ExitCode::SUCCESS
    })
}
