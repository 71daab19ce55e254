//! A `--revocation` run in markdown: a row per method and mechanism, cold and warm, then the
//! answer's lines: what each browser pays, what each mechanism would cost Servo.

use certbench_schema::{Mechanism, Named};

use crate::revocation::{BrowserRevocation, MechanismCost, RevocationAnswer, RevocationRow};
use crate::units::human;

/// Bytes for a table: `0 B`, `249.8 KB`, `6.1 MB`.
pub(crate) fn bytes(n: u64) -> String {
    match n {
        0 => "0 B".to_owned(),
        n if n < 1_000 => format!("{n} B"),
        n if n < 1_000_000 => format!("{:.1} KB", n as f64 / 1e3),
        n => format!("{:.1} MB", n as f64 / 1e6),
    }
}

/// The rows as a Markdown table.
pub(crate) fn table(rows: &[RevocationRow]) -> String {
    let mut out = String::from(
        "### Revocation, cold and warm\n\n\
         `revocation`: the check per connection, data loaded (median over chains of the per-chain medians; n measured samples). `revocation-load`: the data's one load per process (n processes). Bytes: the data read, and what stays resident between checks.\n\n\
         | method | mechanism | revocation (warm) | n | own cost with it | without it | revocation-load (cold, once) | data | resident | outcomes |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        let load = r.load.as_ref().map_or("—".to_owned(), |l| {
            format!("{} (n={})", human(l.median), l.n)
        });
        let outcomes: Vec<String> = r.outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.method,
            r.data,
            human(r.warm_ns),
            r.n,
            human(r.own_ns),
            human(r.own_without_ns),
            load,
            bytes(r.data_bytes),
            bytes(r.resident_bytes),
            outcomes.join(", ")
        ));
    }
    out
}

/// What the mechanism is, for the answer.
fn mechanism_words(m: &Named<Mechanism>) -> &'static str {
    match m.known() {
        Some(Mechanism::CrlSet) => "Chrome's CRLSet",
        Some(Mechanism::Crlite) => {
            "CRLite as Firefox checks it (clubcard-crlite, the filter in memory)"
        }
        Some(Mechanism::Upki) => "CRLite through upki (its files read per check)",
        Some(Mechanism::Crl) => "CRLs as rustls-webpki checks them",
        Some(Mechanism::Ocsp) => "A stapled OCSP response",
        None => "This mechanism",
    }
}

fn browsers_line(browsers: &[BrowserRevocation]) -> String {
    let parts: Vec<String> = browsers
        .iter()
        .map(|b| {
            format!(
                "{} ({}) {}, of which revocation {}",
                b.method,
                b.mechanism,
                human(b.own_ns),
                human(b.warm_ns)
            )
        })
        .collect();
    // The data's load is start-up, once per process, measured over fresh processes apart
    // (the start-up section): no connection of either browser waits for it.
    format!(
        "What each browser pays per connection with revocation (chain + CT + revocation + host, median over chains; the data's load is start-up, apart): {}.",
        parts.join("; ")
    )
}

fn mechanism_line(m: &MechanismCost) -> String {
    let found: Vec<String> = m.outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
    if !m.answered {
        // No check had data to answer with (no CRL of these chains' issuers, no staple but
        // a revoked one's): a price would be the cost of finding none.
        return format!(
            "{}: no check on these chains had data to answer with ({}: {}), so no price for Servo here.",
            mechanism_words(&m.mechanism),
            m.method,
            found.join(", ")
        );
    }
    // The load's time is start-up, measured over fresh processes apart; the bytes it keeps
    // are what every process holds.
    let once = m.once.map_or(String::new(), |(_, resident)| {
        format!(", plus {} resident per process", bytes(resident))
    });
    format!(
        "{} would cost Servo +{} per connection ({}: own cost ×{:.2}; {} chains; checks: {}){once}.",
        mechanism_words(&m.mechanism),
        human(m.warm_ns),
        m.method,
        m.ratio,
        m.chains,
        found.join(", ")
    )
}

/// The answer's lines: the browsers' prices (when a browser ran), then one per mechanism.
pub(crate) fn answer(a: &RevocationAnswer) -> Vec<String> {
    let mut lines = Vec::new();
    if !a.browsers.is_empty() {
        lines.push(browsers_line(&a.browsers));
    }
    lines.extend(a.mechanisms.iter().map(mechanism_line));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::golden::check;
    use crate::revocation::tests::fixture;

    #[test]
    fn the_table_and_the_answer_price_only_checks_that_had_data() {
        let rows = fixture();
        let answer = answer(&crate::revocation::answer(&rows));
        assert!(
            answer[0].contains("firefox (crlite) 900 µs, of which revocation"),
            "{answer:?}"
        );
        assert!(
            answer[1].starts_with("CRLite as Firefox checks it"),
            "{answer:?}"
        );
        assert!(answer[1].contains("+5.00 µs per connection"), "{answer:?}");
        assert!(
            answer[1].contains("plus 9.1 MB resident per process"),
            "{answer:?}"
        );
        assert!(
            answer[2].contains("no check on these chains had data"),
            "{answer:?}"
        );
        assert!(!answer[2].contains("would cost"), "{answer:?}");
        check("revocation.md", &table(&rows));
        check("revocation-answer.md", &answer.join("\n"));
    }
}
