//! QUIC (`--transport quic`): quinn 0.11 over quinn-proto, rustls 0.23 (aws-lc-rs) inside,
//! over UDP, with the method inside a [`TimedVerifier`] exactly as over rustls
//! ([`super::rustls::timed`]): the same rustls client configuration (Servo's, or the
//! hybrid-first one of a `--pq` run), handed to QUIC instead of to a TLS record layer.
//!
//! One sample: a client endpoint on a fresh UDP port (the connection's own, as a TCP
//! connection has its own port), the QUIC handshake (the client's Initials to the server's
//! Finished verified: `verify` inside it), then one bidirectional stream carrying the
//! request as HTTP/1.1 to the response head, then the connection closed. The `connection`
//! stage spans them all, as over TCP; [`QuicCounts::handshake_ns`] is the handshake alone.
//!
//! Not HTTP/3: the request is HTTP/1.1 on one QUIC stream (no QPACK, no control streams),
//! the ALPN is `h3` so that the handshake carries HTTP/3's bytes (the mirror answers it;
//! a real HTTP/3 server would not understand the request). The handshake — the part the
//! certificates weigh on — is QUIC's own, amplification limit, padding and coalescing
//! included.
//!
//! The client pads its Initial datagrams to the browser's size ([`QuicClient::datagram`],
//! Chrome's 1,250 B, or Firefox's with `--link …,h3=firefox`): quinn pads a client's Initials
//! to its minimum MTU, set to that. The samples carry what quinn counted at the handshake's end
//! ([`QuicCounts`]) and, through the emulated link, the link's own counts for the
//! connection ([`crate::link::udp`]).

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use certbench_core::Checks;
use certbench_schema::wire::QuicClient;
use certbench_schema::{QuicCounts, Transport};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::flight::{certificate_message_bytes, chain_bytes};
use super::rustls::{LastVerification, client_config_with, method_store, timed};
use super::{ConnInfo, Failure, TlsStack, Verification, resolve};
use crate::sites::Site;
use certbench_core::methods::{AnyRoots, DynVerifier, Method};
use certbench_core::roots::RootSet;

/// The ALPN both ends name: HTTP/3's, for the handshake's bytes (see the module
/// documentation: the request itself is HTTP/1.1 on one stream).
pub const ALPN: &[u8] = b"h3";

/// quinn's transport settings for a peer sending `client`'s datagrams: the client pads its
/// Initials to `client.datagram` (quinn pads to its minimum MTU) and starts there; the
/// server starts at the same size, so that its first flight is counted in datagrams of the
/// client's size.
pub fn transport_config(client: QuicClient) -> quinn::TransportConfig {
    let mut t = quinn::TransportConfig::default();
    let size = u16::try_from(client.datagram).unwrap_or(u16::MAX);
    t.initial_mtu(size).min_mtu(size);
    t
}

/// The QUIC stack as a [`TlsStack`]: every method inside a [`TimedVerifier`], as over rustls.
/// No session is resumed over it (the driver refuses `--tls-resumption` with it).
///
/// [`TimedVerifier`]: certbench_core::timed::TimedVerifier
pub struct QuicTransport {
    /// Offer X25519MLKEM768 first ([`crate::tls::hybrid_first`]): `--pq` runs.
    pub hybrid_first: bool,
    /// Whose Initials the client sends (Chrome's by default).
    pub client: QuicClient,
}

/// One sample's connector: the client configuration, where to connect, where the verifier
/// records.
pub struct QuicConnector {
    config: quinn::ClientConfig,
    addr: Option<SocketAddr>,
    last: Arc<LastVerification>,
    verifier: Arc<dyn DynVerifier>,
    client: QuicClient,
}

/// One QUIC stream, request and response, holding its connection and endpoint open.
pub struct QuicIo {
    recv: quinn::RecvStream,
    send: quinn::SendStream,
    _conn: quinn::Connection,
    _endpoint: quinn::Endpoint,
}

impl AsyncRead for QuicIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().recv).poll_read(cx, buf)
    }
}

impl AsyncWrite for QuicIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        AsyncWrite::poll_write(Pin::new(&mut self.get_mut().send), cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        AsyncWrite::poll_flush(Pin::new(&mut self.get_mut().send), cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        AsyncWrite::poll_shutdown(Pin::new(&mut self.get_mut().send), cx)
    }
}

impl QuicTransport {
    /// The quinn client configuration of one (site, method): `verifier` timed into a fresh
    /// sink, over the run's provider, ALPN `h3`, the browser's Initials.
    fn client_config(
        &self,
        verifier: &Arc<dyn DynVerifier>,
        store: Arc<AnyRoots>,
        checks: &Checks,
    ) -> Result<(quinn::ClientConfig, Arc<LastVerification>), Failure> {
        let last = Arc::new(LastVerification::default());
        let timed = timed(verifier, store, checks, last.clone());
        let provider = match self.hybrid_first {
            true => Arc::new(crate::tls::hybrid_first(
                rustls::crypto::aws_lc_rs::default_provider(),
            )),
            false => certbench_core::methods::webpki_server::provider(),
        };
        let input = |e: &dyn std::fmt::Display| Failure::Input(format!("building QUIC: {e}"));
        let mut tls = client_config_with(timed, None, provider).map_err(|e| input(&e))?;
        tls.alpn_protocols = vec![ALPN.to_vec()];
        let crypto =
            quinn::crypto::rustls::QuicClientConfig::try_from(tls).map_err(|e| input(&e))?;
        let mut config = quinn::ClientConfig::new(Arc::new(crypto));
        config.transport_config(Arc::new(transport_config(self.client)));
        Ok((config, last))
    }
}

impl TlsStack for QuicTransport {
    type Stores = Arc<AnyRoots>;
    type Reuse = ();
    type Connector = QuicConnector;
    type Io = TokioIo<QuicIo>;

    fn kind(&self) -> Transport {
        Transport::Quic
    }

    fn hook(&self, _: Method) -> Option<certbench_schema::Hook> {
        Some(certbench_schema::Hook::TimedVerifier)
    }

    fn library(&self) -> (&'static str, String) {
        let v = certbench_core::versions::locked;
        (
            "quinn",
            format!(
                "{} (quinn-proto {}, rustls {})",
                v("quinn"),
                v("quinn-proto"),
                v("rustls")
            ),
        )
    }

    fn stores(
        &self,
        method: Method,
        verifier: &dyn DynVerifier,
        roots: &RootSet,
    ) -> Result<Arc<AnyRoots>, Failure> {
        method_store(method, verifier, roots)
    }

    fn connector(
        &self,
        method: Method,
        verifier: &Arc<dyn DynVerifier>,
        stores: Option<Arc<AnyRoots>>,
        _site: &Site,
        addr: Option<SocketAddr>,
        _time: u64,
        checks: &Checks,
        _reuse: &mut (),
    ) -> Result<QuicConnector, Failure> {
        let store = stores.ok_or_else(|| Failure::Input(format!("no {method} trust store")))?;
        let (config, last) = self.client_config(verifier, store, checks)?;
        Ok(QuicConnector {
            config,
            addr,
            last,
            verifier: verifier.clone(),
            client: self.client,
        })
    }

    async fn handshake(
        &self,
        c: &QuicConnector,
        site: &Site,
    ) -> Result<(Self::Io, ConnInfo), Failure> {
        let addr = resolve(&site.host, site.port, c.addr).await?;
        let connect = |e: &dyn std::fmt::Display| Failure::Connect {
            addr,
            cause: e.to_string(),
        };
        // The connection's own port, on the family (and, on loopback, the address) it goes to.
        let bind = match addr {
            SocketAddr::V4(a) if a.ip().is_loopback() => SocketAddr::from((*a.ip(), 0)),
            SocketAddr::V4(_) => SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0)),
            SocketAddr::V6(_) => SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0)),
        };
        let endpoint = quinn::Endpoint::client(bind).map_err(|e| connect(&e))?;
        let local = endpoint.local_addr().map_err(|e| connect(&e))?;
        c.verifier.handshake_started();
        let started = Instant::now();
        let connecting = endpoint
            .connect_with(c.config.clone(), addr, &site.host)
            .map_err(|e| connect(&e))?;
        let conn = connecting
            .await
            .map_err(|e| Failure::TlsHandshake(e.to_string()))?;
        let handshake_ns = started.elapsed().as_nanos() as u64;
        let counts = counts(&conn, c.client, handshake_ns);
        let mut info = conn_info(&conn, counts);
        info.link_counts = crate::link::udp::counts_of(local);
        let (send, recv) = conn
            .open_bi()
            .await
            .map_err(|e| Failure::Http(e.to_string()))?;
        let io = QuicIo {
            recv,
            send,
            _conn: conn,
            _endpoint: endpoint,
        };
        Ok((TokioIo::new(io), info))
    }

    fn verification(&self, c: &QuicConnector) -> Verification {
        match c.last.take() {
            Some((stages, verdict)) => Verification {
                stages,
                rejection: verdict.err().map(|r| r.reason),
            },
            None => Verification::default(),
        }
    }
}

/// What quinn counted when the handshake completed.
fn counts(conn: &quinn::Connection, client: QuicClient, handshake_ns: u64) -> QuicCounts {
    let stats = conn.stats();
    QuicCounts {
        datagrams_sent: stats.udp_tx.datagrams,
        bytes_sent: stats.udp_tx.bytes,
        datagrams_received: stats.udp_rx.datagrams,
        bytes_received: stats.udp_rx.bytes,
        lost_packets: stats.path.lost_packets,
        initial_datagram: client.datagram,
        handshake_ns,
    }
}

/// The connection's facts: TLS 1.3 (QUIC has no other), the certificates the server sent.
fn conn_info(conn: &quinn::Connection, quic: QuicCounts) -> ConnInfo {
    let chain: Vec<rustls_pki_types::CertificateDer<'static>> = conn
        .peer_identity()
        .and_then(|id| {
            id.downcast::<Vec<rustls_pki_types::CertificateDer<'static>>>()
                .ok()
        })
        .map(|chain| *chain)
        .unwrap_or_default();
    ConnInfo {
        tls_version: Some("TLSv1.3".to_owned()),
        chain_len: Some(chain.len() as u32),
        key_types: chain
            .iter()
            .map(|c| certbench_core::der::key_type(c))
            .collect(),
        chain_bytes: (!chain.is_empty()).then(|| chain_bytes(&chain)),
        cert_message_bytes: (!chain.is_empty()).then(|| certificate_message_bytes(&chain)),
        quic: Some(quic),
        ..ConnInfo::default()
    }
}
