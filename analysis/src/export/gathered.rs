//! The report over several result files read together ([`Gathered`]): the samples' tables,
//! then the handshake, page and bulk sections, in markdown (each kind under its heading) or,
//! for one kind alone, CSV or JSON; and the HTML report of them all.

use super::html;
use super::{Format, Report, render as render_report, render_bulk, render_handshakes};
use super::{render_memory, render_pages, render_servo};
use certbench_schema::records::{write_doc, write_list};

use super::markdown;
use crate::icount::IcountRow;
use crate::input::{Gathered, MixedKinds, RenderError};

/// The report in `format`: the samples' tables (methods in `order` first; also when
/// there is nothing else), then the handshake, page and bulk sections. CSV and JSON hold
/// one kind only.
pub fn render(g: &Gathered, format: Format, order: &[&str]) -> Result<String, RenderError> {
    let kinds = g.kinds();
    if kinds.len() > 1 && format != Format::Markdown {
        return Err(MixedKinds { kinds, format }.into());
    }
    if format == Format::Csv && g.documents() {
        return Err(RenderError::NoCsv(kinds.join(" and ")));
    }
    let names = g.names();
    let mut text = String::new();
    let nothing_else = g.records() == g.samples.len();
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
    documents_section(g, &mut text, format, &names);
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
        let json = || certbench_schema::records::write_list(p);
        let (md, csv) = (
            || render_pages(p, Format::Markdown),
            || render_pages(p, Format::Csv),
        );
        section(text, (format, "page loads", names), md, csv, json);
    }
    if !g.bulk.is_empty() {
        let b = &g.bulk;
        let json = || certbench_schema::records::write_list(b);
        let (md, csv) = (
            || render_bulk(b, Format::Markdown),
            || render_bulk(b, Format::Csv),
        );
        section(text, (format, "bulk transfers", names), md, csv, json);
    }
}

/// The sections of the kinds a command writes as one document (limbo results, captures,
/// instruction counts, revocation-scale runs): markdown under each heading, or JSON as the
/// command wrote it (CSV was refused above).
fn documents_section(g: &Gathered, text: &mut String, format: Format, names: &str) {
    let none = String::new;
    if !g.limbo.is_empty() {
        let md = || markdown::limbo::results(&g.limbo);
        let json = || g.limbo.iter().map(write_doc).collect();
        section(text, (format, "limbo results", names), md, none, json);
    }
    for c in &g.captures {
        let (md, json) = (|| markdown::capture::render(c), || write_doc(c));
        section(text, (format, "a capture", names), md, none, json);
    }
    if !g.icount.is_empty() {
        let rows: Vec<IcountRow> = (g.icount.iter())
            .filter_map(|runs| {
                let first = runs.first()?;
                let counts = runs.iter().map(|c| c.per_verify).collect();
                Some(IcountRow {
                    what: first.method.clone(),
                    on: first.key.clone(),
                    counts,
                })
            })
            .collect();
        let (md, json) = (|| markdown::icount::counts(&rows), || write_list(&g.icount));
        section(text, (format, "instruction counts", names), md, none, json);
    }
    for r in &g.revocation_scale {
        let md = || markdown::revocation_scale::table(r);
        section(text, (format, "revocation-scale", names), md, none, || {
            write_doc(r)
        });
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
        Format::Json => text.push_str(&json()),
    }
}
