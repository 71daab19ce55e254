//! Bulk transfer results (`certbench bulk`): MB/s sending and receiving application data over
//! an established TLS session, per stack, TLS version, cipher suite and key, over several
//! runs, each result's best, median and worst run; `export::markdown::bulk` draws the table.

use serde::{Deserialize, Serialize};

use crate::stats::Spread;

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

impl BulkResult {
    /// The runs' median and range.
    pub fn spread(&self) -> Option<Spread> {
        Spread::of(&self.mb_per_s)
    }

    /// The best run (0 without a run).
    pub fn best(&self) -> f64 {
        self.spread().map_or(0.0, |s| s.hi)
    }

    /// The median run (0 without a run).
    pub fn median(&self) -> f64 {
        self.spread().map_or(0.0, |s| s.median)
    }

    /// The slowest run (`f64::MAX` without a run, as a fold over none gives it).
    pub fn worst(&self) -> f64 {
        self.spread().map_or(f64::MAX, |s| s.lo)
    }

    /// Stack, TLS version, suite and key: what the send and receive rows share.
    pub fn label(&self) -> String {
        format!(
            "{} · TLS {} {} · {}",
            self.stack, self.tls, self.suite, self.key
        )
    }
}

/// What every run of one `certbench bulk` moved: the figures its document's title names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BulkRun {
    /// Application bytes per run, in MiB.
    pub mib: f64,
    /// Plaintext bytes per record written.
    pub record: usize,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A result of `rustls-aws-lc-rs`, TLS 1.3, AES-128-GCM, P-256: one direction's runs.
    pub(crate) fn r(direction: &str, v: Vec<f64>) -> BulkResult {
        BulkResult {
            stack: "rustls-aws-lc-rs".into(),
            library: "rustls 0.23".into(),
            tls: "1.3".into(),
            suite: "TLS_AES_128_GCM_SHA256".into(),
            key: "p256".into(),
            direction: direction.into(),
            bytes: 1 << 20,
            record: 16384,
            mb_per_s: v,
        }
    }

    #[test]
    fn best_median_and_range_per_direction() {
        let send = r("send", vec![900.0, 1000.0, 800.0, 950.0, 990.0]);
        assert_eq!(
            (send.best(), send.median(), send.worst()),
            (1000.0, 950.0, 800.0)
        );
        let receive = r("receive", vec![700.0, 600.0]);
        assert_eq!(
            (receive.best(), receive.median(), receive.worst()),
            (700.0, 650.0, 600.0)
        );
        assert_eq!(
            send.label(),
            "rustls-aws-lc-rs · TLS 1.3 TLS_AES_128_GCM_SHA256 · p256"
        );
    }
}
