//! `certbench limbo FILE`: every method over an x509-limbo file; results in the limbo result
//! format, a tally per method and family, and where verdicts differ (between methods, and
//! from the upstream harness of the same library).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use certbench_analysis::export::{render_limbo_json, render_limbo_markdown};
use certbench_analysis::limbo::report::gather;
use clap::Args;

use super::args::{MethodArg, methods};
use super::output::{self, Outcome};
use crate::limbo::{LimboFile, Timings};

#[derive(Args, Debug)]
pub(super) struct LimboArgs {
    /// An x509-limbo file (schema version 1), e.g. corpus/x509-limbo/limbo-sample.json or
    /// corpus/real-chains.limbo.json; with --generate-mldsa, where the testcases are written.
    file: PathBuf,
    /// Write certbench's own ML-DSA testcases (RFC 9881: valid chains of each level, mixed
    /// levels and algorithms, a bad signature, forbidden key usages, a wrong name, an
    /// expired EE; fresh keys) to FILE as a limbo document, then run them.
    #[arg(long)]
    generate_mldsa: bool,
    /// Methods, comma-separated (or repeated): any of the possible values.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    method: Vec<MethodArg>,
    /// Write the results in the limbo result format: with one method, to the file PATH;
    /// with several, one `<method>.json` per method into the folder PATH.
    #[arg(long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// For each pair of methods, list the testcases where their verdicts differ.
    #[arg(long)]
    compare: bool,
    /// Folder of upstream harness results (limbo result format, e.g.
    /// ../shared/data/x509-limbo/results): compare each method with its library's harness.
    #[arg(long, value_name = "DIR")]
    upstream: Option<PathBuf>,
    /// Summary format: md or json (json lists every difference).
    #[arg(long, default_value = "md")]
    format: SummaryFormat,
    /// Differing testcases listed per pair in markdown.
    #[arg(long, default_value_t = 25)]
    show: usize,
    /// Per-testcase verify time: a table of each method's slowest testcases (the
    /// slowest single calls, each verified again `--timing-repeats` times, ranked by median).
    #[arg(long)]
    timings: bool,
    /// Testcases in each method's slowest table (with --timings).
    #[arg(long, default_value_t = 20, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..), requires = "timings")]
    timings_top: usize,
    /// Times each candidate is verified again (with --timings).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..), requires = "timings")]
    timing_repeats: u16,
    /// No progress or notes on standard error.
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SummaryFormat {
    Md,
    Json,
}

/// `--timings`: each method's slowest testcases timed again.
fn timings(args: &LimboArgs) -> Option<Timings> {
    args.timings.then_some(Timings {
        top: args.timings_top,
        repeats: usize::from(args.timing_repeats),
    })
}

pub(super) fn run(args: LimboArgs) -> Result<Outcome> {
    let (quiet, path) = (args.quiet, &args.file);
    let methods = methods(&args.method, &[]);
    if args.generate_mldsa {
        let now = time::OffsetDateTime::now_utc();
        let doc = crate::certs::mldsa::testcases(now)?;
        std::fs::write(path, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let file = LimboFile::load(path)?;
    let upstream = (args.upstream.as_deref())
        .map(|dir| {
            crate::limbo::load_upstream(dir, |p, e| {
                output::warn(&format!(
                    "certbench: warning: {}: not a limbo result file, ignored: {e}",
                    p.display()
                ))
            })
        })
        .transpose()?;
    for b in file.cases.iter().filter_map(|c| c.as_ref().err()) {
        let (id, message) = (&b.id, &b.message);
        output::warn(&format!(
            "certbench: error: {}: testcase {id}: {message}",
            path.display()
        ));
    }
    output::note(
        quiet,
        &format!(
            "certbench limbo: {} testcases × {} method(s) from {}, path only (no method checks CT or revocation here: limbo's testcases carry no SCTs and no revocation data)",
            file.cases.len(),
            methods.len(),
            path.display()
        ),
    );
    let bar = output::progress(quiet, file.cases.len() as u64);
    let started = Instant::now();
    let runs = crate::limbo::run::run(&file, &methods, || bar.inc(1));
    let wall = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    if let Some(out) = &args.output {
        crate::limbo::write_results(&runs, out)?;
        let written = format!("certbench limbo: results written to {}", out.display());
        output::note(quiet, &written);
    }
    let note = |msg: &str| output::note(quiet, msg);
    let measured = crate::limbo::measured(path, &file, &runs, wall, timings(&args), note);
    let report = gather(&measured, upstream, args.compare, args.show, note);
    output::print_checked(&match args.format {
        SummaryFormat::Json => render_limbo_json(&report),
        SummaryFormat::Md => render_limbo_markdown(&report),
    })?;
    Ok(Outcome::partial_if(!report.bad.is_empty()))
}
