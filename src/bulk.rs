//! `certbench bulk`: how fast application data moves over an established TLS session, with
//! client and server of one stack joined in memory (no socket, no kernel): the cost of the
//! TLS library and its symmetric crypto alone, as the published rustls-versus-OpenSSL bulk
//! comparisons measure it.
//!
//! One measurement: a handshake (not timed) for the cipher suite asked for — checked to be the
//! one negotiated — then `bytes` of application data from client to server through a
//! [`crate::tls::pair`], whose two clocks (send, receive) and byte-for-byte check make the
//! figures. Stacks: `rustls-aws-lc-rs` and `rustls-ring`, and `openssl` (see
//! [`crate::tls::TlsLibrary`]).
//!
//! Invariant: a configuration that fails once is never measured again in the run, and gives
//! no figure — only its failure.

use std::time::Duration;

use certbench_schema::records::bulk::{BulkResult, BulkRun};

use crate::certs::test::ServerCert;
use crate::tls::pair::{self, PairError, TransferError};
use crate::tls::{Cipher, KeyType, Suite, TlsLibrary, Version};

/// Why a measurement could not be made, or must not be believed.
#[derive(Debug, thiserror::Error)]
pub enum BulkError {
    /// No certificate could be made for the suite's key.
    #[error("{stack}: no server certificate")]
    NoCert {
        /// The stack.
        stack: &'static str,
    },
    /// Setting up or connecting the pair failed.
    #[error("{stack}: {source}")]
    Tls {
        /// The stack.
        stack: &'static str,
        /// What failed.
        source: PairError,
    },
    /// The transfer failed, or the server did not read what the client sent.
    #[error("{stack}: {source}")]
    Transfer {
        /// The stack.
        stack: &'static str,
        /// What failed or differed.
        source: TransferError,
    },
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct BulkOptions {
    /// Stacks.
    pub stacks: Vec<TlsLibrary>,
    /// Suites.
    pub suites: Vec<Suite>,
    /// Application bytes per measurement.
    pub bytes: u64,
    /// Plaintext bytes per record.
    pub record: usize,
    /// Measurements per configuration (each on a new session).
    pub runs: u32,
}

impl BulkOptions {
    /// The MiB per measurement, as the note and the title print it.
    fn mib(&self) -> f64 {
        self.bytes as f64 / f64::from(1 << 20)
    }

    /// The note printed before a run.
    pub fn describe(&self) -> String {
        format!(
            "certbench bulk: {} stacks × {} suites × {} runs of {} MiB, in memory",
            self.stacks.len(),
            self.suites.len(),
            self.runs,
            self.mib()
        )
    }

    /// The measurements a run makes (for a progress bar).
    pub fn total(&self) -> u64 {
        (self.stacks.len() * self.suites.len()) as u64 * u64::from(self.runs)
    }

    /// What every run moves, as the document's title names it.
    pub fn run(&self) -> BulkRun {
        BulkRun {
            mib: self.mib(),
            record: self.record,
        }
    }
}

/// The suites of every version × key × cipher, in that order; a TLS 1.3 suite does not depend
/// on the key, so TLS 1.3 takes the first key only.
pub fn suites(versions: &[Version], keys: &[KeyType], ciphers: &[Cipher]) -> Vec<Suite> {
    let mut suites = Vec::new();
    for &tls in versions {
        for &key in keys {
            for &cipher in ciphers {
                suites.push(Suite { tls, cipher, key });
            }
            if tls == Version::V13 {
                break;
            }
        }
    }
    suites
}

fn mb_per_s(bytes: u64, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64().max(1e-9) / 1e6
}

/// One measurement of `stack` × `suite`: a new pair, then the transfer; (send, receive).
fn measure(
    opts: &BulkOptions,
    stack: TlsLibrary,
    suite: Suite,
    cert: Option<&ServerCert>,
    plain: &[u8],
) -> Result<(Duration, Duration), BulkError> {
    let stack_name = stack.name();
    let cert = cert.ok_or(BulkError::NoCert { stack: stack_name })?;
    let mut pair = pair::connect(stack, suite, cert).map_err(|source| BulkError::Tls {
        stack: stack_name,
        source,
    })?;
    pair::transfer(pair.as_mut(), opts.bytes, opts.record, plain).map_err(|source| {
        BulkError::Transfer {
            stack: stack_name,
            source,
        }
    })
}

/// Measures every stack × suite `runs` times, runs interleaved (run 1 of every
/// configuration, then run 2, …); returns each configuration's two results (send, receive),
/// and each failure with its label (that configuration is then skipped).
pub fn run(
    opts: &BulkOptions,
    certs: &dyn Fn(KeyType) -> Option<ServerCert>,
    mut progress: impl FnMut(),
) -> (Vec<BulkResult>, Vec<(String, BulkError)>) {
    let plain = pair::pattern();
    let configs: Vec<(TlsLibrary, Suite)> = opts
        .stacks
        .iter()
        .flat_map(|&st| opts.suites.iter().map(move |&su| (st, su)))
        .collect();
    let mut speeds: Vec<Option<(Vec<f64>, Vec<f64>)>> =
        vec![Some((Vec::new(), Vec::new())); configs.len()];
    let mut failures = Vec::new();
    let mut cert_cache: Vec<(KeyType, Option<ServerCert>)> = Vec::new();
    for _ in 0..opts.runs {
        for (i, &(stack, suite)) in configs.iter().enumerate() {
            let Some((send, receive)) = speeds[i].as_mut() else {
                continue;
            };
            if !cert_cache.iter().any(|(k, _)| *k == suite.key) {
                cert_cache.push((suite.key, certs(suite.key)));
            }
            let cert = cert_cache
                .iter()
                .find(|(k, _)| *k == suite.key)
                .and_then(|(_, c)| c.as_ref());
            match measure(opts, stack, suite, cert, &plain) {
                Ok((s, r)) => {
                    send.push(mb_per_s(opts.bytes, s));
                    receive.push(mb_per_s(opts.bytes, r));
                }
                Err(e) => {
                    let label =
                        format!("{} TLS {} {}", stack.name(), suite.tls.name(), suite.iana());
                    failures.push((label, e));
                    speeds[i] = None;
                }
            }
            progress();
        }
    }
    (results(opts, configs, speeds), failures)
}

/// The send and receive results of every configuration that was measured to the end.
fn results(
    opts: &BulkOptions,
    configs: Vec<(TlsLibrary, Suite)>,
    speeds: Vec<Option<(Vec<f64>, Vec<f64>)>>,
) -> Vec<BulkResult> {
    let mut results = Vec::new();
    for ((stack, suite), s) in configs.into_iter().zip(speeds) {
        let Some((send, receive)) = s else { continue };
        for (direction, v) in [("send", send), ("receive", receive)] {
            results.push(BulkResult {
                stack: stack.name().to_owned(),
                library: stack.version(),
                tls: suite.tls.name().to_owned(),
                suite: suite.iana().to_owned(),
                key: suite.key.to_string(),
                direction: direction.to_owned(),
                bytes: opts.bytes,
                record: opts.record,
                mb_per_s: v,
            });
        }
    }
    results
}
