//! JSON: the whole report, statistics in nanoseconds; any other kind's figures as they
//! serialize, pretty-printed, with a final newline.

pub(crate) mod limbo;

use serde::Serialize;

use super::report::Report;

/// `value` pretty-printed, with a final newline (`what` names it if it cannot serialize: a
/// bug, since every figures type serializes).
pub(crate) fn pretty<T: Serialize + ?Sized>(value: &T, what: &str) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_else(|e| panic!("{what}: {e}"));
    s.push('\n');
    s
}

pub(super) fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report).expect("report serializes");
    s.push('\n');
    s
}
