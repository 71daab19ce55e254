//! Bulk transfer results (`certbench bulk`): MB/s sending and receiving application data over
//! an established TLS session, per stack, TLS version, cipher suite and key, over several
//! runs, each result's best, median and worst run; `export::markdown::bulk` draws the table.

pub use certbench_schema::records::bulk::{BulkResult, BulkRun};

use crate::stats::Spread;

/// A transfer's figures over its runs.
pub trait BulkFigures {
    /// The runs' median and range.
    fn spread(&self) -> Option<Spread>;
    /// The best run (0 without a run).
    fn best(&self) -> f64;
    /// The median run (0 without a run).
    fn median(&self) -> f64;
    /// The slowest run (`f64::MAX` without a run, as a fold over none gives it).
    fn worst(&self) -> f64;
    /// Stack, TLS version, suite and key: what the send and receive rows share.
    fn label(&self) -> String;
}

impl BulkFigures for BulkResult {
    fn spread(&self) -> Option<Spread> {
        Spread::of(&self.mb_per_s)
    }

    fn best(&self) -> f64 {
        self.spread().map_or(0.0, |s| s.hi)
    }

    fn median(&self) -> f64 {
        self.spread().map_or(0.0, |s| s.median)
    }

    fn worst(&self) -> f64 {
        self.spread().map_or(f64::MAX, |s| s.lo)
    }

    fn label(&self) -> String {
        format!(
            "{} · TLS {} {} · {}",
            self.stack, self.tls, self.suite, self.key
        )
    }
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
