//! Bulk transfer results (`certbench bulk`): MB/s sending and receiving application data over
//! an established TLS session, per stack, TLS version, cipher suite and key, over several
//! runs — and the tables of them (best, median, range).

use serde::{Deserialize, Serialize};

use crate::export::markdown::table::plain_table;

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
    /// The best run.
    pub fn best(&self) -> f64 {
        self.mb_per_s.iter().copied().fold(0.0, f64::max)
    }

    /// The median run.
    pub fn median(&self) -> f64 {
        crate::stats::middle(&mut self.mb_per_s.clone()).unwrap_or(0.0)
    }

    /// The slowest run.
    pub fn worst(&self) -> f64 {
        self.mb_per_s.iter().copied().fold(f64::MAX, f64::min)
    }

    /// Stack, TLS version, suite and key: what the send and receive rows share.
    pub fn label(&self) -> String {
        format!(
            "{} · TLS {} {} · {}",
            self.stack, self.tls, self.suite, self.key
        )
    }
}

fn cell(r: Option<&BulkResult>) -> String {
    match r {
        Some(r) => format!(
            "{:.0} ({:.0}, {:.0}–{:.0})",
            r.best(),
            r.median(),
            r.worst(),
            r.best()
        ),
        None => "—".to_owned(),
    }
}

/// Markdown: one row per stack × version × suite × key, send and receive side by side
/// (best, then median and range over the runs).
pub fn render_markdown(results: &[BulkResult]) -> String {
    let mut labels: Vec<String> = Vec::new();
    for r in results {
        if !labels.contains(&r.label()) {
            labels.push(r.label());
        }
    }
    let rows = labels
        .iter()
        .map(|l| {
            let of = |d: &str| results.iter().find(|r| &r.label() == l && r.direction == d);
            let any = of("send").or(of("receive")).expect("a result per label");
            vec![
                any.stack.clone(),
                any.tls.clone(),
                any.suite.clone(),
                any.key.clone(),
                any.mb_per_s.len().to_string(),
                cell(of("send")),
                cell(of("receive")),
            ]
        })
        .collect();
    plain_table(
        &[
            "stack",
            "TLS",
            "suite",
            "key",
            "runs",
            "send MB/s: best (median, range)",
            "receive MB/s: best (median, range)",
        ],
        rows,
        4,
    )
}

/// CSV: one line per result and run.
pub fn render_csv(results: &[BulkResult]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "stack",
        "library",
        "tls",
        "suite",
        "key",
        "direction",
        "bytes",
        "record",
        "run",
        "mb_per_s",
    ]);
    for r in results {
        for (i, v) in r.mb_per_s.iter().enumerate() {
            let _ = w.write_record([
                r.stack.clone(),
                r.library.clone(),
                r.tls.clone(),
                r.suite.clone(),
                r.key.clone(),
                r.direction.clone(),
                r.bytes.to_string(),
                r.record.to_string(),
                i.to_string(),
                format!("{v:.3}"),
            ]);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_median_and_range_per_direction() {
        let r = |direction: &str, v: Vec<f64>| BulkResult {
            stack: "rustls-aws-lc-rs".into(),
            library: "rustls 0.23".into(),
            tls: "1.3".into(),
            suite: "TLS_AES_128_GCM_SHA256".into(),
            key: "p256".into(),
            direction: direction.into(),
            bytes: 1 << 20,
            record: 16384,
            mb_per_s: v,
        };
        let send = r("send", vec![900.0, 1000.0, 800.0, 950.0, 990.0]);
        assert_eq!(
            (send.best(), send.median(), send.worst()),
            (1000.0, 950.0, 800.0)
        );
        let md = render_markdown(&[send.clone(), r("receive", vec![700.0, 600.0])]);
        let row = md.lines().find(|l| l.contains("TLS_AES_128")).unwrap();
        assert!(row.contains("1000 (950, 800–1000)"), "{row}");
        assert!(row.contains("700 (650, 600–700)"), "{row}");
        assert_eq!(render_csv(&[send.clone()]).lines().count(), 6);
        crate::export::golden::check("bulk.md", &md);
        crate::export::golden::check("bulk.csv", &render_csv(&[send]));
    }
}
