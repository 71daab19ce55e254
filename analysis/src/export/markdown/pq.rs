//! A `--pq` run in markdown: the bytes each profile puts on the wire per site, then each
//! method's cost on the twins against today's chains; and the answer's lines of the run.

use super::table::plain_table;
use crate::pq::answer::{LinkAnswer, PqAnswer, ProfileAnswer, Verdicts};
use crate::pq::quic::BROWSERS;
use crate::pq::scenarios::ScenarioRange;
use crate::pq::{PqSummary, profile_label};
use crate::units::human;

/// A `--pq` run's tables: the bytes on the wire per site and profile, then each method on
/// the twins against today's chains.
pub(crate) fn tables(pq: &PqSummary) -> String {
    let kb =
        |b: Option<u64>| b.map_or("—".to_owned(), |b| format!("{:.1} KB", b as f64 / 1000.0));
    // With `--compress-certs`: a column naming each row's compression, and the compressed
    // message's bytes.
    let compressed = pq.compressions.iter().any(Option::is_some);
    let rows: Vec<Vec<String>> = (pq.flights.iter())
        .map(|f| {
            let mut row = vec![f.site.clone(), f.profile.clone()];
            if compressed {
                row.push(f.compression.clone().unwrap_or_else(|| "none".into()));
            }
            row.extend([kb(f.chain_bytes), kb(f.cert_message_bytes)]);
            if compressed {
                row.push(kb(f.compressed_cert_message_bytes));
            }
            row.extend([
                kb(f.first_flight_bytes),
                f.segments().map_or("—".into(), |s| s.to_string()),
                f.extra_round_trips()
                    .map_or("—".into(), |r| format!("+{r}")),
                kb(f.quic(&BROWSERS[0]).map(|q| q.flight)),
            ]);
            row.extend(BROWSERS.iter().map(|b| quic_cell(f.quic(b))));
            row
        })
        .collect();
    let mut header = vec!["site", "chains"];
    if compressed {
        header.push("compression");
    }
    header.extend(["certificates", "Certificate message"]);
    if compressed {
        header.push("compressed");
    }
    header.extend(["first flight", "segments", "extra RTT", "QUIC flight"]);
    let browsers: Vec<String> = (BROWSERS.iter())
        .map(|b| format!("QUIC, {}: fits 3×", b.name))
        .collect();
    header.extend(browsers.iter().map(String::as_str));
    let mut out = format!(
        "\n### post-quantum twins: bytes on the wire (first flight: the server's bytes, ServerHello to Finished, on the client's TCP stream, against TCP's initial window of {}; QUIC flight: its handshake messages in QUIC packets, against 3× the browser's two Initials: {})\n\n",
        pq.window.label(),
        quic_budgets()
    );
    out.push_str(&plain_table(&header, rows, 2));
    out.push('\n');
    let time = |ns: Option<f64>| ns.map_or("—".to_owned(), human);
    let rows: Vec<Vec<String>> = (pq.costs.iter())
        .map(|c| {
            let mut r = vec![c.method.clone(), c.profile.clone()];
            if compressed {
                r.push(c.compression.clone().unwrap_or_else(|| "none".into()));
            }
            match (&c.unsupported, c.ratio) {
                (Some(why), None) => {
                    r.push(why.clone());
                    r.extend(std::iter::repeat_n("—".to_owned(), 6));
                }
                _ => r.extend([
                    c.ratio.map_or("—".into(), |r| {
                        format!(
                            "×{r:.2} (×{:.2}–×{:.2}, {} sites)",
                            c.range.0, c.range.1, c.sites
                        )
                    }),
                    time(c.classical_own_ns),
                    time(c.own_ns),
                    time(c.certificate_verify_ns.1),
                    time(c.certificate_verify_ns.0),
                    time(c.connection_ns.1),
                    time(c.connection_ns.0),
                ]),
            }
            r
        })
        .collect();
    let mut header = vec!["method", "chains"];
    if compressed {
        header.push("compression");
    }
    header.extend([
        "own cost ÷ today's",
        "own cost today",
        "own cost",
        "CertificateVerify today",
        "CertificateVerify",
        "connection today",
        "connection",
    ]);
    out.push_str(&format!(
        "\n### post-quantum twins against today's chains: own cost ratio (median over sites of the per-site ratio of medians, with its range), own cost, the server's CertificateVerify checked (certificate-verify, apart from the own cost) and connection (medians over sites){}\n\n",
        pq.link.as_ref().map_or(String::new(), |l| format!(", link {l}"))
    ));
    out.push_str(&plain_table(&header, rows, 2));
    out.push('\n');
    out
}

/// A first flight over QUIC: `fits`, or the round trips it costs (`+1 RTT`).
pub(crate) fn quic_cell(q: Option<crate::pq::QuicFit>) -> String {
    match q {
        None => "—".to_owned(),
        Some(q) if q.fits() => "fits".to_owned(),
        Some(q) => format!("+{} RTT", q.extra_round_trips),
    }
}

/// Each browser's budget: `Chrome 3 × 2 × 1250 B = 7.5 KB, Firefox …`.
pub(crate) fn quic_budgets() -> String {
    let each: Vec<String> = (BROWSERS.iter())
        .map(|b| {
            format!(
                "{} 3 × {} × {} B = {:.1} KB",
                b.name,
                b.datagrams,
                b.datagram,
                b.budget() as f64 / 1000.0
            )
        })
        .collect();
    each.join(", ")
}

/// The answer's lines of a `--pq` run.
pub(crate) fn answer(a: &PqAnswer) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for p in &a.profiles {
        lines.push(profile_line(p, a.rows));
        let base = crate::pq::split_key(&p.profile).0;
        lines
            .extend((a.ranges.iter().filter(|r| r.profile == base)).map(|r| range_line(r, a.rows)));
    }
    if !a.unsupported.is_empty() {
        lines.push(format!(
            "Without ML-DSA (unsupported algorithm, so no figure): {}.",
            a.unsupported.join(", ")
        ));
    }
    if !a.unsupported_mtc.is_empty() {
        lines.push(format!(
            "Without a Merkle Tree Certificate verifier (unsupported, so no figure on `mtc`): {}.",
            a.unsupported_mtc.join(", ")
        ));
    }
    lines.extend(a.verdicts.as_ref().map(verdict_line));
    lines.extend(a.link.as_ref().map(link_line));
    if let Some(c) = &a.compression {
        lines.push(format!(
            "Certificates compressed with {c} (RFC 8879, `--compress-certs`) in these figures, today's and the twins' alike."
        ));
    }
    lines
}

fn profile_line(p: &ProfileAnswer, rows: &str) -> String {
    let main = &p.main;
    let others: Vec<String> = (p.others.iter())
        .map(|(method, ratio)| format!("{method} ×{ratio:.2}"))
        .collect();
    let mut line = format!(
        "With {} chains verification costs ×{:.2} of today's ({}, median over {} {rows}, ×{:.2}–×{:.2}{})",
        profile_label(&p.profile),
        main.ratio.unwrap_or(0.0),
        match &main.reference {
            Some(r) => format!("{} against {r}'s on today's chains", main.method),
            None => main.method.clone(),
        },
        main.sites,
        main.range.0,
        main.range.1,
        if others.is_empty() {
            String::new()
        } else {
            format!("; {}", others.join(", "))
        }
    );
    if let (Some(twin), Some(today)) = main.certificate_verify_ns {
        line.push_str(&format!(
            "; the server's CertificateVerify, checked apart, {} against {} today",
            human(twin),
            human(today)
        ));
    }
    if let Some(b) = &p.bytes {
        line.push_str(&format!(
            "; the server's first flight carries {:.1} KB {} (median over {} {rows}); over TCP {} of {} {rows} need an extra round trip (a first flight over the initial window of {} × {} B), against {} today",
            b.more.abs() / 1000.0,
            if b.more < 0.0 { "less" } else { "more" },
            b.n,
            b.twin_over,
            b.counted,
            b.window.initial_window,
            b.window.mss,
            b.today_over
        ));
        if let Some(q) = &b.quic {
            line.push_str(&format!(
                "; over QUIC {} of {} {rows} (a first flight over 3× {}'s two Initials, {:.1} KB), against {} today",
                q.twin_over,
                q.counted,
                q.browser,
                q.budget as f64 / 1000.0,
                q.today_over
            ));
        }
    }
    line + "."
}

/// A profile's range over its scenarios, each end named: `ML-DSA-44 over 4 scenarios: 0 of
/// 13 sites needing an extra round trip (trimmed, classical SCTs) to 12 of 13 (as served,
/// ML-DSA SCTs); …`.
fn range_line(r: &ScenarioRange, rows: &str) -> String {
    let mut parts = Vec::new();
    if let Some((lo, hi)) = &r.over {
        parts.push(match lo.value == hi.value {
            true => format!(
                "{} of {} {rows} needing an extra round trip over TCP in every scenario",
                lo.value, r.counted
            ),
            false => format!(
                "{} of {} {rows} needing an extra round trip over TCP ({}) to {} of {} ({})",
                lo.value,
                r.counted,
                lo.scenario.words(),
                hi.value,
                r.counted,
                hi.scenario.words()
            ),
        });
    }
    if let Some((lo, hi)) = &r.quic_over {
        parts.push(match lo.value == hi.value {
            true => format!(
                "over QUIC {} of {} in every scenario",
                lo.value, r.quic_counted
            ),
            false => format!(
                "over QUIC {} of {} ({}) to {} of {} ({})",
                lo.value,
                r.quic_counted,
                lo.scenario.words(),
                hi.value,
                r.quic_counted,
                hi.scenario.words()
            ),
        });
    }
    if let Some((lo, hi)) = &r.flight {
        parts.push(format!(
            "a first flight of {:.1} KB ({}) to {:.1} KB ({}) (median over {rows})",
            lo.value / 1000.0,
            lo.scenario.words(),
            hi.value / 1000.0,
            hi.scenario.words()
        ));
    }
    if let (Some((lo, hi)), Some(method)) = (&r.ratio, &r.method) {
        parts.push(format!(
            "verification ×{:.2} ({}) to ×{:.2} ({}) of today's ({method})",
            lo.value,
            lo.scenario.words(),
            hi.value,
            hi.scenario.words()
        ));
    }
    format!(
        "{} over {} scenarios (SCTs from ECDSA or ML-DSA-44 logs; the chain as served or trimmed to leaf and issuer): {}.",
        profile_label(&r.profile),
        r.scenarios,
        parts.join("; ")
    )
}

fn verdict_line(v: &Verdicts) -> String {
    match v {
        Verdicts::Equal(methods, each) => format!(
            "Verdicts on the twins equal today's for every method that verified them ({}): {} each.",
            methods.join(", "),
            each.map_or("every row".to_owned(), |(equal, of)| format!(
                "{equal} of {of}"
            ))
        ),
        Verdicts::Differ(differ) => {
            let shown: Vec<String> = (differ.iter().take(5))
                .map(|(method, profile, d)| format!("{method} on {profile}: {d}"))
                .collect();
            format!(
                "Verdicts on the twins differ from today's in {} cases: {}{}.",
                differ.len(),
                shown.join("; "),
                if differ.len() > 5 { "; …" } else { "" }
            )
        }
    }
}

fn link_line(l: &LinkAnswer) -> String {
    let share = |own: Option<f64>, conn: Option<f64>| match (own, conn) {
        (Some(o), Some(c)) if c > 0.0 => format!("{:.1} %", 100.0 * o / c),
        _ => "—".to_owned(),
    };
    let mut parts = vec![format!(
        "today's chains {} (verification {})",
        l.today.0.map_or("—".into(), human),
        share(l.today.1, l.today.0)
    )];
    for p in &l.profiles {
        parts.push(format!(
            "{} {} (verification {}{})",
            profile_label(&p.profile),
            p.connection_ns.map_or("—".into(), human),
            share(p.own_ns, p.connection_ns),
            p.by.as_ref().map_or(String::new(), |m| format!(", by {m}"))
        ));
    }
    format!(
        "On the emulated link ({}) a connection with {} takes (median over sites): {}.",
        l.link,
        l.method,
        parts.join("; ")
    )
}
