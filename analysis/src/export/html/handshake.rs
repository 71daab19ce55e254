//! The handshake section of the HTML report (`certbench handshake --format json` output):
//! handshakes per second per configuration and client stack, latency percentiles, CPU per
//! handshake and memory per idle connection, each as a chart and a table.

use std::fmt::Write;

use super::chart::{hbars, push};
use super::table::{esc, html_table};
use crate::export::handshake::{Table, latency_table, memory_table, throughput_table};
use crate::handshake::{HandshakeRun, MemoryRun, Results, label, rows};

/// Appends the section for `results` to `h` (nothing when there are none).
pub(super) fn section(h: &mut String, results: &Results) {
    if results.is_empty() {
        return;
    }
    h.push_str("<h2>Handshakes</h2>\n");
    h.push_str(
        "<p class=\"note\">Loopback handshakes (TCP connect, TLS handshake with the client verifying the chain, close). \
         Throughput counts handshakes over the run's wall time; latency is one handshake's, from its HDR histogram; \
         CPU is user + system time of each side's process or thread divided by the handshakes.</p>\n",
    );
    if !results.runs.is_empty() {
        throughput(h, &results.runs);
        latency(h, &results.runs);
    }
    if !results.memory.is_empty() {
        memory(h, &results.memory);
    }
}

fn throughput(h: &mut String, runs: &[HandshakeRun]) {
    let rows = rows(runs);
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    let values: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|r| {
            vec![
                r.openssl.map(|x| x.per_second),
                r.rustls.map(|x| x.per_second),
            ]
        })
        .collect();
    push(
        h,
        hbars(
            "Handshakes per second, per client stack (higher is better)",
            "handshakes/s",
            &labels,
            &["OpenSSL".into(), "rustls".into()],
            &values,
        ),
    );
    h.push_str("<h3>Handshakes per second</h3>\n");
    table(h, throughput_table(runs));
}

fn latency(h: &mut String, runs: &[HandshakeRun]) {
    let labels: Vec<String> = runs
        .iter()
        .map(|r| format!("{} · {}", label(runs, r), r.client))
        .collect();
    let pct: Vec<Vec<Option<f64>>> = runs
        .iter()
        .map(|r| vec![Some(r.p50_us), Some(r.p90_us), Some(r.p99_us)])
        .collect();
    push(
        h,
        hbars(
            "Latency of one handshake: p50, p90, p99 (µs, lower is better)",
            "µs",
            &labels,
            &["p50".into(), "p90".into(), "p99".into()],
            &pct,
        ),
    );
    let cpu: Vec<Vec<Option<f64>>> = runs
        .iter()
        .map(|r| vec![Some(r.client_cpu_us), Some(r.server_cpu_us)])
        .collect();
    push(
        h,
        hbars(
            "CPU time per handshake, client and server side (µs, lower is better)",
            "µs",
            &labels,
            &["client CPU".into(), "server CPU".into()],
            &cpu,
        ),
    );
    h.push_str("<h3>Latency and CPU per handshake (µs)</h3>\n");
    table(h, latency_table(runs));
    for r in runs
        .iter()
        .filter(|r| r.resumption != "none" && r.resumed < r.handshakes)
    {
        let _ = writeln!(
            h,
            "<p class=\"note\"><strong>Warning:</strong> {} with the {} client: only {} of {} handshakes were resumed; its figures are not those of resumed handshakes.</p>",
            esc(&label(runs, r)),
            esc(r.client.as_str()),
            r.resumed,
            r.handshakes
        );
    }
}

fn memory(h: &mut String, runs: &[MemoryRun]) {
    let labels: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{} ↔ {}, {} TLS {}, {} conns, {}",
                r.client, r.server, r.key, r.tls, r.connections, r.allocator
            )
        })
        .collect();
    let values: Vec<Vec<Option<f64>>> = runs
        .iter()
        .map(|r| {
            vec![
                Some(r.client_kib_per_connection),
                Some(r.server_kib_per_connection),
            ]
        })
        .collect();
    push(
        h,
        hbars(
            "Resident memory per idle connection (KiB, lower is better)",
            "KiB",
            &labels,
            &["client".into(), "server".into()],
            &values,
        ),
    );
    h.push_str("<h3>Memory per idle connection (RSS growth ÷ connections, KiB)</h3>\n");
    table(h, memory_table(runs));
}

fn table(h: &mut String, t: Table) {
    html_table(h, t.header, &t.rows, t.right_from);
}
