//! A patched Servo's section of the HTML report ([`crate::servo_report`]): the same five
//! tables as the markdown section (store builds and verification cold and warm; the
//! first-connection tax; per
//! connection and per origin, full and resumed apart, `connect` apart from the TLS
//! `handshake`; per page load with its time and verification's share of it).

use super::table::html_table;
use crate::export::markdown::servo::{kind, ms, pct};
use crate::servo_report::{ConnectionRow, GroupFigures};

/// The first column's head: what a row's group is.
const GROUP: &str = "method · Servo's choice · trust set";

/// Appends the section for `groups` to `h` (nothing when there are none).
pub(super) fn section(h: &mut String, groups: &[GroupFigures]) {
    if groups.is_empty() {
        return;
    }
    h.push_str("<h2>Servo: verification per connection and per page load</h2>\n");
    h.push_str(
        "<p class=\"note\">Cold: a process's first (verification, connection, page load); warm: \
         the later ones. <code>connect</code>: name resolution + TCP + proxy; \
         <code>handshake</code>: TLS alone; share: verification over the TLS handshake. Page \
         load: the document fetch to its fetches' last response headers.</p>\n",
    );
    store_table(h, groups);
    first_connection_table(h, groups);
    connection_tables(h, groups);
    page_table(h, groups);
}

/// Store builds and verification, cold and warm, per group.
fn store_table(h: &mut String, groups: &[GroupFigures]) {
    let store: Vec<Vec<String>> = (groups.iter())
        .map(|g| {
            let s = &g.store;
            vec![
                g.label.clone(),
                s.processes.to_string(),
                ms(s.build_ns),
                s.cold.0.to_string(),
                ms(s.cold.1),
                s.warm.0.to_string(),
                ms(s.warm.1),
                s.exceptions.to_string(),
            ]
        })
        .collect();
    let head = [
        GROUP,
        "processes",
        "roots-creation",
        "verifications cold",
        "verification cold",
        "verifications warm",
        "verification warm",
        "exception-accepted",
    ];
    html_table(h, &head, &store, 1);
}

/// The first-connection tax per group: library start-up, the first store, the first
/// verification's and handshake's extra.
fn first_connection_table(h: &mut String, groups: &[GroupFigures]) {
    let first: Vec<Vec<String>> = (groups.iter())
        .map(|g| {
            let f = &g.first;
            vec![
                g.label.clone(),
                f.processes.to_string(),
                ms(f.library_init),
                ms(f.first_build),
                ms(f.verification_extra),
                ms(f.handshake_extra),
            ]
        })
        .collect();
    let head = [
        GROUP,
        "processes",
        "library-init",
        "first roots-creation (store load + verifier)",
        "first verification's extra",
        "first TLS handshake's extra",
    ];
    html_table(h, &head, &first, 1);
}

/// Per connection, then per origin: full and resumed apart, `connect` apart from the TLS
/// `handshake`, verification's share of it.
fn connection_tables(h: &mut String, groups: &[GroupFigures]) {
    for (what, rows) in [
        ("connection", rows(groups, |g| &g.connections)),
        ("origin", rows(groups, |g| &g.origins)),
    ] {
        let head = [
            GROUP,
            "connections",
            what,
            "handshake kind",
            "connect",
            "handshake (TLS)",
            "verifications",
            "verification per connection",
            "share",
        ];
        html_table(h, &head, &rows, 4);
    }
}

/// Per page load: its time, its connections, verification's share of the handshakes and
/// of the load.
fn page_table(h: &mut String, groups: &[GroupFigures]) {
    let pages: Vec<Vec<String>> = (groups.iter())
        .flat_map(|g| g.pages.iter().map(move |p| (g, p)))
        .map(|(g, p)| {
            vec![
                g.label.clone(),
                p.pages.to_string(),
                p.label.to_owned(),
                ms(p.page_load),
                p.connections.map_or("–".into(), |v| v.to_string()),
                ms(p.verification),
                ms(p.handshakes),
                pct(p.share),
                pct(p.load_share),
            ]
        })
        .collect();
    let head = [
        GROUP,
        "page loads",
        "load",
        "page load",
        "connections per page",
        "verification per page",
        "handshakes per page",
        "share of handshakes",
        "share of page load",
    ];
    html_table(h, &head, &pages, 3);
}

fn rows(groups: &[GroupFigures], of: fn(&GroupFigures) -> &Vec<ConnectionRow>) -> Vec<Vec<String>> {
    (groups.iter())
        .flat_map(|g| of(g).iter().map(move |c| (g, c)))
        .map(|(g, c)| {
            vec![
                g.label.clone(),
                c.connections.to_string(),
                c.label.clone(),
                kind(c.resumed).to_owned(),
                ms(c.connect),
                ms(c.handshake),
                c.verifications.to_string(),
                ms(c.per_connection),
                pct(c.share),
            ]
        })
        .collect()
}
