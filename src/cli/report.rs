//! `certbench report FILE...`: the tables of samples already taken (the driver's, `verify`'s,
//! a patched Servo's JSONL), merged by site × method × transport × stage, and of
//! `certbench handshake`, `page` and `bulk --format json` results; `--html` writes the
//! self-contained HTML report too (charts of each, and the store-scaling curve when `verify`
//! runs of several store sizes are given); `--baseline A --candidate B` compares two sample
//! runs.
//! Malformed lines are reported with their line numbers and skipped; the report is still
//! produced (exit 3 says lines were skipped).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use certbench_analysis::ab::{AbRuns, compare};
use certbench_analysis::export;
use certbench_analysis::input::{Contents, Gathered};
use certbench_schema::Sample;
use certbench_schema::io::{ReadError, read_run_info};
use clap::Args;

use super::output::Outcome;
use super::output::OutputArgs;
use certbench_core::methods::Method;

#[derive(Args, Debug)]
pub(super) struct ReportArgs {
    /// JSONL sample files (driver, verify, patched Servo), merged; and/or JSON files of
    /// `certbench handshake --format json` (throughput or --hold memory results).
    #[arg(required_unless_present = "baseline")]
    files: Vec<PathBuf>,
    /// Also write the HTML report (one self-contained file with SVG charts) to FILE.
    #[arg(long)]
    html: Option<PathBuf>,
    /// A/B: the baseline run's JSONL (with --candidate).
    #[arg(long, requires = "candidate")]
    baseline: Option<PathBuf>,
    /// A/B: the candidate run's JSONL (with --baseline).
    #[arg(long, requires = "baseline")]
    candidate: Option<PathBuf>,
    /// A/B: smallest relative change reported as faster or slower (0.02 = 2 %).
    #[arg(long, default_value_t = 0.02)]
    min_change: f64,
    #[command(flatten)]
    out: OutputArgs,
}

/// Names each malformed line of `path` on stderr.
fn tell(path: &Path, errors: &[ReadError], out: &OutputArgs) {
    for e in errors {
        out.error(&format!("certbench: error: {}: {e}", path.display()));
    }
}

/// Reads one JSONL file: its samples, and the number of malformed lines (each named on stderr).
fn read(path: &Path, out: &OutputArgs) -> Result<(Vec<Sample>, usize)> {
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    let (samples, errors) = certbench_schema::io::read_jsonl(&bytes[..]);
    tell(path, &errors, out);
    Ok((samples, errors.len()))
}

/// Reads every file as what it holds, naming what could not be read on stderr.
fn gather(files: &[PathBuf], out: &OutputArgs) -> Result<Gathered> {
    let mut gathered = Gathered::default();
    for path in files {
        let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
        let contents = Contents::read(&bytes);
        match &contents {
            Ok(Contents::Samples(_, errors)) => tell(path, errors, out),
            Err(e) => out.error(&format!("certbench: error: {}: {e}", path.display())),
            Ok(_) => {}
        }
        let empty = contents.as_ref().is_ok_and(|c| c.records() == 0);
        if empty {
            out.error(&format!(
                "certbench: error: {}: nothing to report (no sample or result in it)",
                path.display()
            ));
        }
        gathered.add(path.display().to_string(), contents, read_run_info(path));
        gathered.bad += usize::from(empty);
    }
    if gathered.records() == 0 {
        bail!("nothing to report: no file given holds a sample or a result");
    }
    Ok(gathered)
}

pub(super) fn run(args: ReportArgs, argv: Vec<String>) -> Result<Outcome> {
    if let (Some(a), Some(b)) = (&args.baseline, &args.candidate) {
        return ab(&args, a, b);
    }
    let gathered = gather(&args.files, &args.out)?;
    let order: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
    args.out.write(&export::gathered::render(
        &gathered,
        args.out.format,
        &order,
    )?)?;
    if let Some(path) = &args.html {
        let page = export::gathered::html(&gathered, &order, &argv.join(" "));
        std::fs::write(path, page).with_context(|| format!("writing {}", path.display()))?;
        args.out
            .note(&format!("certbench: HTML report in {}", path.display()));
    }
    Ok(Outcome::partial_if(gathered.bad != 0))
}

/// `--baseline A --candidate B`.
fn ab(args: &ReportArgs, a: &Path, b: &Path) -> Result<Outcome> {
    if !(0.0..1.0).contains(&args.min_change) {
        bail!("--min-change must be in [0, 1)");
    }
    let (base, bad_a) = read(a, &args.out)?;
    let (cand, bad_b) = read(b, &args.out)?;
    let rows = compare(&base, &cand, args.min_change);
    if rows.is_empty() {
        bail!(
            "{} and {} share no site × method × stage to compare",
            a.display(),
            b.display()
        );
    }
    let runs = AbRuns {
        baseline: a.display().to_string(),
        baseline_samples: base.len(),
        candidate: b.display().to_string(),
        candidate_samples: cand.len(),
    };
    let text = export::render_ab_runs(&runs, &rows, args.out.format, args.min_change);
    args.out.write(&text)?;
    Ok(Outcome::partial_if(bad_a + bad_b != 0))
}
