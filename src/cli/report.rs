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
use certbench_analysis::Sample;
use certbench_analysis::bulk::BulkResult;
use certbench_analysis::compare::compare;
use certbench_analysis::export::html::{self, Input};
use certbench_analysis::export::{Format, Report, render_ab};
use certbench_analysis::handshake::{Results, render as render_handshakes, render_memory};
use certbench_analysis::page::{PageLoad, render_markdown as render_pages};
use certbench_analysis::schema::read_run_info;
use clap::Args;

use super::output::Outcome;
use super::output::OutputArgs;
use crate::methods::Method;

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

/// Reads one JSONL file: its samples, and the number of malformed lines (each named on stderr).
fn read(path: &Path, out: &OutputArgs) -> Result<(Vec<Sample>, usize)> {
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    Ok(samples_of(path, &bytes, out))
}

/// The samples of a JSONL file's `bytes`, and the number of malformed lines (each named on
/// stderr).
fn samples_of(path: &Path, bytes: &[u8], out: &OutputArgs) -> (Vec<Sample>, usize) {
    let (samples, errors) = certbench_analysis::schema::read_jsonl(bytes);
    for e in &errors {
        out.error(&format!("certbench: error: {}: {e}", path.display()));
    }
    (samples, errors.len())
}

/// One input file's contents: samples (JSONL), or `certbench handshake --format json`
/// results (one JSON array).
enum Contents {
    Samples(Vec<Sample>, usize),
    Handshakes(Results),
    Pages(Vec<PageLoad>),
    Bulk(Vec<BulkResult>),
}

/// Reads `path` as handshake results when it holds one JSON array, else as JSONL samples.
/// A handshake file that does not parse is named on stderr and counts as one bad input.
fn read_any(path: &Path, out: &OutputArgs) -> Result<Contents> {
    let bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'[') {
        let (samples, bad) = samples_of(path, &bytes, out);
        return Ok(Contents::Samples(samples, bad));
    }
    let text = String::from_utf8_lossy(&bytes);
    if let Ok(pages) = serde_json::from_str::<Vec<PageLoad>>(&text)
        && !pages.is_empty()
    {
        return Ok(Contents::Pages(pages));
    }
    if let Ok(bulk) = serde_json::from_str::<Vec<BulkResult>>(&text)
        && !bulk.is_empty()
    {
        return Ok(Contents::Bulk(bulk));
    }
    match certbench_analysis::handshake::parse(&text) {
        Ok(r) => Ok(Contents::Handshakes(r)),
        Err(e) => {
            out.error(&format!(
                "certbench: error: {}: not `certbench handshake`, `page` or `bulk --format json` results: {e}",
                path.display()
            ));
            Ok(Contents::Samples(Vec::new(), 1))
        }
    }
}

pub(super) fn run(args: ReportArgs) -> Result<Outcome> {
    if let (Some(a), Some(b)) = (&args.baseline, &args.candidate) {
        return ab(&args, a, b);
    }
    let mut samples: Vec<Sample> = Vec::new();
    let mut handshakes = Results::default();
    let mut pages: Vec<PageLoad> = Vec::new();
    let mut bulk: Vec<BulkResult> = Vec::new();
    let mut inputs = Vec::new();
    let mut bad = 0usize;
    for path in &args.files {
        let (s, errors, results) = match read_any(path, &args.out)? {
            Contents::Samples(s, errors) => (s, errors, 0),
            Contents::Handshakes(r) => {
                let n = r.runs.len() + r.memory.len();
                handshakes.extend(r);
                (Vec::new(), 0, n)
            }
            Contents::Pages(p) => {
                let n = p.len();
                pages.extend(p);
                (Vec::new(), 0, n)
            }
            Contents::Bulk(b) => {
                let n = b.len();
                bulk.extend(b);
                (Vec::new(), 0, n)
            }
        };
        bad += errors;
        inputs.push(Input {
            name: path.display().to_string(),
            samples: s.len(),
            results,
            bad_lines: errors,
            run: read_run_info(path),
        });
        samples.extend(s);
    }
    let names: Vec<String> = args.files.iter().map(|p| p.display().to_string()).collect();
    let mixed = !samples.is_empty() && !handshakes.is_empty();
    let kinds = [
        (!samples.is_empty(), "samples"),
        (!handshakes.runs.is_empty(), "handshake throughput results"),
        (!handshakes.memory.is_empty(), "memory (--hold) results"),
        (!pages.is_empty(), "page loads"),
        (!bulk.is_empty(), "bulk transfers"),
    ];
    let present: Vec<&str> = kinds.iter().filter(|k| k.0).map(|k| k.1).collect();
    if present.len() > 1 && args.out.format != Format::Markdown {
        bail!(
            "{} make {} documents: report them separately in {} (or together in markdown or with --html)",
            present.join(" and "),
            present.len(),
            if args.out.format == Format::Csv {
                "CSV"
            } else {
                "JSON"
            }
        );
    }
    let other_hook = other_hook(&samples, &inputs);
    let mut text = String::new();
    if !samples.is_empty() || (handshakes.is_empty() && pages.is_empty() && bulk.is_empty()) {
        text.push_str(&args.out.tables(
            &format!(
                "certbench report — {} samples from {}",
                samples.len(),
                names.join(", ")
            ),
            &samples,
            Method::ALL,
            other_hook.as_deref(),
        ));
    }
    if !handshakes.is_empty() {
        if args.out.format == Format::Markdown {
            if mixed {
                text.push('\n');
            }
            text.push_str(&format!(
                "## certbench report — handshakes from {}\n\n",
                names.join(", ")
            ));
        }
        if !handshakes.runs.is_empty() {
            text.push_str(&render_handshakes(&handshakes.runs, args.out.format));
        }
        if !handshakes.memory.is_empty() {
            if args.out.format == Format::Markdown && !handshakes.runs.is_empty() {
                text.push('\n');
            }
            text.push_str(&render_memory(&handshakes.memory, args.out.format));
        }
    }
    if !pages.is_empty() {
        match args.out.format {
            Format::Markdown => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&format!(
                    "## certbench report — page loads from {}\n\n{}",
                    names.join(", "),
                    render_pages(&pages)
                ));
            }
            Format::Csv => text.push_str(&certbench_analysis::page::render_csv(&pages)),
            Format::Json => text.push_str(&(serde_json::to_string_pretty(&pages)? + "\n")),
        }
    }
    if !bulk.is_empty() {
        match args.out.format {
            Format::Markdown => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&format!(
                    "## certbench report — bulk transfers from {}\n\n{}",
                    names.join(", "),
                    certbench_analysis::bulk::render_markdown(&bulk)
                ));
            }
            Format::Csv => text.push_str(&certbench_analysis::bulk::render_csv(&bulk)),
            Format::Json => text.push_str(&(serde_json::to_string_pretty(&bulk)? + "\n")),
        }
    }
    args.out.write(&text)?;
    if let Some(path) = &args.html {
        let order: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
        let report = Report::from_samples(&samples, &order, other_hook.as_deref());
        let command: Vec<String> = std::env::args().collect();
        let page = html::render(
            &report,
            &samples,
            &handshakes,
            &pages,
            &bulk,
            &inputs,
            &command.join(" "),
        );
        std::fs::write(path, page).with_context(|| format!("writing {}", path.display()))?;
        args.out
            .note(&format!("certbench: HTML report in {}", path.display()));
    }
    Ok(Outcome::partial_if(bad != 0))
}

/// The command that measures the other hook, for the answer: `None` when the samples
/// already hold both the callback and the replace hook, else that of the first input whose
/// run header names a driver run.
fn other_hook(samples: &[Sample], inputs: &[Input]) -> Option<String> {
    let has = |h: &str| samples.iter().any(|s| s.config.hook.as_deref() == Some(h));
    if has("callback") && has("replace") {
        return None;
    }
    inputs
        .iter()
        .filter_map(|i| i.run.as_ref())
        .find_map(|r| r.other_hook.clone())
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
    let text = match args.out.format {
        Format::Markdown => format!(
            "## certbench report — baseline {} ({} samples), candidate {} ({} samples)\n\n{}",
            a.display(),
            base.len(),
            b.display(),
            cand.len(),
            render_ab(&rows, args.out.format, args.min_change)
        ),
        f => render_ab(&rows, f, args.min_change),
    };
    match &args.out.output {
        Some(p) => std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?,
        None => print!("{text}"),
    }
    Ok(Outcome::partial_if(bad_a + bad_b != 0))
}
