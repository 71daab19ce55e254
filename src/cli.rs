//! The command line: argument parsing (clap) and the commands, with `anyhow` at this edge.
//!
//! Exit codes: 0 everything was measured; 1 fatal error (nothing measured: bad arguments
//! that clap could not see, unreadable corpus or roots); 2 usage error (clap); 3 the run
//! finished but some items could not be measured (each is an error row in the tables).

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use certbench_analysis::export::{Format, Report, render};
use certbench_analysis::units::human;
use certbench_analysis::{Sample, Stage, Verdict};
use clap::{Args, Parser, Subcommand};

use crate::bench::verify::{self, VerifyOptions};
use crate::corpus::{Corpus, bundled_dir};
use crate::methods::{Method, parse_methods};
use crate::roots::{RootSet, RootsSpec};

/// Exit code when the run finished but some items could not be measured.
pub const EXIT_PARTIAL: u8 = 3;

const AFTER_HELP: &str = "Exit codes: 0 all measured; 1 fatal error; 2 usage error; \
3 finished, but some items could not be measured (see the error rows).";

/// What TLS certificate verification costs a browser, per site and per stage.
#[derive(Parser, Debug)]
#[command(name = "certbench", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Time verification alone on stored real chains, at each chain's validation time.
    Verify(VerifyArgs),
}

#[derive(Args, Debug)]
struct VerifyArgs {
    /// Methods: openssl, rustlsserial, rustlsparallel, all, or a comma-separated list.
    #[arg(long, default_value = "all")]
    method: Vec<MethodList>,
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
    /// Table format: md, csv or json.
    #[arg(long, default_value = "md")]
    format: Format,
    /// Write the tables to FILE instead of standard output.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Append every sample (warm-up included) to FILE as JSON lines, flushed as taken.
    #[arg(long)]
    raw: Option<PathBuf>,
    /// No progress or notes on standard error.
    #[arg(long)]
    quiet: bool,
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Verify(args) => run_verify(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("certbench: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run_verify(args: VerifyArgs) -> Result<ExitCode> {
    let methods = dedup(args.method.iter().flat_map(|l| l.0.clone()).collect());
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
    let note = |msg: &str| {
        if !args.quiet {
            eprintln!("{msg}");
        }
    };
    for f in &corpus.failures {
        note(&format!("certbench: error: chain {}: {}", f.id, f.error));
    }
    note(&format!(
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

    let mut raw = match &args.raw {
        Some(p) => Some(BufWriter::new(
            File::options()
                .create(true)
                .append(true)
                .open(p)
                .with_context(|| format!("opening {}", p.display()))?,
        )),
        None => None,
    };
    let total = (corpus.chains.len() * methods.len()) as u64 * u64::from(args.runs + args.warmup);
    let progress = !args.quiet && std::io::stderr().is_terminal();
    let mut done = 0u64;
    let mut samples: Vec<Sample> = Vec::new();
    let mut raw_error: Option<std::io::Error> = None;
    let opts = VerifyOptions {
        methods: methods.clone(),
        runs: args.runs,
        warmup: args.warmup,
        cache_roots: args.cache_roots,
    };
    let cached = verify::run(&corpus, &roots, &opts, |s| {
        if let (Some(w), None) = (raw.as_mut(), raw_error.as_ref()) {
            let line = serde_json::to_string(&s).expect("samples serialize");
            if let Err(e) = writeln!(w, "{line}").and_then(|_| w.flush()) {
                raw_error = Some(e);
            }
        }
        if !s.stages.is_empty() {
            done += 1;
            if progress && done.is_multiple_of(50) {
                eprint!("\r{done}/{total} samples");
            }
        }
        samples.push(s);
    });
    if progress {
        eprintln!("\r{done}/{total} samples");
    }
    if let Some(e) = raw_error {
        note(&format!("certbench: error: writing raw samples: {e}"));
    }
    for c in &cached {
        note(&format!(
            "roots-creation, built once for {}: {}",
            c.method,
            human(c.build_ns as f64)
        ));
    }

    let order: Vec<&str> = methods.iter().map(|m| m.name()).collect();
    let report = Report::from_samples(&samples, Stage::TotalVerification, &order);
    let mut text = String::new();
    if args.format == Format::Markdown {
        text.push_str(&format!(
            "## certbench verify — {} chains, {} runs (+{} warm-up), roots {}, {}\n\n",
            corpus.chains.len(),
            args.runs,
            args.warmup,
            roots.describe(),
            if args.cache_roots {
                "stores cached"
            } else {
                "stores built cold per sample"
            }
        ));
    }
    text.push_str(&render(&report, args.format));
    match &args.output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?,
        None => std::io::stdout().write_all(text.as_bytes())?,
    }

    let failed = samples
        .iter()
        .any(|s| matches!(s.verdict, Verdict::Error(_)));
    Ok(if failed {
        ExitCode::from(EXIT_PARTIAL)
    } else {
        ExitCode::SUCCESS
    })
}

/// One `--method` value (a name, `all`, or a comma-separated list).
#[derive(Clone, Debug)]
struct MethodList(Vec<Method>);

impl std::str::FromStr for MethodList {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_methods(s).map(MethodList)
    }
}

fn dedup(methods: Vec<Method>) -> Vec<Method> {
    let mut out = Vec::new();
    for m in methods {
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}
