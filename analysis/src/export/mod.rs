//! Exporters: every renderer of the crate. Each result kind computes its figures in its own
//! module (typed rows and answers, no prose, no table markup); one writer per format turns
//! them into text: `markdown/<kind>.rs`, `csv/<kind>.rs`, `json/`, `html/<kind>.rs`. A kind
//! with every format implements [`Export`]; the `render_*` functions here pick the writer for
//! a [`Format`] (and add a command's title where it has one).

mod csv;
pub mod gathered;
#[cfg(test)]
pub(crate) mod golden;
pub(crate) mod handshake;
pub mod html;
mod json;
pub mod markdown;
mod report;
#[cfg(test)]
mod tests;

pub use report::Report;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Markdown tables, aligned for a terminal, valid on a forge.
    Markdown,
    /// CSV, long form: one line per method × site × stage.
    Csv,
    /// JSON: the [`Report`] with every statistic in nanoseconds.
    Json,
}

impl Format {
    /// Every format's name on the command line (`--format`), in the order help lists them;
    /// each parses as its format (tested).
    pub const NAMES: &'static [&'static str] = &["md", "csv", "json"];
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "md" | "markdown" => Ok(Format::Markdown),
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Json),
            _ => Err(format!("unknown format `{s}` (expected md, csv or json)")),
        }
    }
}

/// A result kind's figures in every format: one writer per format behind one trait
/// (hyperfine's `Exporter`). The kinds that have all three formats implement it; the others
/// have their one or two writers called by name below.
pub trait Export {
    /// Markdown: tables aligned for a terminal, valid on a forge.
    fn markdown(&self) -> String;
    /// CSV, long form.
    fn csv(&self) -> String;
    /// JSON, pretty-printed, with a final newline.
    fn json(&self) -> String;

    /// The figures in `format`.
    fn render(&self, format: Format) -> String {
        match format {
            Format::Markdown => self.markdown(),
            Format::Csv => self.csv(),
            Format::Json => self.json(),
        }
    }
}

impl Export for Report {
    fn markdown(&self) -> String {
        markdown::report::render(self)
    }
    fn csv(&self) -> String {
        csv::report::render(self)
    }
    fn json(&self) -> String {
        json::render(self)
    }
}

impl Export for [crate::bulk::BulkResult] {
    fn markdown(&self) -> String {
        markdown::bulk::table(self)
    }
    fn csv(&self) -> String {
        csv::bulk::render(self)
    }
    fn json(&self) -> String {
        certbench_schema::records::write_list(self)
    }
}

impl Export for [crate::page::PageLoad] {
    fn markdown(&self) -> String {
        markdown::page::render(self)
    }
    fn csv(&self) -> String {
        csv::page::render(self)
    }
    fn json(&self) -> String {
        certbench_schema::records::write_list(self)
    }
}

impl Export for [crate::handshake::HandshakeRun] {
    fn markdown(&self) -> String {
        markdown::handshake::runs(self)
    }
    fn csv(&self) -> String {
        csv::handshake::render(self)
    }
    fn json(&self) -> String {
        certbench_schema::records::write_list(self)
    }
}

impl Export for [crate::handshake::MemoryRun] {
    fn markdown(&self) -> String {
        markdown::handshake::memory(self)
    }
    fn csv(&self) -> String {
        csv::handshake::render(self)
    }
    fn json(&self) -> String {
        certbench_schema::records::write_list(self)
    }
}

/// Renders `report` in `format`.
pub fn render(report: &Report, format: Format) -> String {
    report.render(format)
}

/// The tables of `samples` in `format` (tables in `order` of methods; markdown under the
/// heading `## title`); `other_hook` is the command that measures the other hook, for the
/// answer's last line.
pub fn render_samples(
    title: &str,
    samples: &[certbench_schema::Sample],
    order: &[&str],
    other_hook: Option<&str>,
    format: Format,
) -> String {
    let report = Report::from_samples(samples, order, other_hook);
    let mut text = String::new();
    if format == Format::Markdown {
        text.push_str(&format!("## {title}\n\n"));
    }
    text.push_str(&render(&report, format));
    text
}

/// Renders an A/B comparison ([`crate::ab::compare`]) in `format`; `min_change` is the
/// threshold it used (named in the markdown title).
pub fn render_ab(rows: &[crate::ab::AbRow], format: Format, min_change: f64) -> String {
    match format {
        Format::Markdown => markdown::ab::render(rows, min_change),
        Format::Csv => csv::ab::render(rows),
        Format::Json => serde_json::to_string_pretty(rows).expect("rows serialize") + "\n",
    }
}

/// `certbench report --baseline A --candidate B`'s output: in markdown under a title naming
/// both runs ([`render_ab`] below it).
pub fn render_ab_runs(
    runs: &crate::ab::AbRuns,
    rows: &[crate::ab::AbRow],
    format: Format,
    min_change: f64,
) -> String {
    match format {
        Format::Markdown => format!(
            "## certbench report — baseline {} ({} samples), candidate {} ({} samples)\n\n{}",
            runs.baseline,
            runs.baseline_samples,
            runs.candidate,
            runs.candidate_samples,
            render_ab(rows, format, min_change)
        ),
        f => render_ab(rows, f, min_change),
    }
}

/// Bulk transfers in `format`, as a report's section (markdown: the table alone).
pub fn render_bulk(results: &[crate::bulk::BulkResult], format: Format) -> String {
    results.render(format)
}

/// `certbench bulk`'s output in `format`: markdown under a title naming `run`'s sizes.
pub fn render_bulk_run(
    results: &[crate::bulk::BulkResult],
    run: &crate::bulk::BulkRun,
    format: Format,
) -> String {
    match format {
        Format::Markdown => markdown::bulk::document(results, run),
        f => render_bulk(results, f),
    }
}

/// Page loads in `format`, as a report's section and `certbench page` write them (markdown:
/// the tables, without a title).
pub fn render_pages(loads: &[crate::page::PageLoad], format: Format) -> String {
    loads.render(format)
}

/// `certbench page`'s output in `format`: markdown under the heading `## title`.
pub fn render_page_run(title: &str, loads: &[crate::page::PageLoad], format: Format) -> String {
    match format {
        Format::Markdown => format!("## {title}\n\n{}", markdown::page::render(loads)),
        f => render_pages(loads, f),
    }
}

/// `certbench handshake`'s runs in `format` (markdown: the throughput and latency tables).
pub fn render_handshakes(runs: &[crate::handshake::HandshakeRun], format: Format) -> String {
    runs.render(format)
}

/// Memory per idle connection (`certbench handshake --hold`) in `format`.
pub fn render_memory(runs: &[crate::handshake::MemoryRun], format: Format) -> String {
    runs.render(format)
}

/// `certbench limbo`'s summary in markdown (at most [`LimboReport::show`] differing
/// testcases per pair).
///
/// [`LimboReport::show`]: crate::limbo::report::LimboReport::show
pub fn render_limbo_markdown(report: &crate::limbo::report::LimboReport) -> String {
    markdown::limbo::report(report)
}

/// `certbench limbo`'s summary as JSON (every difference listed).
pub fn render_limbo_json(report: &crate::limbo::report::LimboReport) -> String {
    json::limbo::summary(report)
}

/// `certbench verify`'s store scaling, in markdown, under a title naming `store`.
pub fn render_store_scaling(
    rows: &[crate::verify::ScalingRow],
    store: &crate::verify::Store,
) -> String {
    markdown::verify::store_scaling(rows, store)
}

/// `certbench verify`'s `rustlsparallel` against its bound, in markdown.
pub fn render_parallel_bound(bound: &crate::verify::ParallelBound) -> String {
    markdown::verify::parallel_bound(bound)
}

/// A patched Servo's samples in markdown (one section); `None` when `samples` have none.
pub fn render_servo(samples: &[certbench_schema::Sample]) -> Option<String> {
    crate::servo_report::report(samples).map(|groups| markdown::servo::render(&groups))
}

/// The answer's lines (the comparison's, then a `--pq` run's), as the markdown lists them.
pub fn render_answer(answer: &crate::answer::Answers) -> Vec<String> {
    markdown::answer::lines(answer)
}

/// `certbench revocation-scale`'s output: markdown under its title, or JSON (no CSV: the
/// command refuses it before measuring).
pub fn render_revocation_scale(report: &crate::revocation_scale::Report, format: Format) -> String {
    match format {
        Format::Json => certbench_schema::records::write_doc(report),
        _ => format!(
            "## Revocation: lookup cost against data size\n\n{}",
            markdown::revocation_scale::table(report)
        ),
    }
}

/// `certbench wire`'s tables and answer, in markdown, from its samples.
pub fn render_wire(samples: &[certbench_schema::Sample]) -> String {
    let rows = crate::pq::onwire::rows(samples);
    format!(
        "## Post-quantum on the wire: TCP and QUIC through the emulated link

Per link, transport, response and set of chains: the handshake's round trips as the link counted them (QUIC) beside the model's (QUIC: 1 + the amplification limit's; TCP: TCP's and TLS's 2 + the initial window's), the response's first and last byte (median over sites of each site's median, range over sites), and each twin against today's chain of the same site.
{}
### answer

{}
",
        markdown::onwire::tables(&rows),
        markdown::onwire::answer(&rows)
    )
}

/// `certbench icount`'s tables and its largest spread, in markdown.
pub fn render_icount(tables: &crate::icount::IcountTables) -> String {
    markdown::icount::render(tables)
}

/// The start-up section: each mechanism's load over fresh processes (markdown only; the
/// other formats carry the samples' figures alone).
pub fn render_startup(items: &[crate::startup::StartUp], format: Format) -> String {
    match format {
        Format::Markdown => markdown::startup::section(items),
        _ => String::new(),
    }
}

/// `certbench capture`'s title and table, in markdown.
pub fn render_capture(run: &crate::capture::CaptureRun) -> String {
    markdown::capture::render(run)
}
