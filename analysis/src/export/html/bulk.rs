//! The bulk-transfer section of the HTML report (`certbench bulk --format json` output):
//! MB/s sending and receiving per stack and cipher suite, best of the runs, as a chart and a
//! table with the median and range.

use super::chart::{hbars, push};
use super::table::html_table;
use crate::bulk::BulkFigures;
use crate::bulk::BulkResult;

/// Appends the section for `results` to `h` (nothing when there are none).
pub(super) fn section(h: &mut String, results: &[BulkResult]) {
    if results.is_empty() {
        return;
    }
    h.push_str("<h2>Bulk transfer</h2>\n");
    h.push_str(
        "<p class=\"note\">Application data over an established session, client and server of one stack joined in \
         memory (no socket): send is the client's work (plaintext in, records out), receive the server's (records in, \
         plaintext out). Bars: the best run; the table gives the median and range too.</p>\n",
    );
    let mut labels: Vec<String> = Vec::new();
    for r in results {
        if !labels.contains(&r.label()) {
            labels.push(r.label());
        }
    }
    let values: Vec<Vec<Option<f64>>> = labels
        .iter()
        .map(|l| {
            ["send", "receive"]
                .iter()
                .map(|d| {
                    results
                        .iter()
                        .find(|r| &r.label() == l && r.direction == *d)
                        .map(BulkResult::best)
                })
                .collect()
        })
        .collect();
    push(
        h,
        hbars(
            "Bulk transfer, MB/s (best run, higher is better)",
            "MB/s",
            &labels,
            &["send".into(), "receive".into()],
            &values,
        ),
    );
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            vec![
                r.label(),
                r.direction.clone(),
                r.mb_per_s.len().to_string(),
                format!("{:.0}", r.best()),
                format!("{:.0}", r.median()),
                format!("{:.0}–{:.0}", r.worst(), r.best()),
            ]
        })
        .collect();
    html_table(
        h,
        &[
            "configuration",
            "direction",
            "runs",
            "best MB/s",
            "median",
            "range",
        ],
        &rows,
        2,
    );
}
