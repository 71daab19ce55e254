//! A `--pq` run's section of the HTML report: per site and profile the bytes on the wire and
//! the first flight against TCP's initial window, then each method on the twins against
//! today's chains (the markdown's two tables; the answer's lines come with the comparison).

use std::fmt::Write;

use super::table::esc;
use crate::export::markdown::pq::{quic_budgets, quic_cell};
use crate::pq::PqSummary;
use crate::pq::quic::BROWSERS;
use crate::units::human;

/// Appends the section, when the report is of a `--pq` run.
pub(super) fn section(h: &mut String, pq: Option<&PqSummary>) {
    let Some(pq) = pq else {
        return;
    };
    let kb =
        |b: Option<u64>| b.map_or("—".to_owned(), |b| format!("{:.1} KB", b as f64 / 1000.0));
    let _ = writeln!(
        h,
        "<h2>Post-quantum twins</h2>\n<h3>Bytes on the wire (first flight against TCP's initial window of {}; over QUIC against 3× the browser's two Initials: {})</h3>",
        esc(&pq.window.label()),
        esc(&quic_budgets())
    );
    // With `--compress-certs`: each row's compression, and the compressed message's bytes.
    let compressed = pq.compressions.iter().any(Option::is_some);
    let (c_th, m_th) = match compressed {
        true => ("<th>compression</th>", "<th>compressed</th>"),
        false => ("", ""),
    };
    let _ = write!(
        h,
        "<table><tr><th>site</th><th>chains</th>{c_th}<th>certificates</th><th>Certificate message</th>{m_th}<th>first flight</th><th>segments</th><th>extra RTT</th><th>QUIC flight</th>"
    );
    for b in &BROWSERS {
        let _ = write!(h, "<th>QUIC, {}: fits 3×</th>", b.name);
    }
    h.push_str("</tr>\n");
    let td = |on: bool, v: String| match on {
        true => format!("<td class=\"n\">{}</td>", esc(&v)),
        false => String::new(),
    };
    for f in &pq.flights {
        let alg = f.compression.clone().unwrap_or_else(|| "none".into());
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td>{}<td class=\"n\">{}</td><td class=\"n\">{}</td>{}<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
            esc(&f.site),
            esc(&f.profile),
            td(compressed, alg),
            kb(f.chain_bytes),
            kb(f.cert_message_bytes),
            td(compressed, kb(f.compressed_cert_message_bytes)),
            kb(f.first_flight_bytes),
            f.segments().map_or("—".into(), |s| s.to_string()),
            f.extra_round_trips()
                .map_or("—".into(), |r| format!("+{r}")),
            kb(f.quic(&BROWSERS[0]).map(|q| q.flight))
        );
        for b in &BROWSERS {
            let _ = write!(h, "<td class=\"n\">{}</td>", quic_cell(f.quic(b)));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    let _ = writeln!(
        h,
        "<h3>The twins against today's chains (own cost ratio: median over {} of the per-{} ratio of medians, with its range)</h3>",
        pq.rows,
        pq.rows.trim_end_matches('s')
    );
    let _ = writeln!(
        h,
        "<table><tr><th>method</th><th>chains</th>{c_th}<th>own cost ÷ today's</th><th>own cost today</th><th>own cost</th><th>CertificateVerify today</th><th>CertificateVerify</th><th>connection today</th><th>connection</th></tr>"
    );
    let time = |ns: Option<f64>| ns.map_or("—".to_owned(), human);
    for c in &pq.costs {
        let ratio = match (&c.unsupported, c.ratio) {
            (Some(why), None) => esc(why),
            (_, Some(r)) => format!("×{r:.2} (×{:.2}–×{:.2}, {})", c.range.0, c.range.1, c.sites),
            (None, None) => "—".to_owned(),
        };
        let alg = c.compression.clone().unwrap_or_else(|| "none".into());
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td>{}<td class=\"n\">{ratio}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            esc(&c.method),
            esc(&c.profile),
            td(compressed, alg),
            time(c.classical_own_ns),
            time(c.own_ns),
            time(c.certificate_verify_ns.1),
            time(c.certificate_verify_ns.0),
            time(c.connection_ns.1),
            time(c.connection_ns.0)
        );
    }
    h.push_str("</table>\n");
}
