//! A patched Servo's samples in markdown: per group (method · Servo's choice · trust set) the
//! store builds and verification cold and warm, then per connection (cold, warm), per origin
//! and per page load, each with verification's share of the handshake.

use crate::servo_report::{ConnectionRow, GroupFigures, PageRow, StoreRow};
use crate::units::human;

fn ms(ns: Option<f64>) -> String {
    ns.map_or_else(|| "–".to_owned(), human)
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{:.1} %", v * 100.0))
}

/// The section: four tables, a row per group (and per kind of connection or page).
pub(crate) fn render(groups: &[GroupFigures]) -> String {
    let mut out = String::from("### Servo: verification per connection and per page load\n\n");
    out.push_str(
        "Cold: a process's first (verification, connection, page load); warm: the later ones. \
         Share: the connection's verification time over its handshake (TCP connect + TLS).\n\n",
    );
    out.push_str("| method · Servo's choice · trust set | processes | store builds | roots-creation (median build) | verifications cold | verification cold | verifications warm | verification warm | exception-accepted |\n|---|---|---|---|---|---|---|---|---|\n");
    for g in groups {
        out.push_str(&store_row(&g.label, &g.store));
    }
    out.push_str("\n| method · Servo's choice · trust set | connections | resumed | connection | handshake | verifications | verification per connection | share |\n|---|---|---|---|---|---|---|---|\n");
    for g in groups {
        for c in &g.connections {
            out.push_str(&connection_row(&g.label, c));
        }
    }
    out.push_str("\n| method · Servo's choice · trust set | connections | resumed | origin | handshake | verifications | verification per connection | share |\n|---|---|---|---|---|---|---|---|\n");
    for g in groups {
        for c in &g.origins {
            out.push_str(&connection_row(&g.label, c));
        }
    }
    out.push_str("\n| method · Servo's choice · trust set | page loads | load | connections per page | resumed per page | verifications per page | verification per page | handshakes per page | share |\n|---|---|---|---|---|---|---|---|---|\n");
    for g in groups {
        for p in &g.pages {
            out.push_str(&page_row(&g.label, p));
        }
    }
    out
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
        "| {group} | {} | {} | {} | {} | {} | {} | {} |\n",
        c.connections,
        c.resumed,
        c.label,
        ms(c.handshake),
        c.verifications,
        ms(c.per_connection),
        pct(c.share)
    )
}

fn page_row(group: &str, p: &PageRow) -> String {
    let num = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v}"));
    format!(
        "| {group} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
        p.pages,
        p.label,
        num(p.connections),
        num(p.resumed),
        num(p.verifications),
        ms(p.verification),
        ms(p.handshakes),
        pct(p.share)
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
        // One store build in the process, the second call cached.
        assert!(row("| 1 per process |").contains("5.00 ms"), "{text}");
        assert!(
            row("| cold | 4.00 ms |").contains("| 400 µs | 10.0 % |"),
            "{text}"
        );
        let warm = row("| warm | 1.50 ms |");
        assert!(warm.contains("| 2 | 1 | warm |"), "{warm}");
        assert!(warm.contains("| 100 µs | 5.0 % |"), "{warm}");
        let first = row("| first of process |");
        assert!(
            first.contains("| 1 | first of process | 1 | 0 | 1 | 400 µs | 4.00 ms | 10.0 % |"),
            "{first}"
        );
        let later = row("| later |");
        assert!(
            later.contains("| 1 | later | 2 | 1 | 1 | 100 µs | 3.00 ms | 3.3 % |"),
            "{later}"
        );
        // Per origin: the three connections to a.example, one resumed.
        let origin = row("| a.example |");
        assert!(
            origin.contains("| 3 | 1 | a.example | 2.00 ms | 2 | 250 µs | 7.5 % |"),
            "{origin}"
        );
        check("servo.md", &text);
    }
}
