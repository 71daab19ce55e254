//! The cells of `certbench handshake`'s tables, as text, for the markdown and the HTML writer
//! alike: the same figures in the same columns whichever format draws them.

use crate::handshake::{HandshakeRun, MemoryRun, label, rows};

/// A table's cells as text, for any exporter (markdown here, HTML in
/// [`crate::export::html`]): columns from `right_from` on are numbers.
#[derive(Clone, Debug)]
pub struct Table {
    /// Column headers.
    pub header: &'static [&'static str],
    /// One row of cells per line.
    pub rows: Vec<Vec<String>>,
    /// First right-aligned (numeric) column.
    pub right_from: usize,
}

/// Handshakes per second: one row per configuration, OpenSSL, rustls, and the ratio.
pub fn throughput_table(runs: &[HandshakeRun]) -> Table {
    let cell =
        |x: Option<&HandshakeRun>| x.map_or("—".to_owned(), |x| format!("{:.0}", x.per_second));
    Table {
        header: &["configuration", "OpenSSL", "rustls", "rustls ÷ OpenSSL"],
        rows: rows(runs)
            .into_iter()
            .map(|row| {
                vec![
                    row.label.clone(),
                    cell(row.openssl),
                    cell(row.rustls),
                    row.ratio().map_or("—".to_owned(), |x| format!("×{x:.2}")),
                ]
            })
            .collect(),
        right_from: 1,
    }
}

/// Latency percentiles and CPU per handshake (µs): one row per run.
pub fn latency_table(runs: &[HandshakeRun]) -> Table {
    Table {
        header: &[
            "configuration",
            "client",
            "server",
            "n",
            "resumed",
            "p50",
            "p90",
            "p99",
            "max",
            "client CPU",
            "server CPU",
        ],
        rows: runs
            .iter()
            .map(|r| {
                vec![
                    label(runs, r),
                    r.client.to_string(),
                    r.server.to_string(),
                    r.handshakes.to_string(),
                    format!("{}/{}", r.resumed, r.handshakes),
                    format!("{:.0}", r.p50_us),
                    format!("{:.0}", r.p90_us),
                    format!("{:.0}", r.p99_us),
                    format!("{:.0}", r.max_us),
                    format!("{:.0}", r.client_cpu_us),
                    format!("{:.0}", r.server_cpu_us),
                ]
            })
            .collect(),
        right_from: 3,
    }
}

/// Memory per idle connection (KiB): one row per run.
pub fn memory_table(runs: &[MemoryRun]) -> Table {
    Table {
        header: &[
            "client ↔ server",
            "configuration",
            "allocator",
            "connections",
            "client KiB",
            "server KiB",
        ],
        rows: runs
            .iter()
            .map(|r| {
                vec![
                    format!("{} ↔ {}", r.client, r.server),
                    format!("{} TLS {}", r.key, r.tls),
                    r.allocator.clone(),
                    r.connections.to_string(),
                    format!("{:.1}", r.client_kib_per_connection),
                    format!("{:.1}", r.server_kib_per_connection),
                ]
            })
            .collect(),
        right_from: 3,
    }
}
