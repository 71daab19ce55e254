//! JSON: the whole report, statistics in nanoseconds.

use super::report::Report;

pub(super) fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("report serializes");
    s.push('\n');
    s
}
