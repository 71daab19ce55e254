//! `certbench handshake`'s records: a throughput run per configuration and client stack
//! ([`HandshakeRun`]), and with `--hold` the memory an idle connection keeps
//! ([`MemoryRun`]); each a file of its own kind.

use serde::{Deserialize, Serialize};

use super::{Kind, Record};
use crate::names::{Named, Transport};

/// One measured configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandshakeRun {
    /// Client TLS stack (`openssl`, `rustls`).
    pub client: Named<Transport>,
    /// Server TLS stack.
    pub server: Named<Transport>,
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
    /// The rustls client's certificate verifier when it was a certbench method (inside
    /// certbench's `MethodVerifier`); absent: the stack's own (rustls' `WebPkiServerVerifier`,
    /// OpenSSL's `X509_verify_cert`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verifier: Option<String>,
    /// The server sent leaf ← intermediate (two signature checks to the root) instead of a
    /// leaf issued by the trusted CA itself (one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub intermediate: bool,
    /// Server threads (each its own single-threaded runtime on the one listening socket).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub server_threads: usize,
    /// Client threads the clients ran on.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub client_threads: usize,
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
    /// Client CPU time (user + system) per handshake, µs: the process's CPU time less the
    /// server thread's (the client thread, and any worker pool its verifier uses).
    pub client_cpu_us: f64,
    /// Server CPU time per handshake, µs.
    pub server_cpu_us: f64,
    /// `--revocation`: verifications whose revocation check ran (every full handshake's, for
    /// a method with a mechanism).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revocation_checks: u64,
    /// Of those, the checks that found the path good.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revocation_good: u64,
    /// Bytes of data a check read (the CRLSet, the filter, the CRLs; for `ocsp`, the stapled
    /// response).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revocation_data_bytes: u64,
    /// Bytes the mechanism keeps in memory between checks.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revocation_resident_bytes: u64,
    /// The data's one load (`revocation-load`), µs, made before the timed handshakes and not
    /// in their figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_load_us: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
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

/// Resident memory per idle TLS connection, client and server side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryRun {
    /// Client stack.
    pub client: Named<Transport>,
    /// Server stack.
    pub server: Named<Transport>,
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

impl Record for HandshakeRun {
    const KIND: Kind = Kind::Handshake;
}

impl Record for MemoryRun {
    const KIND: Kind = Kind::Memory;
}
