//! Certificate decompression (RFC 8879) timed: the `cert-decompression` stage of a sample
//! whose server sent a CompressedCertificate (`--compress-certs`).
//!
//! rustls takes its decompressors as `&'static dyn CertDecompressor`, with no word of the
//! connection they decompress for. So a connection's decompressor is a [`TimedDecompressor`]
//! leased from a process-wide pool ([`lease`]): while leased it writes what it did (time,
//! compressed and uncompressed bytes) into the lessee's [`Decompressions`], and when the
//! [`Lease`] is dropped it goes back to the pool for the next connection.
//!
//! Invariants:
//! - a decompressor is leased to one holder at a time, so its record is that holder's
//!   connection's; the holder keeps the [`Lease`] as long as any rustls `ClientConfig` that
//!   holds its decompressor can handshake (beside the config, as the rustls transport does);
//! - the pool only ever grows to the most leases held at once: every `TimedDecompressor` is
//!   leaked once and reused, never one per connection;
//! - the wrapped decompressor's result is returned as it is; a panic inside it is a failed
//!   decompression (rustls then aborts the handshake), never an unwind into rustls.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rustls::CertificateCompressionAlgorithm;
use rustls::compress::{CertDecompressor, DecompressionFailed};

use crate::fail_closed;

/// One decompression of a server's certificates, as the client did it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decompressed {
    /// The algorithm the server compressed with.
    pub algorithm: CertificateCompressionAlgorithm,
    /// Nanoseconds the decompression took (monotonic clock).
    pub ns: u64,
    /// The compressed bytes received (the CompressedCertificate's `compressed_certificate_message`).
    pub compressed_bytes: u64,
    /// The Certificate message they inflate to (its declared `uncompressed_length`).
    pub uncompressed_bytes: u64,
    /// Whether it succeeded.
    pub ok: bool,
}

impl Decompressed {
    /// Bytes of the CompressedCertificate handshake message on the wire (RFC 8879 §4):
    /// handshake type and length (4), algorithm (2), uncompressed length (3), the compressed
    /// bytes' length (3) and the bytes.
    pub fn message_bytes(&self) -> u64 {
        4 + 2 + 3 + 3 + self.compressed_bytes
    }
}

/// Where a leased decompressor records, for one holder (one connection at a time).
#[derive(Debug, Default)]
pub struct Decompressions(Mutex<Option<Decompressed>>);

impl Decompressions {
    /// The last decompression recorded since the last take, left in place.
    pub fn last(&self) -> Option<Decompressed> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the last decompression recorded, if there was one since the last take.
    pub fn take(&self) -> Option<Decompressed> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    fn put(&self, d: Decompressed) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(d);
    }
}

/// A decompressor that times another into the [`Decompressions`] of whoever leased it.
///
/// Which decompressor it wraps is set at each lease (any free one serves any algorithm: a
/// decompressor's address cannot tell two apart, rustls' are zero-sized).
#[derive(Debug)]
pub struct TimedDecompressor(Mutex<Slot>);

#[derive(Debug)]
struct Slot {
    inner: &'static dyn CertDecompressor,
    into: Option<Arc<Decompressions>>,
}

impl TimedDecompressor {
    fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl CertDecompressor for TimedDecompressor {
    fn decompress(&self, input: &[u8], output: &mut [u8]) -> Result<(), DecompressionFailed> {
        let (inner, into) = {
            let slot = self.slot();
            (slot.inner, slot.into.clone())
        };
        let start = Instant::now();
        let result = fail_closed::run(|| inner.decompress(input, output))
            .unwrap_or(Err(DecompressionFailed));
        let ns = start.elapsed().as_nanos() as u64;
        if let Some(into) = into {
            into.put(Decompressed {
                algorithm: inner.algorithm(),
                ns,
                compressed_bytes: input.len() as u64,
                uncompressed_bytes: output.len() as u64,
                ok: result.is_ok(),
            });
        }
        result
    }

    fn algorithm(&self) -> CertificateCompressionAlgorithm {
        self.slot().inner.algorithm()
    }
}

/// The decompressors not leased now.
static POOL: Mutex<Vec<&'static TimedDecompressor>> = Mutex::new(Vec::new());

/// A [`TimedDecompressor`] leased: put it in a `ClientConfig`'s `cert_decompressors`; it goes
/// back to the pool when the lease is dropped.
#[derive(Debug)]
pub struct Lease(&'static TimedDecompressor);

impl Lease {
    /// The decompressor, for `ClientConfig::cert_decompressors`.
    pub fn decompressor(&self) -> &'static dyn CertDecompressor {
        self.0
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.0.slot().into = None;
        POOL.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(self.0);
    }
}

/// `inner`, timed into `into` for as long as the lease is held.
pub fn lease(inner: &'static dyn CertDecompressor, into: Arc<Decompressions>) -> Lease {
    let free = POOL.lock().unwrap_or_else(PoisonError::into_inner).pop();
    let d = match free {
        Some(d) => {
            *d.slot() = Slot {
                inner,
                into: Some(into),
            };
            d
        }
        None => Box::leak(Box::new(TimedDecompressor(Mutex::new(Slot {
            inner,
            into: Some(into),
        })))),
    };
    Lease(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inflates by repeating each input byte `output.len() / input.len()` times; fails on an
    /// empty input; panics on `[0xff]`.
    #[derive(Debug)]
    struct Repeat(CertificateCompressionAlgorithm);

    impl CertDecompressor for Repeat {
        fn decompress(&self, input: &[u8], output: &mut [u8]) -> Result<(), DecompressionFailed> {
            if input == [0xff] {
                panic!("bad input");
            }
            if input.is_empty() || !output.len().is_multiple_of(input.len()) {
                return Err(DecompressionFailed);
            }
            let n = output.len() / input.len();
            for (o, i) in output.chunks_mut(n).zip(input) {
                o.fill(*i);
            }
            Ok(())
        }

        fn algorithm(&self) -> CertificateCompressionAlgorithm {
            self.0
        }
    }

    static REPEAT: Repeat = Repeat(CertificateCompressionAlgorithm::Zstd);
    static PANICKY: Repeat = Repeat(CertificateCompressionAlgorithm::Zlib);

    #[test]
    fn a_lease_records_for_its_holder_and_is_reused_after() {
        let first = Arc::new(Decompressions::default());
        let lease1 = lease(&REPEAT, first.clone());
        let d = lease1.decompressor();
        let mut out = [0u8; 6];
        assert!(d.decompress(&[1, 2], &mut out).is_ok());
        assert_eq!(out, [1, 1, 1, 2, 2, 2]);
        let got = first.take().expect("recorded");
        assert_eq!((got.compressed_bytes, got.uncompressed_bytes), (2, 6));
        assert!(got.ok && got.message_bytes() == 14);
        assert_eq!(first.take(), None, "taken once");

        // A second holder at the same time gets another decompressor.
        let second = Arc::new(Decompressions::default());
        let lease2 = lease(&REPEAT, second.clone());
        let other = lease2.decompressor();
        assert!(!std::ptr::addr_eq(d, other));
        assert!(other.decompress(&[], &mut out).is_err());
        assert_eq!(second.take().map(|d| d.ok), Some(false));
        assert_eq!(first.take(), None, "nothing of the other holder's");

        // Dropped, the first goes back to the pool: it records for nobody until leased again.
        drop(lease1);
        assert!(d.decompress(&[3], &mut out).is_ok());
        assert_eq!(first.take(), None);
        assert!(
            POOL.lock()
                .unwrap()
                .iter()
                .any(|p| std::ptr::addr_eq(*p, d)),
            "back in the pool"
        );
        drop(lease2);
    }

    #[test]
    fn a_panic_is_a_failed_decompression() {
        let into = Arc::new(Decompressions::default());
        let held = lease(&PANICKY, into.clone());
        // Whichever pooled decompressor it is, it wraps (and says) what it was leased for.
        assert_eq!(
            held.decompressor().algorithm(),
            CertificateCompressionAlgorithm::Zlib
        );
        let mut out = [0u8; 2];
        assert!(held.decompressor().decompress(&[0xff], &mut out).is_err());
        assert_eq!(into.take().map(|d| d.ok), Some(false));
    }
}
