//! JSON: the whole report, statistics in nanoseconds, pretty-printed, with a final newline
//! (the records of the other kinds are written by the schema, under their header).

pub(crate) mod limbo;

use super::report::Report;

pub(super) fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("report serializes");
    s.push('\n');
    s
}
