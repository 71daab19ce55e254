//! `certbench capture`'s figures: per site of a sites file, what was taken (its folder in the
//! corpus layout, the certificates the server sent and their keys) or why nothing was. The
//! capturing is `certbench`'s; `export::markdown::capture` draws the table.

pub use certbench_schema::records::capture::{CaptureRow, CaptureRun, Taken};
