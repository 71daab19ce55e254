//! `certbench wire` in markdown: per link, a table of (transport, response size, set of
//! chains) rows, then the answer: per twin, what it adds to today's chains in round trips and
//! milliseconds over TCP and over QUIC, its range over the links named at each end.

use crate::pq::onwire::WireRow;
use crate::pq::{CLASSICAL, profile_label};
use crate::stats::Spread;

fn transport(t: &str) -> &str {
    match t {
        "quic" => "QUIC",
        "rustls" => "TCP",
        other => other,
    }
}

/// A link as the answer names it: its RTT, bandwidth and loss (`RTT 20 ms, 10 Mbit/s, loss
/// 1 %`), the window and the MTU left to the tables' headings.
fn short(link: &str) -> String {
    let keep = |p: &&str| {
        p.starts_with("RTT")
            || p.ends_with("bit/s")
            || p.starts_with("loss")
            || p.starts_with("HTTP/3")
    };
    let parts: Vec<&str> = link.split(", ").filter(keep).collect();
    let parts: Vec<String> = (parts.iter())
        .map(|p| match p.split_once(" of datagrams") {
            Some((loss, _)) => loss.to_owned(),
            None => (*p).to_owned(),
        })
        .collect();
    parts.join(", ")
}

fn size(b: u64) -> String {
    match b {
        b if b >= 1_000_000 => format!("{} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{} KB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

fn ms(s: &Option<Spread>) -> String {
    s.as_ref().map_or("—".into(), |s| {
        format!("{:.1} ms ({:.1}–{:.1})", s.median, s.lo, s.hi)
    })
}

fn signed(v: f64, unit: &str) -> String {
    match v < 0.0 {
        true => format!("−{:.1}{unit}", -v),
        false => format!("+{:.1}{unit}", v),
    }
}

fn rounds(r: &WireRow) -> String {
    let real = r.rounds.map_or("—".into(), |x| format!("{x}"));
    let model = r.model_rounds.map_or("—".into(), |x| format!("{x}"));
    let differs = match (r.rounds, r.model_differs) {
        (Some(_), 0) => String::new(),
        (Some(_), n) => format!(", differs on {n}"),
        (None, _) => String::new(),
    };
    format!("{real} / {model}{differs}")
}

/// The tables, one per link.
pub(crate) fn tables(rows: &[WireRow]) -> String {
    let mut out = String::new();
    let mut link = None;
    for r in rows {
        if link != Some(&r.link) {
            link = Some(&r.link);
            out.push_str(&format!(
                "\n#### {}\n\n| transport | response | chains | sites | handshake round trips (link / model) | first byte | last byte | first byte vs today's | last byte vs today's | lost per connection |\n|---|---:|---|---:|---|---:|---:|---:|---:|---:|\n",
                r.link
            ));
        }
        let vs = r.set != CLASSICAL;
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            transport(&r.transport),
            size(r.size),
            profile_label(&r.set),
            r.sites,
            rounds(r),
            ms(&r.first_byte_ms),
            ms(&r.last_byte_ms),
            (r.first_byte_delta_ms.as_ref())
                .filter(|_| vs)
                .map_or("—".into(), |d| signed(d.median, " ms")),
            (r.last_byte_delta_share.as_ref())
                .filter(|_| vs)
                .map_or("—".into(), |d| signed(d.median * 100.0, " %")),
            r.lost.map_or("—".into(), |l| format!("{l}")),
        ));
    }
    out
}

/// One twin's answer line: over each transport, its extra round trips (QUIC: as the link
/// counted them, against the model) and its first and last bytes against today's, each a
/// range over the links and sizes with the link named at each end.
fn twin_line(set: &str, rows: &[&WireRow]) -> String {
    let mut parts = Vec::new();
    for t in ["rustls", "quic"] {
        let mine: Vec<&&WireRow> = rows.iter().filter(|r| r.transport == t).collect();
        if mine.is_empty() {
            continue;
        }
        let ends = |f: &dyn Fn(&WireRow) -> Option<f64>| {
            let mut v: Vec<(f64, &WireRow)> =
                mine.iter().filter_map(|r| Some((f(r)?, **r))).collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            Some((*v.first()?, *v.last()?))
        };
        let mut text = format!("over {}", transport(t));
        // The round trips of a link that lost nothing: a loss adds its own.
        if let Some(r) = (mine.iter()).find(|r| r.rounds.is_some() && r.lost.unwrap_or(0.0) == 0.0)
        {
            text.push_str(&format!(
                ": the handshake takes {} (the link's count, median over sites; the model says {}), one more than its own on {} of {} sites",
                r.rounds.map_or("—".into(), |n| match n == 1.0 {
                    true => "1 round trip".to_owned(),
                    false => format!("{n} round trips"),
                }),
                r.model_rounds.map_or("—".into(), |m| format!("{m}")),
                r.extra_sites,
                r.sites
            ));
        }
        if let Some(((lo, a), (hi, b))) = ends(&|r| Some(r.first_byte_delta_ms.as_ref()?.median)) {
            text.push_str(&format!(
                "; the first byte {} ({}, {}) to {} ({}, {})",
                signed(lo, " ms"),
                short(&a.link),
                size(a.size),
                signed(hi, " ms"),
                short(&b.link),
                size(b.size)
            ));
        }
        if let Some(((lo, a), (hi, b))) =
            ends(&|r| Some(r.last_byte_delta_share.as_ref()?.median * 100.0))
        {
            text.push_str(&format!(
                "; the last byte {} ({}, {}) to {} ({}, {})",
                signed(lo, " %"),
                short(&a.link),
                size(a.size),
                signed(hi, " %"),
                short(&b.link),
                size(b.size)
            ));
        }
        parts.push(text);
    }
    super::answer_list::bullet(&format!(
        "{} against today's chains (median over sites of the per-site difference): {}.",
        profile_label(set),
        parts.join("; ")
    ))
}

/// The answer: a line per twin.
pub(crate) fn answer(rows: &[WireRow]) -> String {
    let mut sets: Vec<&str> = rows.iter().map(|r| r.set.as_str()).collect();
    sets.dedup();
    sets.sort();
    sets.dedup();
    let lines: Vec<String> = (sets.iter())
        .filter(|s| **s != CLASSICAL)
        .map(|s| twin_line(s, &rows.iter().filter(|r| r.set == *s).collect::<Vec<_>>()))
        .collect();
    lines.concat()
}
