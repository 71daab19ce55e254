//! Page loads as CSV: one record per load, every field (its errors in one cell).

use crate::page::PageLoad;

/// CSV: one row per load, every field (the errors in one cell, `; `-separated).
pub(crate) fn render(loads: &[PageLoad]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "page",
        "line",
        "method",
        "transport",
        "verify_cache",
        "resumption",
        "load",
        "connections",
        "resumed",
        "failed",
        "verifications",
        "ran",
        "hits",
        "coalesced",
        "verification_ns",
        "verifier_ns",
        "connection_ns",
        "wall_ns",
        "share",
        "ct",
        "sct_checked",
        "errors",
    ]);
    for l in loads {
        let _ = w.write_record([
            l.page.clone(),
            l.line.to_string(),
            l.method.clone(),
            l.transport.to_string(),
            l.verify_cache.clone(),
            l.resumption.to_string(),
            l.load.to_string(),
            l.connections.to_string(),
            l.resumed.to_string(),
            l.failed.to_string(),
            l.verifications.to_string(),
            l.ran.to_string(),
            l.hits.to_string(),
            l.coalesced.to_string(),
            l.verification_ns.to_string(),
            l.verifier_ns.to_string(),
            l.connection_ns.to_string(),
            l.wall_ns.to_string(),
            format!("{:.6}", l.share()),
            l.ct.clone().unwrap_or_default(),
            l.sct_checked.to_string(),
            l.errors.join("; "),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}
