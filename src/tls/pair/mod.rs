//! The in-memory client–server pair: client and server of one [`TlsLibrary`] joined in memory
//! (no socket, no kernel), for `bulk`'s transfers and `icount`'s scenarios.
//!
//! [`Ends`] configures both sides once; each [`Ends::connect`] is a handshake between new
//! connections, checked to have negotiated the suite asked for. [`transfer`] moves
//! application data from client to server in batches of 1 MiB on two clocks: **send** is the
//! client's work (plaintext written, records produced), **receive** the server's (records
//! read, decrypted, plaintext read out). Every batch the server reads is compared with what
//! was sent, outside both clocks: a mismatch is an error, never a figure.

mod openssl;
mod rustls;
mod session;

pub use session::{Pair, PairError};

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Suite, TlsLibrary};
use crate::certs::test::ServerCert;

/// Plaintext bytes per batch between the two clocks.
const BATCH: usize = 1 << 20;

/// Why a transfer failed, or must not be believed.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The TLS stack failed.
    #[error(transparent)]
    Tls(#[from] PairError),
    /// The server did not read what the client sent.
    #[error("data integrity: sent {sent} bytes, received {got}{}", different(*.sent, *.got))]
    Integrity {
        /// Bytes sent in the batch.
        sent: usize,
        /// Bytes the server read.
        got: usize,
    },
}

fn different(sent: usize, got: usize) -> &'static str {
    if sent == got { ", different bytes" } else { "" }
}

/// A connected pair of `library` for `suite` with `cert`, resumption off.
pub fn connect(
    library: TlsLibrary,
    suite: Suite,
    cert: &ServerCert,
) -> Result<Box<dyn Pair>, PairError> {
    Ok(match library {
        TlsLibrary::Openssl => Box::new(openssl::pair(suite, cert)?),
        TlsLibrary::Rustls(p) => Box::new(rustls::pair(p, suite, cert)?),
    })
}

/// Both ends of one stack, configured once; each [`Ends::connect`] is a new handshake
/// between new connections (resumed when the configuration allows it and a session exists).
pub struct Ends {
    suite: Suite,
    kind: EndsKind,
}

enum EndsKind {
    Rustls(Arc<::rustls::ClientConfig>, Arc<::rustls::ServerConfig>),
    Openssl(openssl::OpensslEnds),
}

/// A connected pair of one stack.
pub struct Connected(Box<dyn Pair>, bool);

impl Connected {
    /// Whether the handshake resumed a session.
    pub fn resumed(&self) -> bool {
        self.1
    }

    /// Moves `bytes` from client to server through the pair (records of `record` bytes of
    /// `plain`, a [`pattern`]; checked byte for byte); the (send, receive) time.
    pub fn transfer(
        &mut self,
        bytes: u64,
        record: usize,
        plain: &[u8],
    ) -> Result<(Duration, Duration), TransferError> {
        transfer(self.0.as_mut(), bytes, record, plain)
    }
}

impl Ends {
    /// `library`'s client and server for `suite`, with `cert`; `resumption` lets the client
    /// keep and offer sessions.
    pub fn new(
        library: TlsLibrary,
        suite: Suite,
        cert: &ServerCert,
        resumption: bool,
    ) -> Result<Ends, PairError> {
        let kind = match library {
            TlsLibrary::Openssl => EndsKind::Openssl(openssl::ends(suite, cert, resumption)?),
            TlsLibrary::Rustls(p) => {
                let (c, s) = rustls::configs(p, suite, cert, resumption)?;
                EndsKind::Rustls(c, s)
            }
        };
        Ok(Ends { suite, kind })
    }

    /// One handshake in memory.
    pub fn connect(&self) -> Result<Connected, PairError> {
        Ok(match &self.kind {
            EndsKind::Rustls(c, s) => {
                let p = rustls::connect(c, s, self.suite)?;
                let resumed = p.client.handshake_kind() == Some(::rustls::HandshakeKind::Resumed);
                Connected(Box::new(p), resumed)
            }
            EndsKind::Openssl(ends) => {
                let p = openssl::connect(ends, self.suite)?;
                let resumed = p.client.ssl().session_reused();
                Connected(Box::new(p), resumed)
            }
        })
    }
}

/// The plaintext of one batch (1 MiB): a pattern that tells positions apart (so a dropped or
/// repeated record shows).
pub fn pattern() -> Vec<u8> {
    (0..BATCH).map(|i| (i % 251) as u8).collect()
}

/// Moves `bytes` through `pair` (records of `record` bytes of `plain`, a [`pattern`]); returns
/// the (send, receive) time.
pub fn transfer(
    pair: &mut dyn Pair,
    bytes: u64,
    record: usize,
    plain: &[u8],
) -> Result<(Duration, Duration), TransferError> {
    let mut wire = Vec::with_capacity(BATCH + BATCH / 16);
    let mut out = vec![0u8; BATCH];
    let (mut send, mut receive) = (Duration::ZERO, Duration::ZERO);
    let mut left = bytes;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        wire.clear();
        let started = Instant::now();
        pair.send(&plain[..n], record, &mut wire)?;
        send += started.elapsed();
        let started = Instant::now();
        let got = pair.receive(&wire, &mut out[..n])?;
        receive += started.elapsed();
        if got != n || out[..n] != plain[..n] {
            return Err(TransferError::Integrity { sent: n, got });
        }
        left -= n as u64;
    }
    Ok((send, receive))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs::test as certs;
    use crate::tls::{Cipher, KeyType, Provider, Version};

    #[test]
    fn every_stack_negotiates_the_suite_asked_for_and_delivers_every_byte() {
        let p256 = certs::generate(KeyType::P256).unwrap();
        let plain = pattern();
        for tls in [Version::V12, Version::V13] {
            for cipher in [Cipher::Aes128gcm, Cipher::Aes256gcm, Cipher::Chacha20] {
                let suite = Suite {
                    tls,
                    cipher,
                    key: KeyType::P256,
                };
                for library in TlsLibrary::ALL {
                    let mut pair = connect(library, suite, &p256).unwrap();
                    // 2.5 MiB: two full batches and a partial one, in odd-sized records.
                    let (s, r) = transfer(pair.as_mut(), 5 << 19, 10_000, &plain)
                        .unwrap_or_else(|e| panic!("{} {}: {e}", library.name(), suite.iana()));
                    assert!(s > Duration::ZERO && r > Duration::ZERO);
                }
            }
        }
    }

    /// A receiver that drops a byte is caught: the figure is refused.
    #[test]
    fn a_lost_byte_is_an_integrity_error_not_a_figure() {
        struct Lossy(rustls::RustlsPair);
        impl Pair for Lossy {
            fn send(&mut self, p: &[u8], r: usize, w: &mut Vec<u8>) -> Result<(), PairError> {
                self.0.send(p, r, w)
            }
            fn receive(&mut self, w: &[u8], out: &mut [u8]) -> Result<usize, PairError> {
                let n = self.0.receive(w, out)?;
                out[7] ^= 1;
                Ok(n)
            }
        }
        let cert = certs::generate(KeyType::P256).unwrap();
        let suite = Suite {
            tls: Version::V13,
            cipher: Cipher::Aes128gcm,
            key: KeyType::P256,
        };
        let mut pair = Lossy(rustls::pair(Provider::AwsLcRs, suite, &cert).unwrap());
        let err = transfer(&mut pair, 1000, 100, &pattern()).unwrap_err();
        assert!(matches!(err, TransferError::Integrity { .. }), "{err}");
        assert_eq!(
            err.to_string(),
            "data integrity: sent 1000 bytes, received 1000, different bytes"
        );
    }

    #[test]
    fn every_stack_resumes_in_memory_when_asked_and_never_otherwise() {
        let cert = certs::generate(KeyType::P256).unwrap();
        let suite = Suite {
            tls: Version::V13,
            cipher: Cipher::Aes128gcm,
            key: KeyType::P256,
        };
        for library in TlsLibrary::ALL {
            let ends = Ends::new(library, suite, &cert, true).unwrap();
            let resumed: Vec<bool> = (0..4).map(|_| ends.connect().unwrap().resumed()).collect();
            assert_eq!(resumed, [false, true, true, true], "{}", library.name());
            let ends = Ends::new(library, suite, &cert, false).unwrap();
            let resumed: Vec<bool> = (0..3).map(|_| ends.connect().unwrap().resumed()).collect();
            assert_eq!(resumed, [false, false, false], "{}", library.name());
        }
    }
}
