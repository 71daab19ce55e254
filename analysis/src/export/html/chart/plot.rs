//! What every chart shares, written once: [`plot`] draws the frame (a white [`WIDTH`] px wide
//! canvas, the caption in 18 px sans-serif, a 12 px margin, the label areas, the coordinate
//! system — linear, logarithmic or segmented, whatever the axis ranges given make it — the
//! legend's box and the final write) around what a chart draws; [`Groups`] lays out grouped
//! horizontal bars; [`band_ticks`] and [`band_label`] put a category axis on a numeric one.
//!
//! Category axes: band `k` is centred on `k + 0.5` (on a y axis the top band is the first
//! label), with a tick at every band's centre and edge of which only the centres are labelled.

use plotters::coord::ranged1d::AsRangedCoord;
use plotters::prelude::*;

/// Nanoseconds per chart unit: the sample charts are in µs.
pub(super) const UNIT_NS: f64 = 1e3;

/// Every chart is this wide, in pixels.
const WIDTH: u32 = 1100;

/// What sets a chart apart before anything is drawn in it.
pub(super) struct Frame<'a> {
    /// The caption above the chart.
    pub(super) caption: &'a str,
    /// Height in pixels.
    pub(super) height: u32,
    /// Height of the x axis's label area, below the chart.
    pub(super) x_label_area: u32,
    /// Width of the y axis's label area, left of the chart.
    pub(super) y_label_area: u32,
    /// Where the series' legend goes; `None` draws none.
    pub(super) legend: Option<SeriesLabelPosition>,
}

/// A chart being drawn by [`plot`], with its coordinates.
pub(super) type Chart<'a, 'b, X, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<X, Y>>;

/// Draws a chart of `frame` over the axis ranges `x` and `y` (a plotters range spec:
/// `0f64..n`, `(a..b).log_scale()`, `labels.into_segmented()`…) and returns its SVG. `draw`
/// configures the mesh and draws the series; the legend, when `frame` has one, is drawn
/// after it, over the series.
pub(super) fn plot<X, Y>(
    frame: Frame<'_>,
    x: X,
    y: Y,
    draw: impl FnOnce(&mut Chart<'_, '_, X::CoordDescType, Y::CoordDescType>) -> Option<()>,
) -> Option<String>
where
    X: AsRangedCoord,
    Y: AsRangedCoord,
{
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, frame.height)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let mut chart = ChartBuilder::on(&root)
            .caption(frame.caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(frame.x_label_area)
            .y_label_area_size(frame.y_label_area)
            .build_cartesian_2d(x, y)
            .ok()?;
        draw(&mut chart)?;
        if let Some(position) = frame.legend {
            chart
                .configure_series_labels()
                .position(position)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .ok()?;
        }
        root.present().ok()?;
    }
    Some(svg)
}

/// A filled square legend mark in `color`, for a series of bars.
pub(super) fn swatch(color: RGBAColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
}

/// Ticks for `bands` bands on a numeric axis: one at every band's centre and edge.
pub(super) fn band_ticks(bands: usize) -> usize {
    bands * 2 + 1
}

/// The label of the band whose centre is at `pos` (0 = the first band's centre) for a
/// category axis drawn on a numeric one; empty between bands.
pub(super) fn band_label(pos: f64, labels: &[String]) -> String {
    if (pos - pos.round()).abs() < 0.01 && pos >= 0.0 {
        labels
            .get(pos.round() as usize)
            .cloned()
            .unwrap_or_default()
    } else {
        String::new()
    }
}

/// Groups of horizontal bars, group `i` of `groups` from the top, bar `j` of `per_group` in
/// each group: the group's band is `groups - i - 1` to `groups - i` on the y axis, its bars
/// share 0.8 of it from 0.1 below its top, each 0.9 of its share tall.
#[derive(Clone, Copy)]
pub(super) struct Groups {
    pub(super) groups: usize,
    pub(super) per_group: usize,
}

impl Groups {
    /// The height on the y axis of one bar's share of its group.
    pub(super) fn band(self) -> f64 {
        0.8 / self.per_group as f64
    }

    /// The top of bar `j` of group `i`.
    pub(super) fn top(self, i: usize, j: usize) -> f64 {
        self.groups as f64 - i as f64 - 0.1 - self.band() * j as f64
    }

    /// Bar `j` of group `i` from 0 to `v`, filled with `color`.
    pub(super) fn bar(self, i: usize, j: usize, v: f64, color: RGBAColor) -> Rectangle<(f64, f64)> {
        let top = self.top(i, j);
        Rectangle::new([(0.0, top), (v, top - self.band() * 0.9)], color.filled())
    }

    /// The label of the y axis's tick at `y` (`labels` by group, top first).
    pub(super) fn label(self, y: f64, labels: &[String]) -> String {
        band_label(self.groups as f64 - y - 0.5, labels)
    }
}
