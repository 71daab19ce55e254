//! HTML: one self-contained file (inline SVG charts drawn with plotters, inline CSS, no
//! script, nothing fetched at view time). This file is the page shell: the head and style,
//! the runs' machine, versions and command lines at the top; then, when there are samples,
//! the charts ([`chart`]: store scaling, per-site bars of the compared stage per method with
//! 95 % error bars, a stacked bar of stages per method, box plots of the slowest sites) and
//! the tables ([`table`]); then the handshake, page-load and bulk-transfer sections
//! ([`handshake`], [`page`], [`bulk`]), each only when such results are given. With
//! `--revocation` samples, the revocation section ([`revocation`]) follows the tables.
//!
//! Every text from the inputs goes through [`table::esc`]; the sections and charts append to
//! one `String` in page order and never read what came before.

mod bulk;
mod chart;
mod handshake;
mod page;
mod pq;
mod revocation;
mod servo;
mod table;

use std::fmt::Write;

use super::report::Report;
use crate::handshake::Results;
use certbench_schema::{RunInfo, Sample, Stage};
use table::esc;

/// One input file of a report, with its run header when it has one.
#[derive(Clone, Debug)]
pub struct Input {
    /// As given on the command line.
    pub name: String,
    /// Samples read from it.
    pub samples: usize,
    /// Handshake or memory results read from it (`certbench handshake --format json`).
    pub results: usize,
    /// Malformed lines skipped.
    pub bad_lines: usize,
    /// Its `.run.json`, if any.
    pub run: Option<RunInfo>,
}

/// Renders the whole page. `samples` are the report's (for the distributions);
/// `handshakes` the handshake results given with them (may be empty); `command` is the
/// report's own command line.
pub fn render(
    report: &Report,
    samples: &[Sample],
    handshakes: &Results,
    pages: &[crate::page::PageLoad],
    bulk: &[crate::bulk::BulkResult],
    inputs: &[Input],
    command: &str,
) -> String {
    let mut h = String::new();
    head(&mut h, report, command);
    runs(&mut h, report, inputs);
    if !report.tables.is_empty() {
        charts(&mut h, report, samples);
        table::tables(&mut h, report);
        pq::section(&mut h, report.pq.as_ref());
        revocation::section(&mut h, &report.revocation);
        servo::section(&mut h, &report.servo);
    }
    handshake::section(&mut h, handshakes);
    page::section(&mut h, pages);
    bulk::section(&mut h, bulk);
    h.push_str("</body></html>\n");
    h
}

/// The document's head and style, the title, and the line naming the report's command (with
/// what sample figures mean when there are samples).
fn head(h: &mut String, report: &Report, command: &str) {
    h.push_str(concat!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        "<title>certbench report</title>\n<style>\n",
        "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}\n",
        "h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}\n",
        "table{border-collapse:collapse;margin:1em 0;font-size:.85em}\n",
        "th,td{border:1px solid #ccc;padding:.25em .6em}td.n{text-align:right;font-variant-numeric:tabular-nums}\n",
        "th{background:#f4f4f4}code{background:#f4f4f4;padding:0 .2em}\n",
        ".chart{margin:1em 0;overflow-x:auto}.note{color:#555;font-size:.9em}\n",
        "dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em;font-size:.9em}dt{font-weight:600}\n",
        "</style></head><body>\n<h1>certbench report</h1>\n"
    ));
    let _ = writeln!(
        h,
        "<p class=\"note\">Made by <code>{}</code>.{}</p>",
        esc(command),
        if report.tables.is_empty() {
            ""
        } else {
            " Sample figures: mean with the 95 % confidence interval of the mean (Student's t); warm-up samples left out."
        }
    );
}

/// The runs: each run-level configuration, then per input file what it held and its run
/// header (command, machine, OS, versions) or why there is none.
fn runs(h: &mut String, report: &Report, inputs: &[Input]) {
    h.push_str("<h2>Runs</h2>\n");
    for c in &report.configs {
        let _ = writeln!(h, "<p>Configuration: {}.</p>", esc(c));
    }
    for input in inputs {
        let what = if input.results > 0 {
            format!("{} result(s)", input.results)
        } else {
            format!("{} samples", input.samples)
        };
        let _ = writeln!(
            h,
            "<h3><code>{}</code>: {what}{}</h3>",
            esc(&input.name),
            if input.bad_lines > 0 {
                format!(", {} malformed line(s) skipped", input.bad_lines)
            } else {
                String::new()
            }
        );
        match &input.run {
            Some(run) => {
                h.push_str("<dl>");
                let _ = write!(
                    h,
                    "<dt>command</dt><dd><code>{}</code></dd><dt>machine</dt><dd>{}</dd><dt>OS</dt><dd>{}</dd>",
                    esc(&run.command.join(" ")),
                    esc(&run.machine),
                    esc(&run.os)
                );
                let versions: Vec<String> = run
                    .versions
                    .iter()
                    .map(|(k, v)| format!("{} {}", esc(k), esc(v)))
                    .collect();
                let _ = writeln!(h, "<dt>versions</dt><dd>{}</dd></dl>", versions.join(", "));
            }
            None if input.results > 0 => h.push_str(
                "<p class=\"note\">No run header beside this file (<code>certbench handshake --output</code> writes one; <code>certbench page</code> does not).</p>\n",
            ),
            None => h.push_str(
                "<p class=\"note\">No run header beside this file (e.g. a patched Servo build's samples).</p>\n",
            ),
        }
    }
}

/// The sample charts, in page order; a chart that cannot be drawn is left out.
fn charts(h: &mut String, report: &Report, samples: &[Sample]) {
    let stage = Stage::TotalVerification;
    h.push_str("<h2>Charts</h2>\n");
    for svg in [
        chart::store_curve(samples, Stage::RootsCreation),
        chart::store_curve(samples, Stage::TotalVerification),
        chart::bars(report, stage),
        chart::stacked(report),
        chart::boxes(report, samples, stage),
    ] {
        chart::push(h, svg);
    }
}
