//! Grouped horizontal bars: per site, the compared stage's mean per method with 95 % error
//! bars ([`bars`]); and the generic kind the handshake, page and bulk sections draw, one group
//! per row label and one bar per series with its value written at its end ([`hbars`]). Both
//! lay their bars out by [`Groups`], top group first.

use plotters::prelude::*;

use super::plot::{Frame, Groups, UNIT_NS, band_ticks, plot, swatch};
use crate::export::report::Report;
use crate::stats::Summary;
use crate::table::SeedTable;
use certbench_schema::Stage;

/// Per-site horizontal bars of `stage`'s mean per method, with 95 % error bars. `None` when
/// no table has the stage.
pub fn bars(report: &Report, stage: Stage) -> Option<String> {
    let sites = sites(report, stage);
    let tables: Vec<&SeedTable> = report
        .tables
        .iter()
        .filter(|t| t.stages.contains(&stage))
        .collect();
    if sites.is_empty() || tables.is_empty() {
        return None;
    }
    // cells[site][table]
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
    let groups = Groups {
        groups: sites.len(),
        per_group: m,
    };
    let caption = format!("{stage} per site and method (mean, 95 % CI), µs");
    let frame = Frame {
        caption: &caption,
        height: (90 + sites.len() * (m * 14 + 12)).min(6000) as u32,
        x_label_area: 36,
        y_label_area: 230,
        legend: Some(SeriesLabelPosition::LowerRight),
    };
    let y = 0f64..sites.len() as f64;
    plot(frame, 0f64..xmax.max(1e-3), y, |chart| {
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(band_ticks(sites.len()))
            .y_label_formatter(&|y| groups.label(*y, &sites))
            .x_desc("µs")
            .draw()
            .ok()?;
        let band = groups.band();
        for (j, t) in tables.iter().enumerate() {
            let color = Palette99::pick(j).to_rgba();
            let rects = cells.iter().enumerate().filter_map(|(i, row)| {
                let s = row[j]?;
                Some(groups.bar(i, j, s.mean / UNIT_NS, color))
            });
            chart
                .draw_series(rects)
                .ok()?
                .label(t.name())
                .legend(swatch(color));
            let errs = cells.iter().enumerate().filter_map(|(i, row)| {
                let s = row[j]?;
                Some(ErrorBar::new_horizontal(
                    groups.top(i, j) - band * 0.45,
                    s.ci95_low.max(0.0) / UNIT_NS,
                    s.mean / UNIT_NS,
                    s.ci95_high / UNIT_NS,
                    BLACK.stroke_width(1),
                    6,
                ))
            });
            chart.draw_series(errs).ok()?;
        }
        Some(())
    })
}

/// Horizontal grouped bars: one group per row label, one bar per series; a missing value
/// leaves its bar out. The value is written at the end of each bar. `None` without labels or
/// without a value above 0.
pub fn hbars(
    title: &str,
    unit: &str,
    labels: &[String],
    series: &[String],
    values: &[Vec<Option<f64>>],
) -> Option<String> {
    let xmax = values
        .iter()
        .flatten()
        .flatten()
        .copied()
        .fold(0.0, f64::max)
        * 1.15;
    if labels.is_empty() || xmax <= 0.0 {
        return None;
    }
    let m = series.len();
    let n = labels.len();
    let groups = Groups {
        groups: n,
        per_group: m,
    };
    // One empty row's height below the bars holds the legend, so that it hides no bar.
    let frame = Frame {
        caption: title,
        height: (110 + (n + 1) * (m * 16 + 12)).min(6000) as u32,
        x_label_area: 36,
        y_label_area: 330,
        legend: Some(SeriesLabelPosition::LowerRight),
    };
    plot(frame, 0f64..xmax, -1f64..n as f64, |chart| {
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(band_ticks(n + 1))
            .y_label_formatter(&|y| groups.label(*y, labels))
            .x_label_formatter(&|x| {
                if xmax >= 100.0 {
                    format!("{x:.0}")
                } else {
                    format!("{x:.1}")
                }
            })
            .x_desc(unit)
            .draw()
            .ok()?;
        let band = groups.band();
        for (j, name) in series.iter().enumerate() {
            let color = Palette99::pick(j).to_rgba();
            let value = |i: usize| Some((i, values[i].get(j).copied().flatten()?));
            chart
                .draw_series(
                    (0..n)
                        .filter_map(value)
                        .map(|(i, v)| groups.bar(i, j, v, color)),
                )
                .ok()?
                .label(name.clone())
                .legend(swatch(color));
            chart
                .draw_series((0..n).filter_map(value).map(|(i, v)| {
                    let text = if v < 100.0 {
                        format!(" {v:.1}")
                    } else {
                        format!(" {v:.0}")
                    };
                    let at = (v, groups.top(i, j) - band * 0.1);
                    Text::new(text, at, ("sans-serif", 11).into_font())
                }))
                .ok()?;
        }
        Some(())
    })
}

/// Sites in order of first appearance over the tables that have `stage`.
pub(super) fn sites(report: &Report, stage: Stage) -> Vec<String> {
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
