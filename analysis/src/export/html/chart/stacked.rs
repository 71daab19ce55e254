//! The stages stacked per method: where a method's time goes, averaged over sites.

use std::collections::BTreeMap;

use plotters::prelude::*;

use super::plot::{Frame, UNIT_NS, band_label, band_ticks, plot, swatch};
use crate::export::report::Report;
use certbench_schema::Stage;

/// Leaf stages, disjoint by construction, stacked in the stage chart, bottom first;
/// `connection` is shown less the verification inside it, on top.
const STACKED: &[Stage] = &[
    Stage::RootsCreation,
    Stage::HttpConnectorCreation,
    Stage::OpenSslVerify,
    Stage::ChainCreation,
    Stage::Verify,
    Stage::VerifyHostname,
];

/// Per method: the mean over sites of each leaf stage's mean, stacked; `connection` less the
/// verification inside it on top when the samples have a connection. `None` when no table
/// has a row with a cell.
pub fn stacked(report: &Report) -> Option<String> {
    // (method, [(part, µs…)]) with the parts in stacking order.
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
        methods.push((t.name(), parts.into_values().collect()));
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
    let names: Vec<String> = methods.iter().map(|(m, _)| m.clone()).collect();
    let frame = Frame {
        caption: "Stages per method (mean per site, averaged over sites), µs",
        height: 460,
        x_label_area: 36,
        y_label_area: 70,
        legend: Some(SeriesLabelPosition::UpperRight),
    };
    let x = 0f64..methods.len() as f64;
    plot(frame, x, 0f64..ymax.max(1e-3), |chart| {
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(band_ticks(methods.len()))
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
                .legend(swatch(color));
        }
        Some(())
    })
}
