//! The report over several result files read together ([`Gathered`]): the samples' tables,
//! then the handshake, page and bulk sections, in markdown (each kind under its heading) or,
//! for one kind alone, CSV or JSON; and the HTML report of them all.

use super::html;
use super::{Format, Report, render as render_report, render_bulk, render_handshakes};
use super::{render_memory, render_pages, render_servo};
use crate::input::{Gathered, MixedKinds};

/// The report in `format`: the samples' tables (methods in `order` first; also when
/// there is nothing else), then the handshake, page and bulk sections. CSV and JSON hold
/// one kind only.
pub fn render(g: &Gathered, format: Format, order: &[&str]) -> Result<String, MixedKinds> {
    let kinds = g.kinds();
    if kinds.len() > 1 && format != Format::Markdown {
        return Err(MixedKinds { kinds, format });
    }
    let names = g.names();
    let mut text = String::new();
    let nothing_else = g.handshakes.is_empty() && g.pages.is_empty() && g.bulk.is_empty();
    if !g.samples.is_empty() || nothing_else {
        let other_hook = g.other_hook();
        let report = Report::from_samples(&g.samples, order, other_hook.as_deref());
        if format == Format::Markdown {
            let n = g.samples.len();
            text.push_str(&format!(
                "## certbench report — {n} samples from {names}\n\n"
            ));
        }
        text.push_str(&render_report(&report, format));
        if format == Format::Markdown
            && let Some(servo) = render_servo(&g.samples)
        {
            text.push('\n');
            text.push_str(&servo);
        }
    }
    handshake_section(g, &mut text, format, &names);
    results_section(g, &mut text, format, &names);
    Ok(text)
}

fn handshake_section(g: &Gathered, text: &mut String, format: Format, names: &str) {
    let hs = &g.handshakes;
    if hs.is_empty() {
        return;
    }
    if format == Format::Markdown {
        if !g.samples.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!(
            "## certbench report — handshakes from {names}\n\n"
        ));
    }
    if !hs.runs.is_empty() {
        text.push_str(&render_handshakes(&hs.runs, format));
    }
    if !hs.memory.is_empty() {
        if format == Format::Markdown && !hs.runs.is_empty() {
            text.push('\n');
        }
        text.push_str(&render_memory(&hs.memory, format));
    }
}

fn results_section(g: &Gathered, text: &mut String, format: Format, names: &str) {
    if !g.pages.is_empty() {
        let p = &g.pages;
        let json = || serde_json::to_string_pretty(p).expect("page loads serialize");
        let (md, csv) = (
            || render_pages(p, Format::Markdown),
            || render_pages(p, Format::Csv),
        );
        section(text, (format, "page loads", names), md, csv, json);
    }
    if !g.bulk.is_empty() {
        let b = &g.bulk;
        let json = || serde_json::to_string_pretty(b).expect("bulk transfers serialize");
        let (md, csv) = (
            || render_bulk(b, Format::Markdown),
            || render_bulk(b, Format::Csv),
        );
        section(text, (format, "bulk transfers", names), md, csv, json);
    }
}

/// The HTML report of every file; `order` as for [`render`], `command` the
/// report's own command line.
pub fn html(g: &Gathered, order: &[&str], command: &str) -> String {
    let other_hook = g.other_hook();
    let report = Report::from_samples(&g.samples, order, other_hook.as_deref());
    html::render(
        &report,
        &g.samples,
        &g.handshakes,
        &g.pages,
        &g.bulk,
        &g.inputs,
        command,
    )
}

/// Appends one kind's section in `format`: in markdown under its heading (`what` from
/// `names`), after a blank line when the text has something before it.
fn section(
    text: &mut String,
    (format, what, names): (Format, &str, &str),
    markdown: impl FnOnce() -> String,
    csv: impl FnOnce() -> String,
    json: impl FnOnce() -> String,
) {
    match format {
        Format::Markdown => {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!(
                "## certbench report — {what} from {names}\n\n{}",
                markdown()
            ));
        }
        Format::Csv => text.push_str(&csv()),
        Format::Json => text.push_str(&(json() + "\n")),
    }
}
