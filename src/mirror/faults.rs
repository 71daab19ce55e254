//! The mirror's misbehaving hosts: per SNI name, a server that fails on purpose, so that
//! every way a real site can fail is tested against a loopback server the test starts.
//!
//! Connection faults are handled before OpenSSL sees the connection: the server peeks at the
//! ClientHello for its server name ([`client_hello_sni`]) and, for a fault host, stalls,
//! resets, or answers with hand-made TLS 1.2 records ([`server_hello`], [`certificate`]).
//! Certificate faults (expired, not yet valid, wrong host, self-signed, untrusted root,
//! intermediates out of order) and [`NO_HTTP_HOST`] have real chains in the
//! [`MirrorSet`](super::MirrorSet); [`REFUSED_HOST`] is resolved to a port nobody listens on.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Resolved to a closed port: the connection is refused.
pub const REFUSED_HOST: &str = "refused.mirror.test";
/// Handshakes, then closes without an HTTP response (its certificates are made in
/// [`crate::certs::synthetic`]).
pub use crate::certs::synthetic::NO_HTTP_HOST;

/// A fault acted out on the raw connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnFault {
    /// Reads the ClientHello and never answers (until the client gives up, at most
    /// [`STALL_LIMIT`]).
    Stall,
    /// Reads the ClientHello and resets the connection (RST) in the middle of the handshake.
    Reset,
    /// Sends a ServerHello and a Certificate message cut short, then closes.
    TruncatedCertificate,
    /// Sends a ServerHello and a Certificate message with no certificate.
    EmptyChain,
    /// Sends a ServerHello and a Certificate message with 1,000 certificates.
    ThousandCertificates,
}

/// Host → connection fault.
pub const CONN_FAULTS: &[(&str, ConnFault)] = &[
    ("stall.mirror.test", ConnFault::Stall),
    ("reset.mirror.test", ConnFault::Reset),
    ("truncated.mirror.test", ConnFault::TruncatedCertificate),
    ("empty-chain.mirror.test", ConnFault::EmptyChain),
    ("many-certs.mirror.test", ConnFault::ThousandCertificates),
];

/// The longest a stalled connection is held.
pub const STALL_LIMIT: Duration = Duration::from_secs(120);

/// The connection fault of `host`, if it has one.
pub fn conn_fault(host: &str) -> Option<ConnFault> {
    CONN_FAULTS
        .iter()
        .find(|(h, _)| h.eq_ignore_ascii_case(host))
        .map(|(_, f)| *f)
}

/// What the start of a connection says about its server name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hello {
    /// The first record is not complete yet.
    NeedMore,
    /// The ClientHello's server name, or `None` (no SNI, or not a ClientHello).
    Name(Option<String>),
}

/// The server name of a ClientHello record at the start of `buf`.
pub fn client_hello_sni(buf: &[u8]) -> Hello {
    if buf.len() < 5 {
        return Hello::NeedMore;
    }
    if buf[0] != 0x16 {
        return Hello::Name(None);
    }
    let len = u16::from_be_bytes([buf[3], buf[4]]) as usize;
    if buf.len() < 5 + len {
        return Hello::NeedMore;
    }
    Hello::Name(parse_sni(&buf[5..5 + len]))
}

/// SNI from a handshake message (a ClientHello that fits one record).
fn parse_sni(hs: &[u8]) -> Option<String> {
    let mut r = Reader(hs);
    if r.u8()? != 1 {
        return None; // not a ClientHello
    }
    let n = r.u24()?;
    let body = r.take(n)?;
    let mut r = Reader(body);
    r.take(2 + 32)?; // version, random
    let n = r.u8()? as usize;
    r.take(n)?; // session id
    let n = r.u16()? as usize;
    r.take(n)?; // cipher suites
    let n = r.u8()? as usize;
    r.take(n)?; // compression methods
    let n = r.u16()? as usize;
    let mut exts = Reader(r.take(n)?);
    while let (Some(ty), Some(len)) = (exts.u16(), exts.u16()) {
        let data = exts.take(len as usize)?;
        if ty != 0 {
            continue;
        }
        let mut d = Reader(data);
        let n = d.u16()? as usize;
        let mut list = Reader(d.take(n)?);
        while let Some(kind) = list.u8() {
            let n = list.u16()? as usize;
            let name = list.take(n)?;
            if kind == 0 {
                return std::str::from_utf8(name).ok().map(str::to_owned);
            }
        }
    }
    None
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }
    fn u24(&mut self) -> Option<usize> {
        self.take(3)
            .map(|b| (b[0] as usize) << 16 | (b[1] as usize) << 8 | b[2] as usize)
    }
}

/// Peeks at the connection until a whole ClientHello record is there (at most 2 s); its
/// server name, or `None` (no SNI, not TLS, too slow, closed).
pub async fn peek_sni(tcp: &TcpStream) -> Option<String> {
    let mut buf = vec![0u8; 5 + (1 << 14)];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    loop {
        let n = tokio::time::timeout_at(deadline, tcp.peek(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        match client_hello_sni(&buf[..n]) {
            Hello::Name(sni) => return sni,
            Hello::NeedMore if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(2)).await
            }
            Hello::NeedMore => return None,
        }
    }
}

fn u24(n: usize) -> [u8; 3] {
    [(n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// Handshake message bytes split into TLS 1.2 handshake records of at most 16 KiB.
fn records(handshake: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(handshake.len() + handshake.len() / 16384 * 5 + 5);
    for chunk in handshake.chunks(1 << 14) {
        out.extend([0x16, 0x03, 0x03]);
        out.extend((chunk.len() as u16).to_be_bytes());
        out.extend(chunk);
    }
    out
}

/// A TLS 1.2 ServerHello choosing ECDHE-RSA-AES128-GCM-SHA256 (which OpenSSL's and rustls'
/// clients offer), with the renegotiation_info extension OpenSSL 3 requires.
pub fn server_hello() -> Vec<u8> {
    let mut body = vec![0x03, 0x03];
    body.extend([0x42; 32]); // random (not a downgrade sentinel)
    body.push(0); // no session id
    body.extend([0xc0, 0x2f]); // TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
    body.push(0); // no compression
    let ext = [0xff, 0x01, 0x00, 0x01, 0x00]; // renegotiation_info, empty
    body.extend((ext.len() as u16).to_be_bytes());
    body.extend(ext);
    let mut hs = vec![0x02];
    hs.extend(u24(body.len()));
    hs.extend(body);
    hs
}

/// A Certificate handshake message carrying `certs`.
pub fn certificate(certs: &[&[u8]]) -> Vec<u8> {
    let list_len: usize = certs.iter().map(|c| 3 + c.len()).sum();
    let mut hs = vec![0x0b];
    hs.extend(u24(3 + list_len));
    hs.extend(u24(list_len));
    for c in certs {
        hs.extend(u24(c.len()));
        hs.extend(*c);
    }
    hs
}

/// Reads what the client sent first (its ClientHello), so that the fault happens after it.
async fn read_hello(tcp: &mut TcpStream) {
    let mut buf = vec![0u8; 1 << 15];
    let _ = tokio::time::timeout(Duration::from_secs(2), tcp.read(&mut buf)).await;
}

/// Acts out `fault` on `tcp`. `chain` is a real chain (leaf first) for the faults that send
/// certificates.
pub async fn act(fault: ConnFault, mut tcp: TcpStream, chain: &[Vec<u8>]) {
    read_hello(&mut tcp).await;
    match fault {
        ConnFault::Stall => {
            // Hold the connection, reading nothing more, until the client closes it.
            let mut buf = [0u8; 1024];
            let _ = tokio::time::timeout(STALL_LIMIT, async {
                while let Ok(n) = tcp.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                }
            })
            .await;
        }
        ConnFault::Reset => {
            // SO_LINGER 0: closing sends RST instead of FIN. (Deprecated because a non-zero
            // linger blocks the thread on drop; zero does not wait.)
            #[allow(deprecated)]
            let _ = tcp.set_linger(Some(Duration::ZERO));
            drop(tcp);
        }
        ConnFault::TruncatedCertificate => {
            let certs: Vec<&[u8]> = chain.iter().map(Vec::as_slice).collect();
            let cert = certificate(&certs);
            let mut bytes = records(&server_hello());
            // One record that claims the whole Certificate message; a third of it arrives,
            // then the end of the stream.
            bytes.extend([0x16, 0x03, 0x03]);
            bytes.extend((cert.len().min(1 << 14) as u16).to_be_bytes());
            bytes.extend(&cert[..cert.len().min(1 << 14) / 3]);
            let _ = tcp.write_all(&bytes).await;
            let _ = tcp.shutdown().await;
            drain(&mut tcp).await;
        }
        ConnFault::EmptyChain => {
            let mut bytes = records(&server_hello());
            bytes.extend(records(&certificate(&[])));
            // ServerHelloDone: a client that reads on past the empty Certificate (rustls
            // checks the chain at the end of the flight) gets to its check instead of waiting.
            bytes.extend(records(&[0x0e, 0, 0, 0]));
            let _ = tcp.write_all(&bytes).await;
            drain(&mut tcp).await;
        }
        ConnFault::ThousandCertificates => {
            let leaf = chain.first().map_or(&[][..], Vec::as_slice);
            let certs: Vec<&[u8]> = std::iter::repeat_n(leaf, 1000).collect();
            let mut bytes = records(&server_hello());
            bytes.extend(records(&certificate(&certs)));
            let _ = tokio::time::timeout(Duration::from_secs(10), tcp.write_all(&bytes)).await;
            drain(&mut tcp).await;
        }
    }
}

/// Reads until the client closes (its alert, then EOF), at most 10 s, so that the client
/// sees its own error rather than a reset from a server that closed with unread data.
async fn drain(tcp: &mut TcpStream) {
    let mut buf = [0u8; 4096];
    let _ = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(n) = tcp.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ClientHello as OpenSSL writes it, for `host`.
    fn hello(host: &str) -> Vec<u8> {
        use std::io::{Read, Write};
        let (a, mut b) = std::os::unix::net::UnixStream::pair().unwrap();
        let connector = openssl::ssl::SslConnector::builder(openssl::ssl::SslMethod::tls())
            .unwrap()
            .build();
        let host = host.to_owned();
        let t = std::thread::spawn(move || {
            let _ = connector.connect(&host, a); // fails when `b` closes
        });
        let mut buf = vec![0u8; 1 << 15];
        let n = b.read(&mut buf).unwrap();
        b.write_all(&[0x15, 0x03, 0x03, 0, 2, 2, 40]).unwrap(); // fatal alert
        drop(b);
        t.join().unwrap();
        buf.truncate(n);
        buf
    }

    #[test]
    fn the_server_name_is_read_from_a_real_client_hello() {
        let h = hello("stall.mirror.test");
        assert_eq!(
            client_hello_sni(&h),
            Hello::Name(Some("stall.mirror.test".into()))
        );
        assert_eq!(client_hello_sni(&h[..h.len() - 1]), Hello::NeedMore);
        assert_eq!(client_hello_sni(&h[..3]), Hello::NeedMore);
        assert_eq!(client_hello_sni(b"GET / HTTP/1.1\r\n"), Hello::Name(None));
        assert_eq!(conn_fault("STALL.mirror.test"), Some(ConnFault::Stall));
        assert_eq!(conn_fault("reddit.com"), None);
    }

    #[test]
    fn hand_made_messages_have_consistent_lengths() {
        let sh = server_hello();
        assert_eq!(sh[0], 2);
        assert_eq!(
            u32::from_be_bytes([0, sh[1], sh[2], sh[3]]) as usize,
            sh.len() - 4
        );
        let c = certificate(&[b"abc", b"de"]);
        assert_eq!(
            c,
            [
                0x0b, 0, 0, 14, 0, 0, 11, 0, 0, 3, b'a', b'b', b'c', 0, 0, 2, b'd', b'e'
            ]
        );
        let r = records(&vec![7u8; 40_000]);
        assert_eq!(r.len(), 40_000 + 3 * 5);
    }
}
