//! Box plots of the slowest sites: for each of the three sites with the highest mean of the
//! compared stage, the distribution of its samples per method.

use plotters::prelude::*;

use super::bars::sites;
use super::plot::{Frame, UNIT_NS, plot};
use crate::export::report::Report;
use certbench_schema::{Sample, Stage};

/// Box plots (quartiles, whiskers at 1.5 IQR) of `stage` per method for the three sites with
/// the highest mean, one chart each, concatenated. `None` when no table has the stage.
pub fn boxes(report: &Report, samples: &[Sample], stage: Stage) -> Option<String> {
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
        let series = site_series(report, samples, stage, site);
        if series.is_empty() {
            continue;
        }
        out.push_str(&site_boxes(site, stage, &series)?);
    }
    Some(out)
}

/// The measured samples' `stage` (µs) of the row `site` per table (method, configuration),
/// named by table; tables without the row, or without such samples, left out. Row labels are
/// sites, or site [source] when a site has several chains.
fn site_series(
    report: &Report,
    samples: &[Sample],
    stage: Stage,
    site: &str,
) -> Vec<(String, Vec<f64>)> {
    let mut series: Vec<(String, Vec<f64>)> = Vec::new();
    for t in &report.tables {
        let Some(row) = t.rows.iter().find(|r| r.label == site) else {
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
            series.push((t.name(), values));
        }
    }
    series
}

/// One site's chart: a box per series (not empty).
fn site_boxes(site: &str, stage: Stage, series: &[(String, Vec<f64>)]) -> Option<String> {
    let ymax = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0, f64::max)
        * 1.1;
    let names: Vec<String> = series.iter().map(|(n, _)| n.clone()).collect();
    let caption = format!("{site}: distribution of {stage} per method, µs");
    let frame = Frame {
        caption: &caption,
        height: 380,
        x_label_area: 36,
        y_label_area: 70,
        legend: None,
    };
    let y = 0f32..ymax.max(1e-3) as f32;
    plot(frame, names[..].into_segmented(), y, |chart| {
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
        Some(())
    })
}
