//! Store scaling: a stage against the number of roots in the store, over `verify` runs of
//! several store sizes given together (log–log, one line per method).

use plotters::prelude::*;

use super::plot::{Frame, plot};
use crate::verify::StoreCurve;
use certbench_schema::{Sample, Stage};

/// Store scaling (`verify --extra-roots N` runs given together): `stage` against the number
/// of roots in the store, one line per method, each point the median over chains of each
/// chain's median (log–log; [`crate::verify::store_curve`]). `None` unless `verify` samples
/// come with two store sizes or more and have the stage (roots-creation: stores built cold).
pub fn store_curve(samples: &[Sample], stage: Stage) -> Option<String> {
    let StoreCurve { sizes, lines } = crate::verify::store_curve(samples, stage)?;
    let ys = lines.values().flatten().map(|p| p.1);
    let (ymin, ymax) = ys.fold((f64::MAX, 0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let xs: Vec<f64> = sizes.iter().map(|&n| n as f64).collect();
    let (xmin, xmax) = (xs[0].max(1.0), xs[xs.len() - 1]);
    let caption = format!(
        "{stage} against the roots in the store (median over chains of each chain's median), µs"
    );
    let frame = Frame {
        caption: &caption,
        height: 520,
        x_label_area: 40,
        y_label_area: 70,
        legend: Some(SeriesLabelPosition::UpperLeft),
    };
    let x = (xmin * 0.8..xmax * 1.25).log_scale();
    let y = (ymin.max(1e-3) * 0.7..ymax * 1.4).log_scale();
    plot(frame, x, y, |chart| {
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
        Some(())
    })
}
