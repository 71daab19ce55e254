//! The page-load section of the HTML report (`certbench page --format json` output): per
//! page, method and configuration, the verification time of the cold load beside the median
//! of the later loads, and the verifications each ran; then every load as a table.

use super::chart::{hbars, push};
use super::table::html_table;
use crate::page::{PageLoad, cold_warm};
use crate::units::human;

/// Appends the section for `loads` to `h` (nothing when there are none).
pub(super) fn section(h: &mut String, loads: &[PageLoad]) {
    let groups = cold_warm(loads);
    if groups.is_empty() {
        return;
    }
    h.push_str("<h2>Page loads</h2>\n");
    h.push_str(
        "<p class=\"note\">One browser per method keeps its trust store, its verification cache and (with resumption) \
         its TLS sessions across loads: load 1 is cold, later loads warm. Verification time is what the handshakes of \
         one load spent verifying (cache lookups and coalesced waits included); later loads are their median.</p>\n",
    );
    let labels: Vec<String> = groups
        .iter()
        .map(|g| format!("{} · {} · {}", g.page, g.method, g.config))
        .collect();
    let time: Vec<Vec<Option<f64>>> = groups
        .iter()
        .map(|g| {
            vec![
                Some(g.cold.verification_ns as f64 / 1e3),
                g.later_median(|l| l.verification_ns as f64 / 1e3),
            ]
        })
        .collect();
    let series = [
        "cold (load 1)".to_owned(),
        "later loads (median)".to_owned(),
    ];
    push(
        h,
        hbars(
            "Verification time per page load, cold and warm (µs, lower is better)",
            "µs",
            &labels,
            &series,
            &time,
        ),
    );
    let ran: Vec<Vec<Option<f64>>> = groups
        .iter()
        .map(|g| vec![Some(g.cold.ran as f64), g.later_median(|l| l.ran as f64)])
        .collect();
    push(
        h,
        hbars(
            "Verifications run per page load, cold and warm",
            "verifications",
            &labels,
            &series,
            &ran,
        ),
    );
    h.push_str("<h3>Every load</h3>\n");
    let ct = crate::page::any_ct(loads);
    let rows: Vec<Vec<String>> = loads
        .iter()
        .map(|l| {
            let mut row = vec![
                l.page.clone(),
                l.method.clone(),
                crate::page::config(l),
                l.load.to_string(),
                l.connections.to_string(),
                l.resumed.to_string(),
                l.ran.to_string(),
                l.hits.to_string(),
                l.coalesced.to_string(),
                human(l.verification_ns as f64),
                format!("{:.1} %", 100.0 * l.share()),
                l.failed.to_string(),
            ];
            if ct {
                row.insert(9, crate::export::markdown::page::sct_checked(l));
            }
            row
        })
        .collect();
    let mut headers = vec![
        "page",
        "method",
        "configuration",
        "load",
        "connections",
        "resumed",
        "run",
        "hits",
        "coalesced",
        "verification",
        "share of connection time",
        "failed",
    ];
    if ct {
        headers.insert(9, "SCT signatures checked");
    }
    html_table(h, &headers, &rows, 3);
}
