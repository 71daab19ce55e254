//! The revocation section of the HTML report (samples of a `--revocation` run): per method
//! and mechanism, the own cost per warm connection with and without its `revocation` stage
//! (a chart), then the cold/warm table ([`crate::revocation::rows`]: the check warm, the data's
//! one `revocation-load` per process, the bytes read and kept) and the answer's lines.

use std::fmt::Write;

use super::chart::{hbars, push};
use super::table::{esc, html_table};
use crate::export::markdown::revocation::{answer, bytes};
use crate::revocation::RevocationRow;
use crate::units::human;

/// Appends the section for `rows` to `h` (nothing when there are none).
pub(super) fn section(h: &mut String, rows: &[RevocationRow]) {
    if rows.is_empty() {
        return;
    }
    h.push_str("<h2>Revocation</h2>\n");
    h.push_str(
        "<p class=\"note\"><code>revocation</code>: the check per connection, its data already loaded \
         (median over chains of the per-chain medians; n measured samples). <code>revocation-load</code>: \
         the data's one load per process, outside <code>total-verification</code> (n processes). Bytes: \
         the data read, and what stays resident between checks.</p>\n",
    );
    let labels: Vec<String> = rows
        .iter()
        .map(|r| format!("{} · {}", r.method, r.mechanism))
        .collect();
    let values: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|r| vec![Some(r.own_without_ns / 1e3), Some(r.own_ns / 1e3)])
        .collect();
    let series = [
        "own cost without revocation".to_owned(),
        "with revocation".to_owned(),
    ];
    push(
        h,
        hbars(
            "Own cost per warm connection, with and without revocation (µs, lower is better)",
            "µs",
            &labels,
            &series,
            &values,
        ),
    );
    let table: Vec<Vec<String>> = rows.iter().map(row).collect();
    let headers = [
        "method",
        "mechanism and data",
        "outcomes",
        "revocation (warm)",
        "n",
        "own cost with it",
        "without it",
        "revocation-load (cold, once)",
        "data",
        "resident",
    ];
    html_table(h, &headers, &table, 3);
    for line in answer(&crate::revocation::answer(rows)) {
        let _ = writeln!(h, "<p>{}</p>", esc(&line));
    }
}

fn row(r: &RevocationRow) -> Vec<String> {
    let load = r.load.as_ref().map_or("—".to_owned(), |l| {
        format!("{} (n={})", human(l.median), l.n)
    });
    let outcomes: Vec<String> = r.outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
    vec![
        r.method.clone(),
        r.data.clone(),
        outcomes.join(", "),
        human(r.warm_ns),
        r.n.to_string(),
        human(r.own_ns),
        human(r.own_without_ns),
        load,
        bytes(r.data_bytes),
        bytes(r.resident_bytes),
    ]
}
