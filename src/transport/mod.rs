//! The TLS stacks the driver connects through: one file per stack, each implementing
//! [`TlsStack`]. What is common to every stack — resolving a name, the TCP connection, the
//! HTTP/1.1 request and the closing of the connection — is written once, here.
//!
//! Adding a stack: one file implementing [`TlsStack`], one variant in [`certbench_schema::Transport`],
//! one arm in [`setup::with_transport`].

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use certbench_core::Checks;
use certbench_schema::ErrorKind;
use http_body_util::Empty;

use crate::sites::Site;
use certbench_core::methods::{DynVerifier, Method};
use certbench_core::roots::RootSet;
use certbench_core::stages::Recorder;

pub mod flight;
pub mod openssl;
pub mod quic;
pub mod rustls;
pub mod setup;

use certbench_schema::Transport;

/// Why a sample failed, made where it failed; its [`ErrorKind`] is data, never read back out
/// of the message. The messages keep the `dns:`, `connect:`, … prefixes users see in tables.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Failure {
    /// The name did not resolve.
    #[error("dns: {host}: {cause}")]
    Dns {
        /// The host.
        host: String,
        /// What the resolver said.
        cause: String,
    },
    /// The TCP connection failed.
    #[error("connect: {addr}: {cause}")]
    Connect {
        /// Where to.
        addr: SocketAddr,
        /// What the OS said.
        cause: String,
    },
    /// Nothing within the timeout.
    #[error("timeout: no response within {0:?}")]
    Timeout(Duration),
    /// The TLS handshake failed, not by the verifier's verdict.
    #[error("tls handshake: {0}")]
    TlsHandshake(String),
    /// The verifier rejected the chain, in its own words.
    #[error("{0}")]
    Rejected(String),
    /// TLS was up; HTTP failed.
    #[error("http: {0}")]
    Http(String),
    /// The input could not be used (roots, the connector, a URL).
    #[error("input: {0}")]
    Input(String),
}

impl Failure {
    /// The kind of failure, for the samples and the tables.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Failure::Dns { .. } => ErrorKind::Dns,
            Failure::Connect { .. } => ErrorKind::Connect,
            Failure::Timeout(_) => ErrorKind::Timeout,
            Failure::TlsHandshake(_) => ErrorKind::TlsHandshake,
            Failure::Rejected(_) => ErrorKind::CertificateRejected,
            Failure::Http(_) => ErrorKind::Http,
            Failure::Input(_) => ErrorKind::Input,
        }
    }
}

/// Facts about a finished connection.
#[derive(Clone, Debug, Default)]
pub struct ConnInfo {
    /// Negotiated version, named as OpenSSL names it (`TLSv1.3`), whatever the stack.
    pub tls_version: Option<String>,
    /// Negotiated cipher suite.
    pub cipher: Option<String>,
    /// Certificates the server sent.
    pub chain_len: Option<u32>,
    /// Their key types, leaf first.
    pub key_types: Vec<String>,
    /// The TLS library says the session was resumed.
    pub resumed: bool,
    /// The certificates' DER bytes ([`flight::chain_bytes`]).
    pub chain_bytes: Option<u64>,
    /// Their TLS 1.3 Certificate message ([`flight::certificate_message_bytes`]).
    pub cert_message_bytes: Option<u64>,
    /// The server's first flight, as the client's TCP stream counted it ([`flight::Counted`]).
    pub first_flight_bytes: Option<u64>,
    /// Its TLS handshake messages without records ([`flight::Flights::first_flight_handshake`]).
    pub first_flight_handshake_bytes: Option<u64>,
    /// The CompressedCertificate message the server sent instead of its Certificate message
    /// (`--compress-certs`), from what the client decompressed; `None`: sent uncompressed.
    pub compressed_cert_message_bytes: Option<u64>,
    /// Over QUIC: the handshake's datagrams and bytes each way ([`quic`]).
    pub quic: Option<certbench_schema::QuicCounts>,
    /// Through the emulated link: what it counted of the connection.
    pub link_counts: Option<certbench_schema::LinkCounts>,
}

/// What the verifier did inside one handshake: its stages, and its reason if it rejected.
#[derive(Debug, Default)]
pub struct Verification {
    /// Stages measured inside the handshake.
    pub stages: Recorder,
    /// The verifier's reason, when it rejected the chain.
    pub rejection: Option<String>,
}

/// One TLS stack. The driver's sample pipeline calls, in order: [`TlsStack::stores`]
/// (`roots-creation`, or reused), [`TlsStack::connector`] (`http-connector-creation`),
/// [`TlsStack::handshake`] over a TCP stream from [`tcp`] then [`http_get`] (`connection`),
/// then [`TlsStack::verification`] and [`TlsStack::keep`].
pub trait TlsStack: Sync {
    /// The trust stores one method needs over this stack (built per sample, or once with
    /// `--cache-roots`).
    type Stores: Clone + Send + Sync;
    /// What one (site, method) keeps from one sample to the next (a session to resume, a
    /// reused client configuration).
    type Reuse: Default + Send;
    /// What one sample connects with.
    type Connector: Send + Sync;
    /// The TLS stream HTTP runs over.
    type Io: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static;

    /// Which stack this is.
    fn kind(&self) -> Transport;

    /// How `method` is put into the stack (`native`, `callback`, `replace`,
    /// `timed-verifier`), as its samples' configuration names it.
    fn hook(&self, method: Method) -> Option<certbench_schema::Hook>;

    /// The TLS library and its version as run, e.g. `("OpenSSL", "3.0.19")`.
    fn library(&self) -> (&'static str, String);

    /// Whether OpenSSL's `X509_verify_cert` runs in a sample of `method` (its policy is then
    /// part of the sample's configuration).
    fn openssl_verifies(&self, method: Method) -> bool {
        method == Method::OpenSsl
    }

    /// Builds the stores `method` needs from `roots`.
    fn stores(
        &self,
        method: Method,
        verifier: &dyn DynVerifier,
        roots: &RootSet,
    ) -> Result<Self::Stores, Failure>;

    /// Whether `reuse` already holds everything [`TlsStack::stores`] would build (a reused
    /// client configuration): the sample then builds no store.
    fn reuses_stores(&self, _reuse: &Self::Reuse) -> bool {
        false
    }

    /// Builds the connector of one sample for `site` (reached at `addr` instead of its
    /// resolved address, if given), verifying at `time`, checking what `checks` names (the
    /// method's, resolved once: the leaf's SCTs, revocation with the response the server
    /// staples). `stores` is `None` only when
    /// [`TlsStack::reuses_stores`] said so.
    #[allow(clippy::too_many_arguments)]
    fn connector(
        &self,
        method: Method,
        verifier: &Arc<dyn DynVerifier>,
        stores: Option<Self::Stores>,
        site: &Site,
        addr: Option<SocketAddr>,
        time: u64,
        checks: &Checks,
        reuse: &mut Self::Reuse,
    ) -> Result<Self::Connector, Failure>;

    /// Resolves and connects ([`tcp`]), then the TLS handshake.
    fn handshake(
        &self,
        connector: &Self::Connector,
        site: &Site,
    ) -> impl Future<Output = Result<(Self::Io, ConnInfo), Failure>> + Send;

    /// What the verifier did in the handshake (call once, after it).
    fn verification(&self, connector: &Self::Connector) -> Verification;

    /// Keeps what the next sample of this (site, method) reuses.
    fn keep(&self, _connector: &Self::Connector, _reuse: &mut Self::Reuse) {}
}

/// Resolves `host` (unless `addr` is given: the mirror, `--resolve`): the one place
/// certbench's connections find their address.
pub async fn resolve(
    host: &str,
    port: u16,
    addr: Option<SocketAddr>,
) -> Result<SocketAddr, Failure> {
    if let Some(a) = addr {
        return Ok(a);
    }
    let dns = |cause: String| Failure::Dns {
        host: host.to_owned(),
        cause,
    };
    tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| dns(e.to_string()))?
        .next()
        .ok_or_else(|| dns("no address".to_owned()))
}

/// Resolves `host` ([`resolve`]) and connects over TCP with TCP_NODELAY. The one place
/// certbench's TCP connections are made.
pub async fn tcp(
    host: &str,
    port: u16,
    addr: Option<SocketAddr>,
) -> Result<tokio::net::TcpStream, Failure> {
    let addr = resolve(host, port, addr).await?;
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| Failure::Connect {
            addr,
            cause: e.to_string(),
        })?;
    tcp.set_nodelay(true).map_err(|e| Failure::Connect {
        addr,
        cause: e.to_string(),
    })?;
    Ok(tcp)
}

/// A connection whose response head has arrived, to be closed after the timed span.
pub struct Open<I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static> {
    sender: hyper::client::conn::http1::SendRequest<Empty<Bytes>>,
    conn: tokio::task::JoinHandle<Result<hyper::client::conn::http1::Parts<I>, hyper::Error>>,
    body: hyper::body::Incoming,
}

/// Sends one HTTP/1.1 GET for the site's path over `io`; returns at the response head, with
/// the connection still open (see [`Open::close`]).
pub async fn http_get<I>(io: I, site: &Site) -> Result<Open<I>, Failure>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| Failure::Http(e.to_string()))?;
    let conn = tokio::spawn(conn.without_shutdown());
    let req = hyper::Request::get(site.path.as_str())
        .header(hyper::header::HOST, site.authority())
        .body(Empty::<Bytes>::new())
        .map_err(|e| Failure::Http(e.to_string()))?;
    match sender.send_request(req).await {
        Ok(resp) => Ok(Open {
            sender,
            conn,
            body: resp.into_body(),
        }),
        Err(e) => {
            conn.abort();
            Err(http_error(&e))
        }
    }
}

impl<I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static> Open<I> {
    /// Reads the rest of the response and closes TLS properly (close_notify). Without a
    /// close_notify, OpenSSL marks the connection's session not resumable when it frees it.
    /// Returns how long the rest of the response took to arrive, nanoseconds, when it all did.
    pub async fn close(self) -> Option<u64> {
        use http_body_util::BodyExt;
        let started = std::time::Instant::now();
        let body = self.body.collect().await;
        let rest = body.is_ok().then(|| started.elapsed().as_nanos() as u64);
        drop(self.sender);
        if let Ok(Ok(parts)) = self.conn.await {
            let mut io = parts.io;
            let _ =
                std::future::poll_fn(|cx| hyper::rt::Write::poll_shutdown(Pin::new(&mut io), cx))
                    .await;
        }
        rest
    }
}

/// An HTTP failure after TLS was up, in words: hyper says "operation was canceled" when the
/// server closes the connection before answering.
fn http_error(e: &hyper::Error) -> Failure {
    if e.is_canceled() || e.is_incomplete_message() {
        Failure::Http(format!(
            "the server closed the connection without a response ({e})"
        ))
    } else {
        Failure::Http(e.to_string())
    }
}
