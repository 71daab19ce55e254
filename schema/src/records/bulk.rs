//! `certbench bulk`'s record: one configuration's transfer in one direction over every run
//! ([`BulkResult`]), and what every run moved ([`BulkRun`]).

use serde::{Deserialize, Serialize};

use super::{Kind, Record};

/// One configuration's transfer in one direction, over every run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BulkResult {
    /// `openssl`, `rustls-aws-lc-rs` or `rustls-ring`.
    pub stack: String,
    /// The library and version, e.g. `OpenSSL 3.0.19`, `rustls 0.23.46`.
    pub library: String,
    /// `1.2` or `1.3`.
    pub tls: String,
    /// The cipher suite, as IANA names it (`TLS_AES_128_GCM_SHA256`,
    /// `TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256`).
    pub suite: String,
    /// The server's key (`p256`, `rsa2048`): it decides the TLS 1.2 suite's authentication.
    pub key: String,
    /// `send` (the sender's work: plaintext in, records out) or `receive` (records in,
    /// plaintext out).
    pub direction: String,
    /// Application bytes per run.
    pub bytes: u64,
    /// Plaintext bytes per record written.
    pub record: usize,
    /// MB/s (10⁶ bytes per second) of each run, in run order.
    pub mb_per_s: Vec<f64>,
}

/// What every run of one `certbench bulk` moved: the figures its document's title names.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BulkRun {
    /// Application bytes per run, in MiB.
    pub mib: f64,
    /// Plaintext bytes per record written.
    pub record: usize,
}

impl Record for BulkResult {
    const KIND: Kind = Kind::Bulk;
}
