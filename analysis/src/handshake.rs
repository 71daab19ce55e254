//! Handshake throughput results (`certbench handshake`): one [`HandshakeRun`] per
//! configuration and client stack, and the tables shaped like the published rustls-vs-OpenSSL
//! comparisons: rows = configuration (key, TLS version, full or resumed), columns = OpenSSL,
//! rustls, ratio; then latency percentiles and CPU time per handshake.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::export::Format;
use crate::export::markdown::plain_table;

/// One measured configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandshakeRun {
    /// Client TLS stack (`openssl`, `rustls`).
    pub client: String,
    /// Server TLS stack.
    pub server: String,
    /// Crypto provider of the rustls side(s) (`aws-lc-rs`, `ring`).
    pub provider: String,
    /// Server key type (`rsa2048`, `p256`, `p384`).
    pub key: String,
    /// `1.2` or `1.3`.
    pub tls: String,
    /// `none`, `tickets` or `session-id`.
    pub resumption: String,
    /// Concurrent clients.
    pub clients: usize,
    /// Handshakes done (each: TCP connect + TLS handshake with certificate verification on
    /// the client + close).
    pub handshakes: u64,
    /// Handshakes the client's TLS library reported as resumed.
    pub resumed: u64,
    /// Wall time of the measured handshakes, seconds.
    pub seconds: f64,
    /// Handshakes per second.
    pub per_second: f64,
    /// Latency of one handshake, microseconds.
    pub p50_us: f64,
    /// 90th percentile, µs.
    pub p90_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Slowest, µs.
    pub max_us: f64,
    /// Client CPU time (user + system) per handshake, µs.
    pub client_cpu_us: f64,
    /// Server CPU time per handshake, µs.
    pub server_cpu_us: f64,
}

impl HandshakeRun {
    /// `full`, or `resumed` when resumption was asked for.
    pub fn kind(&self) -> &'static str {
        if self.resumption == "none" {
            "full"
        } else {
            "resumed"
        }
    }

    /// The row label: key, TLS version, full or resumed (with the mechanism).
    pub fn config(&self) -> String {
        match self.resumption.as_str() {
            "none" => format!("{} TLS {} full", self.key, self.tls),
            r => format!("{} TLS {} resumed ({r})", self.key, self.tls),
        }
    }
}

/// Renders `runs` in `format`.
pub fn render(runs: &[HandshakeRun], format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(runs).expect("runs serialize") + "\n",
        Format::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            for r in runs {
                w.serialize(r).expect("writing to memory");
            }
            String::from_utf8(w.into_inner().expect("flushing to memory")).expect("UTF-8")
        }
        Format::Markdown => markdown(runs),
    }
}

fn markdown(runs: &[HandshakeRun]) -> String {
    let mut out = String::new();
    // Throughput: one row per configuration, a column per client stack, and the ratio.
    let mut configs: Vec<String> = Vec::new();
    for r in runs {
        if !configs.contains(&r.config()) {
            configs.push(r.config());
        }
    }
    let find = |c: &str, client: &str| runs.iter().find(|r| r.config() == c && r.client == client);
    let rows: Vec<Vec<String>> = configs
        .iter()
        .map(|c| {
            let o = find(c, "openssl");
            let r = find(c, "rustls");
            let cell = |x: Option<&HandshakeRun>| {
                x.map_or("—".to_owned(), |x| format!("{:.0}", x.per_second))
            };
            let ratio = match (o, r) {
                (Some(o), Some(r)) if o.per_second > 0.0 => {
                    format!("×{:.2}", r.per_second / o.per_second)
                }
                _ => "—".to_owned(),
            };
            vec![c.clone(), cell(o), cell(r), ratio]
        })
        .collect();
    let same = runs.iter().all(|r| r.client == r.server);
    let mut servers: Vec<&str> = Vec::new();
    for r in runs {
        if !servers.contains(&r.server.as_str()) {
            servers.push(&r.server);
        }
    }
    let server = if same {
        "each against a server of its own stack".to_owned()
    } else {
        format!("server {}", servers.join(", "))
    };
    let _ = writeln!(
        out,
        "### Handshakes per second (columns: client stack, {server}; {} client(s))\n",
        runs.first().map_or(0, |r| r.clients)
    );
    out.push_str(&plain_table(
        &["configuration", "OpenSSL", "rustls", "rustls ÷ OpenSSL"],
        rows,
        1,
    ));
    out.push_str("\n\n### Latency and CPU per handshake (µs)\n\n");
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.config(),
                r.client.clone(),
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
        .collect();
    out.push_str(&plain_table(
        &[
            "configuration",
            "client",
            "n",
            "resumed",
            "p50",
            "p90",
            "p99",
            "max",
            "client CPU",
            "server CPU",
        ],
        rows,
        2,
    ));
    out.push('\n');
    out
}

/// Resident memory per idle TLS connection, client and server side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryRun {
    /// Client stack.
    pub client: String,
    /// Server stack.
    pub server: String,
    /// Key type.
    pub key: String,
    /// TLS version.
    pub tls: String,
    /// The allocator of the build.
    pub allocator: String,
    /// Connections held.
    pub connections: usize,
    /// Client RSS growth per connection, KiB.
    pub client_kib_per_connection: f64,
    /// Server RSS growth per connection, KiB.
    pub server_kib_per_connection: f64,
}

/// Renders memory runs in `format`.
pub fn render_memory(runs: &[MemoryRun], format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(runs).expect("runs serialize") + "\n",
        Format::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            for r in runs {
                w.serialize(r).expect("writing to memory");
            }
            String::from_utf8(w.into_inner().expect("flushing to memory")).expect("UTF-8")
        }
        Format::Markdown => {
            let rows = runs
                .iter()
                .map(|r| {
                    vec![
                        format!("{} ↔ {}", r.client, r.server),
                        format!("{} TLS {}", r.key, r.tls),
                        r.connections.to_string(),
                        format!("{:.1}", r.client_kib_per_connection),
                        format!("{:.1}", r.server_kib_per_connection),
                    ]
                })
                .collect();
            format!(
                "### Memory per idle connection (RSS growth ÷ connections, KiB; allocator: {})\n\n{}\n",
                runs.first().map_or("?", |r| r.allocator.as_str()),
                plain_table(
                    &[
                        "client ↔ server",
                        "configuration",
                        "connections",
                        "client KiB",
                        "server KiB"
                    ],
                    rows,
                    2
                )
            )
        }
    }
}
