//! HTML: one self-contained file (inline SVG charts drawn with plotters, inline CSS, no
//! script, nothing fetched at view time): the runs' machine, versions and command lines at
//! the top; then per-site bars of the compared stage per method with 95 % error bars, a
//! stacked bar of stages per method, box plots of the slowest sites; then the tables; then,
//! when handshake results are given, their section ([`handshake`]).

mod bulk;
mod handshake;
mod page;

use std::collections::BTreeMap;
use std::fmt::Write;

use plotters::prelude::*;

use super::Report;
use crate::handshake::Results;
use crate::schema::{RunInfo, Sample, Stage};
use crate::stats::Summary;
use crate::table::SeedTable;
use crate::units::human;

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

/// Leaf stages, disjoint by construction, stacked in the stage chart; `connection` is shown
/// less the verification inside it.
const STACKED: &[Stage] = &[
    Stage::RootsCreation,
    Stage::HttpConnectorCreation,
    Stage::OpenSslVerify,
    Stage::ChainCreation,
    Stage::Verify,
    Stage::VerifyHostname,
];

/// Appends an HTML table; columns from `numeric_from` on are right-aligned numbers.
fn html_table(h: &mut String, headers: &[&str], rows: &[Vec<String>], numeric_from: usize) {
    h.push_str("<table><tr>");
    for c in headers {
        let _ = write!(h, "<th>{}</th>", esc(c));
    }
    h.push_str("</tr>\n");
    for row in rows {
        h.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            if i >= numeric_from {
                let _ = write!(h, "<td class=\"n\">{}</td>", esc(c));
            } else {
                let _ = write!(h, "<td>{}</td>", esc(c));
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn table_title(t: &SeedTable) -> String {
    match t.config.describe_method() {
        m if m.is_empty() => t.name(),
        m => format!("{} — {m}", t.name()),
    }
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

    if report.tables.is_empty() {
        handshake::section(&mut h, handshakes);
        page::section(&mut h, pages);
        bulk::section(&mut h, bulk);
        h.push_str("</body></html>\n");
        return h;
    }
    let stage = Stage::TotalVerification;
    h.push_str("<h2>Charts</h2>\n");
    for svg in [
        store_curve(samples, Stage::RootsCreation),
        store_curve(samples, Stage::TotalVerification),
        bars(report, stage),
        stacked(report),
        boxes(report, samples, stage),
    ]
    .into_iter()
    .flatten()
    {
        let _ = writeln!(h, "<div class=\"chart\">{svg}</div>");
    }

    h.push_str("<h2>Tables</h2>\n");
    for t in &report.tables {
        seed_table_html(&mut h, t);
    }
    if let Some(cmp) = &report.comparison {
        let _ = writeln!(
            h,
            "<h3>Comparison per site: own cost (what the verifier itself spent) | 2017 view (what the handshake paid), medians, × the site's fastest</h3>"
        );
        h.push_str("<table><tr><th>site</th>");
        for m in &cmp.methods {
            let _ = write!(h, "<th>{}</th>", esc(m));
        }
        h.push_str("<th>fastest (own)</th><th>fastest (2017 view)</th></tr>\n");
        for row in &cmp.rows {
            let _ = write!(h, "<tr><td>{}</td>", esc(&row.label));
            for m in &cmp.methods {
                match row.cells.iter().find(|c| &c.method == m) {
                    Some(c) => {
                        let _ = write!(
                            h,
                            "<td class=\"n\">{} ×{:.2} | {} ×{:.2} (n={})</td>",
                            human(c.own.median),
                            c.own_ratio,
                            human(c.paid.median),
                            c.paid_ratio,
                            c.own.n
                        );
                    }
                    None => h.push_str("<td>—</td>"),
                }
            }
            let _ = writeln!(
                h,
                "<td>{}</td><td>{}</td></tr>",
                esc(&row.fastest_own),
                esc(&row.fastest_paid)
            );
        }
        h.push_str("</table>\n");
        if !report.answer.is_empty() {
            h.push_str("<h3>Answer</h3>\n<ul>\n");
            for l in &report.answer {
                let _ = writeln!(h, "<li>{}</li>", esc(l));
            }
            h.push_str("</ul>\n");
        }
    }
    handshake::section(&mut h, handshakes);
    page::section(&mut h, pages);
    bulk::section(&mut h, bulk);
    h.push_str("</body></html>\n");
    h
}

/// Store scaling (`verify --extra-roots N` runs given together): `stage` against the number
/// of roots in the store, one line per method, each point the median over chains of each
/// chain's median (log–log; [`crate::verify::store_curve`]). `None` unless `verify` samples
/// come with two store sizes or more and have the stage (roots-creation: stores built cold).
fn store_curve(samples: &[Sample], stage: Stage) -> Option<String> {
    let crate::verify::StoreCurve { sizes, lines } = crate::verify::store_curve(samples, stage)?;
    let ys = lines.values().flatten().map(|p| p.1);
    let (ymin, ymax) = ys.fold((f64::MAX, 0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let xs: Vec<f64> = sizes.iter().map(|&n| n as f64).collect();
    let (xmin, xmax) = (xs[0].max(1.0), xs[xs.len() - 1]);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1100, 520)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{stage} against the roots in the store (median over chains of each chain's median), µs"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                (xmin * 0.8..xmax * 1.25).log_scale(),
                (ymin.max(1e-3) * 0.7..ymax * 1.4).log_scale(),
            )
            .ok()?;
        chart
            .configure_mesh()
            .x_desc("roots in the store")
            .y_desc("µs")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| {
                if *y >= 10.0 {
                    format!("{y:.0}")
                } else {
                    format!("{y:.2}")
                }
            })
            .draw()
            .ok()?;
        for (j, (method, points)) in lines.iter().enumerate() {
            let color = Palette99::pick(j).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))
                .ok()?
                .label(method.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 14, y)], color.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .ok()?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .ok()?;
        root.present().ok()?;
    }
    Some(svg)
}

fn seed_table_html(h: &mut String, t: &SeedTable) {
    let _ = writeln!(
        h,
        "<h3>{}</h3>\n<p class=\"note\">Cells: mean ± 95 % CI half-width (median / p90); outliers by Tukey's fences marked †.</p>",
        esc(&table_title(t))
    );
    h.push_str("<table><tr><th>site</th><th>n</th>");
    for st in &t.stages {
        let _ = write!(h, "<th>{st}</th>");
    }
    h.push_str("<th>verdict</th></tr>\n");
    for r in &t.rows {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td>",
            esc(&r.label),
            r.n
        );
        for st in &t.stages {
            match r.cells.get(st) {
                Some(s) => {
                    let _ = write!(
                        h,
                        "<td class=\"n\">{} ± {} ({} / {}){}</td>",
                        human(s.mean),
                        human((s.ci95_high - s.mean).max(0.0)),
                        human(s.median),
                        human(s.p90),
                        if s.outliers > 0 { " †" } else { "" }
                    );
                }
                None => h.push_str("<td>—</td>"),
            }
        }
        let _ = writeln!(h, "<td>{}</td></tr>", esc(&r.verdict));
    }
    h.push_str("</table>\n");
}

fn name(t: &SeedTable) -> String {
    t.name()
}

/// Sites in order of first appearance over the tables that have `stage`.
fn sites(report: &Report, stage: Stage) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in &report.tables {
        for r in &t.rows {
            if r.cells.contains_key(&stage) && !out.contains(&r.label) {
                out.push(r.label.clone());
            }
        }
    }
    out
}

const UNIT_NS: f64 = 1e3; // charts in µs

/// The label of the band whose centre is at `pos` (0 = the first band's centre) for a
/// category axis drawn on a numeric one; empty between bands.
fn band_label(pos: f64, labels: &[String]) -> String {
    if (pos - pos.round()).abs() < 0.01 && pos >= 0.0 {
        labels
            .get(pos.round() as usize)
            .cloned()
            .unwrap_or_default()
    } else {
        String::new()
    }
}

/// Per-site horizontal bars of `stage`'s mean per method, with 95 % error bars.
fn bars(report: &Report, stage: Stage) -> Option<String> {
    let sites = sites(report, stage);
    let tables: Vec<&SeedTable> = report
        .tables
        .iter()
        .filter(|t| t.stages.contains(&stage))
        .collect();
    if sites.is_empty() || tables.is_empty() {
        return None;
    }
    let cells: Vec<Vec<Option<&Summary>>> = sites
        .iter()
        .map(|s| {
            tables
                .iter()
                .map(|t| {
                    t.rows
                        .iter()
                        .find(|r| &r.label == s)
                        .and_then(|r| r.cells.get(&stage))
                })
                .collect()
        })
        .collect();
    let xmax = cells
        .iter()
        .flatten()
        .flatten()
        .map(|s| s.ci95_high.max(s.mean))
        .fold(0.0, f64::max)
        / UNIT_NS
        * 1.08;
    let m = tables.len();
    let height = (90 + sites.len() * (m * 14 + 12)).min(6000) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1100, height)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{stage} per site and method (mean, 95 % CI), µs"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(230)
            .build_cartesian_2d(0f64..xmax.max(1e-3), 0f64..sites.len() as f64)
            .ok()?;
        let labels = sites.clone();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(sites.len() * 2 + 1)
            .y_label_formatter(&|y| band_label(sites.len() as f64 - y - 0.5, &labels))
            .x_desc("µs")
            .draw()
            .ok()?;
        let band = 0.8 / m as f64;
        for (j, t) in tables.iter().enumerate() {
            let color = Palette99::pick(j).to_rgba();
            let rects = cells.iter().enumerate().filter_map(|(i, row)| {
                let s = row[j]?;
                let top = sites.len() as f64 - i as f64 - 0.1 - band * j as f64;
                Some(Rectangle::new(
                    [(0.0, top), (s.mean / UNIT_NS, top - band * 0.9)],
                    color.filled(),
                ))
            });
            chart
                .draw_series(rects)
                .ok()?
                .label(name(t))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
            let errs = cells.iter().enumerate().filter_map(|(i, row)| {
                let s = row[j]?;
                let mid = sites.len() as f64 - i as f64 - 0.1 - band * j as f64 - band * 0.45;
                Some(ErrorBar::new_horizontal(
                    mid,
                    s.ci95_low.max(0.0) / UNIT_NS,
                    s.mean / UNIT_NS,
                    s.ci95_high / UNIT_NS,
                    BLACK.stroke_width(1),
                    6,
                ))
            });
            chart.draw_series(errs).ok()?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .ok()?;
        root.present().ok()?;
    }
    Some(svg)
}

/// Per method: the mean over sites of each leaf stage's mean, stacked; `connection` less the
/// verification inside it on top when the samples have a connection.
fn stacked(report: &Report) -> Option<String> {
    let mut methods: Vec<(String, Vec<(String, f64)>)> = Vec::new();
    for t in &report.tables {
        let mut parts: BTreeMap<usize, (String, f64)> = BTreeMap::new();
        let mut add = |k: usize, label: &str, v: f64| {
            let e = parts.entry(k).or_insert((label.to_owned(), 0.0));
            e.1 += v;
        };
        let rows: Vec<_> = t.rows.iter().filter(|r| !r.cells.is_empty()).collect();
        if rows.is_empty() {
            continue;
        }
        let per = 1.0 / rows.len() as f64;
        for r in &rows {
            for (k, st) in STACKED.iter().enumerate() {
                if let Some(s) = r.cells.get(st) {
                    add(k, st.name(), s.mean * per);
                }
            }
            if let (Some(c), Some(v)) = (
                r.cells.get(&Stage::Connection),
                r.cells.get(&Stage::TotalVerification),
            ) {
                add(
                    STACKED.len(),
                    "connection (less verification)",
                    (c.mean - v.mean).max(0.0) * per,
                );
            }
        }
        methods.push((name(t), parts.into_values().collect()));
    }
    if methods.is_empty() {
        return None;
    }
    let mut labels: Vec<String> = Vec::new();
    for (_, parts) in &methods {
        for (l, _) in parts {
            if !labels.contains(l) {
                labels.push(l.clone());
            }
        }
    }
    let ymax = methods
        .iter()
        .map(|(_, p)| p.iter().map(|(_, v)| v).sum::<f64>())
        .fold(0.0, f64::max)
        / UNIT_NS
        * 1.6; // headroom: the legend sits above the bars
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1100, 460)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let names: Vec<String> = methods.iter().map(|(m, _)| m.clone()).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Stages per method (mean per site, averaged over sites), µs",
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..methods.len() as f64, 0f64..ymax.max(1e-3))
            .ok()?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(methods.len() * 2 + 1)
            .x_label_formatter(&|x| band_label(x - 0.5, &names))
            .y_desc("µs")
            .draw()
            .ok()?;
        for (k, label) in labels.iter().enumerate() {
            let color = Palette99::pick(k + 3).to_rgba();
            let rects = methods.iter().enumerate().filter_map(|(i, (_, parts))| {
                let idx = parts.iter().position(|(l, _)| l == label)?;
                let below: f64 = parts[..idx].iter().map(|(_, v)| v).sum::<f64>() / UNIT_NS;
                let v = parts[idx].1 / UNIT_NS;
                Some(Rectangle::new(
                    [(i as f64 + 0.2, below), (i as f64 + 0.8, below + v)],
                    color.filled(),
                ))
            });
            chart
                .draw_series(rects)
                .ok()?
                .label(label.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .ok()?;
        root.present().ok()?;
    }
    Some(svg)
}

/// Box plots (quartiles, whiskers at 1.5 IQR) of `stage` per method for the three sites with
/// the highest mean, one chart each.
fn boxes(report: &Report, samples: &[Sample], stage: Stage) -> Option<String> {
    let mut worst: Vec<(String, f64)> = sites(report, stage)
        .into_iter()
        .map(|site| {
            let m = report
                .tables
                .iter()
                .filter_map(|t| t.rows.iter().find(|r| r.label == site))
                .filter_map(|r| r.cells.get(&stage))
                .map(|s| s.mean)
                .fold(0.0, f64::max);
            (site, m)
        })
        .collect();
    worst.sort_by(|a, b| b.1.total_cmp(&a.1));
    worst.truncate(3);
    if worst.is_empty() {
        return None;
    }
    let mut out = String::new();
    for (site, _) in &worst {
        // The samples of this row per table (method, transport); row labels are sites, or
        // site [source] when a site has several chains.
        let mut series: Vec<(String, Vec<f64>)> = Vec::new();
        for t in &report.tables {
            let Some(row) = t.rows.iter().find(|r| &r.label == site) else {
                continue;
            };
            let values: Vec<f64> = samples
                .iter()
                .filter(|s| {
                    !s.warmup
                        && s.method == t.method
                        && s.config == t.config
                        && s.site_id() == row.site
                        && s.chain == row.chain
                })
                .filter_map(|s| s.stage(stage))
                .map(|v| v as f64 / UNIT_NS)
                .collect();
            if !values.is_empty() {
                series.push((name(t), values));
            }
        }
        if series.is_empty() {
            continue;
        }
        let ymax = series
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .fold(0.0, f64::max)
            * 1.1;
        let names: Vec<String> = series.iter().map(|(n, _)| n.clone()).collect();
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (1100, 380)).into_drawing_area();
            root.fill(&WHITE).ok()?;
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    format!("{site}: distribution of {stage} per method, µs"),
                    ("sans-serif", 18),
                )
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(70)
                .build_cartesian_2d(names[..].into_segmented(), 0f32..ymax.max(1e-3) as f32)
                .ok()?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_label_formatter(&|v| match v {
                    SegmentValue::Exact(m) | SegmentValue::CenterOf(m) => m.to_string(),
                    SegmentValue::Last => String::new(),
                })
                .y_desc("µs")
                .draw()
                .ok()?;
            let boxes = series.iter().enumerate().map(|(i, (_, v))| {
                Boxplot::new_vertical(SegmentValue::CenterOf(&names[i]), &Quartiles::new(v))
                    .width(40)
                    .style(Palette99::pick(i).stroke_width(2))
            });
            chart.draw_series(boxes).ok()?;
            root.present().ok()?;
        }
        out.push_str(&svg);
    }
    Some(out)
}
