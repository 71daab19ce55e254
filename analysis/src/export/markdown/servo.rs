//! A patched Servo's samples in markdown: per group (method · Servo's choice · trust set) the
//! store builds and verification cold and warm, then per connection (cold, warm), per origin
//! and per page load, each with verification's share of the handshake.

use crate::servo_report::{ConnectionRow, GroupFigures, PageRow, StoreRow};
use crate::units::human;

pub(crate) fn ms(ns: Option<f64>) -> String {
    ns.map_or_else(|| "–".to_owned(), human)
}

pub(crate) fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{:.1} %", v * 100.0))
}

/// The section: five tables, a row per group (and per kind of connection or page).
pub(crate) fn render(groups: &[GroupFigures]) -> String {
    let mut out = String::from("### Servo: verification per connection and per page load\n\n");
    out.push_str(
        "Cold: a process's first (verification, connection, page load); warm: the later ones. \
         Full and resumed handshakes apart. connect: name resolution + TCP + proxy; handshake: \
         TLS alone; share: the connection's verification over its TLS handshake. Page load: the \
         document fetch to its fetches' last response headers (network, not rendering). First \
         connection's tax: once per process, each extra against the same process's later ones.\n\n",
    );
    out.push_str("| method · Servo's choice · trust set | processes | store builds | roots-creation (median build) | verifications cold | verification cold | verifications warm | verification warm | exception-accepted |\n|---|---|---|---|---|---|---|---|---|\n");
    for g in groups {
        out.push_str(&store_row(&g.label, &g.store));
    }
    out.push_str("\n| method · Servo's choice · trust set | processes | library-init | first roots-creation (store load + verifier) | first verification's extra | first TLS handshake's extra |\n|---|---|---|---|---|---|\n");
    for g in groups {
        let f = &g.first;
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            g.label,
            f.processes,
            ms(f.library_init),
            ms(f.first_build),
            ms(f.verification_extra),
            ms(f.handshake_extra)
        ));
    }
    let conn_head = |what: &str| {
        format!(
            "\n| method · Servo's choice · trust set | connections | {what} | handshake kind | connect | handshake (TLS) | verifications | verification per connection | share |\n|---|---|---|---|---|---|---|---|---|\n"
        )
    };
    out.push_str(&conn_head("connection"));
    for g in groups {
        for c in &g.connections {
            out.push_str(&connection_row(&g.label, c));
        }
    }
    out.push_str(&conn_head("origin"));
    for g in groups {
        for c in &g.origins {
            out.push_str(&connection_row(&g.label, c));
        }
    }
    out.push_str("\n| method · Servo's choice · trust set | page loads | load | page load | connections per page | resumed per page | verifications per page | verification per page | handshakes per page | share of handshakes | share of page load |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for g in groups {
        for p in &g.pages {
            out.push_str(&page_row(&g.label, p));
        }
    }
    out
}

/// `full` or `resumed`.
pub(crate) fn kind(resumed: bool) -> &'static str {
    if resumed { "resumed" } else { "full" }
}

fn store_row(label: &str, r: &StoreRow) -> String {
    let range = match r.builds {
        Some((a, b)) if a == b => format!("{a} per process"),
        Some((a, b)) => format!("{a}–{b} per process"),
        None => "–".to_owned(),
    };
    format!(
        "| {label} | {} | {range} | {} | {} | {} | {} | {} | {} |\n",
        r.processes,
        ms(r.build_ns),
        r.cold.0,
        ms(r.cold.1),
        r.warm.0,
        ms(r.warm.1),
        r.exceptions,
    )
}

fn connection_row(group: &str, c: &ConnectionRow) -> String {
    format!(
        "| {group} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        c.connections,
        c.label,
        kind(c.resumed),
        ms(c.connect),
        ms(c.handshake),
        c.verifications,
        ms(c.per_connection),
        pct(c.share)
    )
}

fn page_row(group: &str, p: &PageRow) -> String {
    let num = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v}"));
    format!(
        "| {group} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        p.pages,
        p.label,
        ms(p.page_load),
        num(p.connections),
        num(p.resumed),
        num(p.verifications),
        ms(p.verification),
        ms(p.handshakes),
        pct(p.share),
        pct(p.load_share)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::golden::check;
    use crate::servo_report::report;
    use crate::servo_report::tests::samples;

    #[test]
    fn per_connection_and_page_cold_apart() {
        let text = render(&report(&samples()).unwrap());
        let row = |needle: &str| {
            (text.lines())
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("no `{needle}` in {text}"))
                .to_owned()
        };
        // The first-connection tax: the build, and the first verification's and handshake's
        // extra over the process's later ones (400 − 100 µs; 4 − 2 ms).
        assert!(
            row("| 1 | – | 5.00 ms | 300 µs | 2.00 ms |").starts_with("| servo · "),
            "{text}"
        );
        // One store build in the process, the second call cached.
        assert!(row("| 1 per process |").contains("5.00 ms"), "{text}");
        assert!(
            row("| cold | full |").contains("| 1.00 ms | 4.00 ms | 1 | 400 µs | 10.0 % |"),
            "{text}"
        );
        let warm = row("| warm | full |");
        assert!(
            warm.contains("| 500 µs | 2.00 ms | 1 | 100 µs | 5.0 % |"),
            "{warm}"
        );
        let resumed = row("| warm | resumed |");
        assert!(
            resumed.contains("| 500 µs | 1.00 ms | 0 | – | – |"),
            "{resumed}"
        );
        let first = row("| first of process |");
        assert!(
            first.contains(
                "| 1 | first of process | 10.0 ms | 1 | 0 | 1 | 400 µs | 4.00 ms | 10.0 % | 4.0 % |"
            ),
            "{first}"
        );
        let later = row("| later |");
        assert!(
            later
                .contains("| 1 | later | 20.0 ms | 2 | 1 | 1 | 100 µs | 3.00 ms | 3.3 % | 0.5 % |"),
            "{later}"
        );
        // Per origin: the three connections to a.example, full and resumed apart.
        let origin = row("| a.example | full |");
        assert!(
            origin.contains("| 2 | a.example | full | 750 µs | 3.00 ms | 2 | 250 µs | 7.5 % |"),
            "{origin}"
        );
        assert!(
            row("| a.example | resumed |").contains("| 1 | a.example | resumed |"),
            "{text}"
        );
        check("servo.md", &text);
    }
}
