//! The HTML report's charts, drawn with plotters into inline SVG: store scaling
//! ([`store_curve`]), per-site bars of a stage ([`bars`]), the stages stacked per method
//! ([`stacked`]), box plots of the slowest sites ([`boxes`]), and the grouped horizontal bars
//! the handshake, page and bulk sections draw ([`hbars`]).
//!
//! Every chart is drawn through [`plot::plot`], which owns what they all share (canvas,
//! caption, margin, label areas, coordinates, legend); a chart only configures its mesh and
//! draws its series. A chart that cannot be drawn is `None` (an SVG error or no data) and
//! leaves no trace in the page.

mod bars;
mod boxes;
mod plot;
mod stacked;
mod store;

use std::fmt::Write;

pub(super) use bars::{bars, hbars};
pub(super) use boxes::boxes;
pub(super) use stacked::stacked;
pub(super) use store::store_curve;

/// Appends `svg` to the page in its `chart` block; nothing when there is no chart.
pub(super) fn push(h: &mut String, svg: Option<String>) {
    if let Some(svg) = svg {
        let _ = writeln!(h, "<div class=\"chart\">{svg}</div>");
    }
}
