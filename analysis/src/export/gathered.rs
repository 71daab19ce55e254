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
        let render = |f| render_pages(&g.pages, f);
        section(text, (format, "page loads", names), render);
    }
    if !g.bulk.is_empty() {
        let render = |f| render_bulk(&g.bulk, f);
        section(text, (format, "bulk transfers", names), render);
    }
}

/// The sections of the kinds a command writes as one document (limbo results, captures,
/// instruction counts, revocation-scale runs): markdown under each heading, or JSON as the
/// command wrote it (CSV was refused above).
fn documents_section(g: &Gathered, text: &mut String, format: Format, names: &str) {
    let doc = |md: String, json: String| move |f| if f == Format::Markdown { md } else { json };
    if !g.limbo.is_empty() {
        let json = g.limbo.iter().map(write_doc).collect();
        let render = doc(markdown::limbo::results(&g.limbo), json);
        section(text, (format, "limbo results", names), render);
    }
    for c in &g.captures {
        let render = doc(markdown::capture::render(c), write_doc(c));
        section(text, (format, "a capture", names), render);
    }
    if !g.icount.is_empty() {
        let rows: Vec<IcountRow> = (g.icount.iter())
            .filter_map(|runs| Some(IcountRow::of(&runs.first()?.method, &runs[0].key, runs)))
            .collect();
        let render = doc(markdown::icount::counts(&rows), write_list(&g.icount));
        section(text, (format, "instruction counts", names), render);
    }
    for r in &g.revocation_scale {
        let render = doc(markdown::revocation_scale::table(r), write_doc(r));
        section(text, (format, "revocation-scale", names), render);
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

/// Appends one kind's section, `render` writing it in a format: in markdown under its
/// heading (`what` from `names`), after a blank line when the text has something before it;
/// in any other format as `render` writes it.
fn section(
    text: &mut String,
    (format, what, names): (Format, &str, &str),
    render: impl FnOnce(Format) -> String,
) {
    if format != Format::Markdown {
        text.push_str(&render(format));
        return;
    }
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(&format!(
        "## certbench report — {what} from {names}\n\n{}",
        render(format)
    ));
}
