//! `certbench handshake` in markdown: handshakes per second (a row per configuration, OpenSSL
//! and rustls side by side), latency and CPU per handshake, memory per idle connection.

use std::fmt::Write;

use super::table::plain_table;
use crate::export::handshake::{Table, latency_table, memory_table, throughput_table};
use crate::handshake::{HandshakeRun, MemoryRun};

fn plain(t: Table) -> String {
    plain_table(t.header, t.rows, t.right_from)
}

/// The throughput and latency tables.
pub(crate) fn runs(runs: &[HandshakeRun]) -> String {
    let mut out = String::new();
    let same = runs.iter().all(|r| r.client == r.server);
    let mut servers: Vec<&str> = Vec::new();
    for r in runs {
        if !servers.contains(&r.server.as_str()) {
            servers.push(r.server.as_str());
        }
    }
    let server = if same {
        "each against a server of its own stack".to_owned()
    } else {
        format!("server {}", servers.join(", "))
    };
    let clients = match runs.first() {
        Some(f) if runs.iter().all(|r| r.clients == f.clients) => {
            format!("; {} client(s)", f.clients)
        }
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "### Handshakes per second (columns: client stack, {server}{clients})\n"
    );
    out.push_str(&plain(throughput_table(runs)));
    out.push_str("\n\n### Latency and CPU per handshake (µs)\n\n");
    out.push_str(&plain(latency_table(runs)));
    out.push('\n');
    out
}

/// The memory table under its title.
pub(crate) fn memory(runs: &[MemoryRun]) -> String {
    format!(
        "### Memory per idle connection (RSS growth ÷ connections, KiB)\n\n{}\n",
        plain(memory_table(runs))
    )
}
