//! What a handshake's certificates cost on the wire, counted where the client sees it: the
//! server's first flight in bytes (a [`Counted`] TCP stream), and the chain's bytes and its
//! TLS 1.3 Certificate message (from the certificates received).
//!
//! The first flight is every byte the server sent between the client's first write (its
//! ClientHello) and its second flight (its Finished, after the server's Finished):
//! ServerHello, EncryptedExtensions, Certificate, CertificateVerify, Finished, with their
//! record headers, AEAD tags and any ChangeCipherSpec. A write of ChangeCipherSpec records
//! alone is not a flight: TLS 1.3's middlebox compatibility mode (RFC 8446 D.4) has the
//! client send one as soon as it has the ServerHello. The segments it takes and whether it fits TCP's initial
//! window are computed from it by the analysis crate (`pq`).
//!
//! The same flight's TLS handshake messages are counted apart ([`Flights::first_flight_handshake`]),
//! by reading the record headers as the bytes pass: a handshake record (type 22, the
//! ServerHello) counts its length; an encrypted record (type 23, TLS 1.3's
//! EncryptedExtensions to Finished) its length less its inner content type (1 B) and AEAD tag
//! (16 B: every TLS 1.3 suite rustls offers; none pads); ChangeCipherSpec nothing. That is
//! what QUIC carries in CRYPTO frames (the analysis crate's `pq::quic`).

use std::pin::Pin;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rustls_pki_types::CertificateDer;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The first flight of one connection, as its stream counts it.
#[derive(Debug, Default)]
pub struct Flights {
    /// 0: nothing written yet; 1: the client's first flight is out, reads are the server's
    /// first flight; 2: the client wrote again, the first flight is complete.
    state: AtomicU8,
    read: AtomicU64,
    /// The first flight's records, read as they pass.
    records: Mutex<Records>,
    /// The connection's local address (the emulated link keys its counts by it).
    local: std::sync::OnceLock<std::net::SocketAddr>,
}

impl Flights {
    /// Notes the connection's local address (once).
    pub fn set_local(&self, addr: std::net::SocketAddr) {
        let _ = self.local.set(addr);
    }

    /// The connection's local address, if noted.
    pub fn local(&self) -> Option<std::net::SocketAddr> {
        self.local.get().copied()
    }

    /// The server's first flight in bytes, once the client has written its second flight.
    pub fn first_flight(&self) -> Option<u64> {
        (self.state.load(Ordering::Acquire) == 2).then(|| self.read.load(Ordering::Acquire))
    }

    /// The TLS handshake messages of that flight, without records, once it is complete.
    pub fn first_flight_handshake(&self) -> Option<u64> {
        let records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        self.first_flight().map(|_| records.handshake)
    }

    fn wrote(&self, bytes: &[u8]) {
        if only_change_cipher_spec(bytes) {
            return;
        }
        match self.state.load(Ordering::Acquire) {
            0 => self.state.store(1, Ordering::Release),
            1 if self.read.load(Ordering::Acquire) > 0 => self.state.store(2, Ordering::Release),
            _ => {}
        }
    }

    fn read(&self, bytes: &[u8]) {
        if self.state.load(Ordering::Acquire) == 1 {
            self.read.fetch_add(bytes.len() as u64, Ordering::AcqRel);
            (self.records.lock().unwrap_or_else(|e| e.into_inner())).feed(bytes);
        }
    }
}

/// TLS records read as their bytes pass, the handshake messages they carry counted.
#[derive(Debug, Default)]
struct Records {
    /// The header being read and how much of it was.
    header: [u8; 5],
    have: usize,
    /// The current record's bytes still to pass.
    remaining: usize,
    /// Handshake message bytes counted.
    handshake: u64,
}

impl Records {
    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.remaining > 0 {
                let take = self.remaining.min(bytes.len());
                self.remaining -= take;
                bytes = &bytes[take..];
                continue;
            }
            let take = (5 - self.have).min(bytes.len());
            self.header[self.have..self.have + take].copy_from_slice(&bytes[..take]);
            self.have += take;
            bytes = &bytes[take..];
            if self.have == 5 {
                self.have = 0;
                self.remaining = usize::from(u16::from_be_bytes([self.header[3], self.header[4]]));
                let len = self.remaining as u64;
                self.handshake += match self.header[0] {
                    22 => len,
                    23 => len.saturating_sub(1 + 16),
                    _ => 0,
                };
            }
        }
    }
}

/// A stream that counts the server's first flight into [`Flights`].
#[derive(Debug)]
pub struct Counted<S> {
    inner: S,
    flights: Arc<Flights>,
}

impl<S> Counted<S> {
    /// `inner`, counting into `flights`.
    pub fn new(inner: S, flights: Arc<Flights>) -> Counted<S> {
        Counted { inner, flights }
    }
}

/// What hyper's connectors ask of a connection (hyper-rustls wraps it).
impl<S: hyper_util::client::legacy::connect::Connection>
    hyper_util::client::legacy::connect::Connection for Counted<S>
{
    fn connected(&self) -> hyper_util::client::legacy::connect::Connected {
        self.inner.connected()
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            self.flights.read(&buf.filled()[before..]);
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = polled
            && n > 0
        {
            self.flights.wrote(&buf[..n]);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Whether `bytes` are TLS records of type change_cipher_spec (20) and nothing else.
fn only_change_cipher_spec(mut bytes: &[u8]) -> bool {
    if bytes.is_empty() {
        return false;
    }
    while let [20, _, _, hi, lo, rest @ ..] = bytes {
        let len = usize::from(u16::from_be_bytes([*hi, *lo]));
        if rest.len() < len {
            return false;
        }
        bytes = &rest[len..];
    }
    bytes.is_empty()
}

/// The certificates' DER bytes, summed.
pub fn chain_bytes(chain: &[CertificateDer<'_>]) -> u64 {
    chain.iter().map(|c| c.len() as u64).sum()
}

/// The bytes of the TLS 1.3 Certificate message that sends `chain` (RFC 8446 §4.4.2):
/// handshake type and length (4), an empty certificate_request_context (1), the list's length
/// (3), and per certificate its length (3), its DER and empty extensions (2).
pub fn certificate_message_bytes(chain: &[CertificateDer<'_>]) -> u64 {
    4 + 1 + 3 + chain.iter().map(|c| 3 + c.len() as u64 + 2).sum::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn the_first_flight_is_what_comes_between_the_first_two_writes() {
        let (client, mut server) = tokio::io::duplex(64 * 1024);
        let flights = Arc::new(Flights::default());
        let mut client = Counted::new(client, flights.clone());
        let mut buf = [0u8; 4096];
        client.write_all(b"client hello").await.unwrap();
        assert_eq!(flights.first_flight(), None);
        server.read_exact(&mut buf[..12]).await.unwrap();
        server.write_all(&[7u8; 3000]).await.unwrap();
        server.write_all(&[8u8; 500]).await.unwrap();
        client.read_exact(&mut buf[..3000]).await.unwrap();
        // The compatibility mode's ChangeCipherSpec is not the client's second flight.
        client.write_all(&[20, 3, 3, 0, 1, 1]).await.unwrap();
        client.read_exact(&mut buf[..500]).await.unwrap();
        assert_eq!(
            flights.first_flight(),
            None,
            "not complete before the client writes"
        );
        client.write_all(b"finished").await.unwrap();
        server.write_all(&[9u8; 100]).await.unwrap();
        client.read_exact(&mut buf[..100]).await.unwrap();
        assert_eq!(flights.first_flight(), Some(3500));
    }

    #[test]
    fn the_handshake_messages_are_the_records_without_their_framing() {
        let mut r = Records::default();
        // A ServerHello record of 90 B, a ChangeCipherSpec, an encrypted record of 1,017 B
        // (1,000 B of messages), fed one awkward cut at a time.
        let mut wire = vec![22, 3, 3, 0, 90];
        wire.extend([0u8; 90]);
        wire.extend([20, 3, 3, 0, 1, 1]);
        wire.extend([23, 3, 3, 0x03, 0xf9]);
        wire.extend([0u8; 1017]);
        for chunk in wire.chunks(3) {
            r.feed(chunk);
        }
        assert_eq!((r.handshake, r.remaining, r.have), (1090, 0, 0));
    }

    #[test]
    fn a_certificate_message_counts_its_headers() {
        let chain = [
            CertificateDer::from(vec![0u8; 1000]),
            CertificateDer::from(vec![0u8; 500]),
        ];
        assert_eq!(chain_bytes(&chain), 1500);
        assert_eq!(certificate_message_bytes(&chain), 8 + 1005 + 505);
    }
}
