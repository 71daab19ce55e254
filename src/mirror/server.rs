//! The mirror's TLS server: one loopback listener, SNI picks the host's certificate chain,
//! and every request gets a small HTTP/1.1 answer (hyper). TCP_NODELAY on every connection.
//!
//! Two stacks serve: OpenSSL (the system's, the default: what the mirror has always been) and
//! rustls on aws-lc-rs ([`MirrorServer::start_with`]), which signs with ML-DSA keys, so it
//! serves the post-quantum twins of `--pq`; it prefers X25519MLKEM768, as the large sites do
//! today. Under rustls an unknown server name fails the handshake (rustls has no certificate
//! to send) rather than with OpenSSL's `unrecognized_name` alert.
//!
//! Each host's OCSP response ([`super::HostCert::ocsp`]) is stapled when the client asks for
//! one (`status_request`), over both stacks: OpenSSL from the host context's status callback,
//! rustls from the host's `CertifiedKey`.
//!
//! An unknown server name is refused with a fatal `unrecognized_name` alert. The server
//! peeks at each ClientHello's server name first: a connection-fault host
//! ([`super::faults`]) gets its fault instead of a handshake, and [`NO_HTTP_HOST`] is closed
//! right after the handshake.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::Response;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use openssl::pkey::PKey;
use openssl::ssl::{NameType, SniError, Ssl, SslAcceptor, SslContext, SslMethod};
use openssl::x509::X509;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls_pki_types::PrivateKeyDer;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::MirrorSet;
use super::faults::{self, NO_HTTP_HOST, REFUSED_HOST};
use crate::tls::compression::{self, CertCompression};
use certbench_schema::Transport;

/// Why the mirror could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// OpenSSL refused a certificate or key.
    #[error("OpenSSL: {0}")]
    Openssl(#[from] openssl::error::ErrorStack),
    /// rustls refused a certificate or key.
    #[error("rustls: {0}")]
    Rustls(#[from] rustls::Error),
    /// rustls' configuration has no cipher suite QUIC's Initials can use.
    #[error("QUIC: {0}")]
    QuicCrypto(#[from] quinn::crypto::rustls::NoInitialCipherSuite),
    /// The QUIC server's UDP socket.
    #[error("binding the QUIC endpoint: {0}")]
    QuicBind(#[source] std::io::Error),
    /// Certificate compression asked of the OpenSSL server.
    #[error("certificate compression needs the rustls server (the system's OpenSSL has none)")]
    CompressionNeedsRustls,
}

/// A running mirror.
pub struct MirrorServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// A loopback port nobody listens on, for [`REFUSED_HOST`].
    refused: SocketAddr,
    task: JoinHandle<()>,
}

impl Drop for MirrorServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn context_for(
    chain: &[rustls_pki_types::CertificateDer<'static>],
    key: &[u8],
    ocsp: Option<&[u8]>,
) -> Result<SslContext, openssl::error::ErrorStack> {
    let mut b = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server())?;
    let leaf = X509::from_der(&chain[0])?;
    b.set_certificate(&leaf)?;
    for c in &chain[1..] {
        b.add_extra_chain_cert(X509::from_der(c)?)?;
    }
    let key = PKey::private_key_from_pkcs8(key)?;
    b.set_private_key(&key)?;
    b.check_private_key()?;
    if let Some(response) = ocsp {
        // Called (server side) only when the client asked for a staple: staple it.
        let response = response.to_vec();
        b.set_status_callback(move |ssl| {
            ssl.set_ocsp_status(&response)?;
            Ok(true)
        })?;
    }
    Ok(b.build().into_context())
}

/// Builds the acceptor: a default context whose SNI callback switches to the host's context.
fn acceptor(set: &MirrorSet) -> Result<SslAcceptor, openssl::error::ErrorStack> {
    let mut contexts = HashMap::new();
    for (host, hc) in &set.hosts {
        contexts.insert(
            host.to_ascii_lowercase(),
            context_for(&hc.chain, &hc.key, hc.ocsp.as_deref())?,
        );
    }
    let contexts = Arc::new(contexts);
    let mut b = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server())?;
    b.set_servername_callback(move |ssl, alert| {
        let name = ssl
            .servername(NameType::HOST_NAME)
            .map(str::to_ascii_lowercase);
        // The exact name, else a wildcard for its parent (`*.load.mirror.test`).
        let ctx = name.and_then(|n| {
            contexts.get(&n).or_else(|| {
                n.split_once('.')
                    .and_then(|(_, parent)| contexts.get(&format!("*.{parent}")))
            })
        });
        match ctx {
            Some(ctx) => ssl.set_ssl_context(ctx).map_err(|_| SniError::ALERT_FATAL),
            None => {
                *alert = openssl::ssl::SslAlert::UNRECOGNIZED_NAME;
                Err(SniError::ALERT_FATAL)
            }
        }
    });
    Ok(b.build())
}

/// The rustls server's certificates: by SNI name, exactly or as a wildcard of its parent.
#[derive(Debug)]
struct BySni(
    HashMap<String, Arc<CertifiedKey>>,
    HashMap<String, super::mtc_choice::MtcChoice>,
);

impl ResolvesServerCert for BySni {
    fn resolve(&self, hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let name = hello.server_name()?.to_ascii_lowercase();
        // An MTC host: landmark-relative or standalone, by the client's trust anchor IDs.
        if let Some(choice) = self.1.get(&name) {
            return Some(choice.choose(hello.certificate_authorities()));
        }
        self.0
            .get(&name)
            .or_else(|| {
                let (_, parent) = name.split_once('.')?;
                self.0.get(&format!("*.{parent}"))
            })
            .cloned()
    }
}

/// The rustls acceptor: every host's chain and key, X25519MLKEM768 preferred, compressing
/// its certificates with `compression` when given: each host's once, at the algorithm's
/// `Amortized` level, then from rustls' `CompressionCache`, sized to hold every host (its
/// default 4 would recompress most hosts on every connection, at brotli's quality 11, which a
/// server that compresses ahead of time does not).
fn rustls_acceptor(
    set: &MirrorSet,
    compression: Option<&CertCompression>,
) -> Result<tokio_rustls::TlsAcceptor, rustls::Error> {
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(rustls_config(
        set,
        compression,
    )?)))
}

/// The mirror's rustls server configuration: each host's chain by SNI, X25519MLKEM768
/// preferred, compressing with `compression` for a client that offers it. The rustls
/// acceptor's and the QUIC server's ([`super::quic`]).
pub(super) fn rustls_config(
    set: &MirrorSet,
    compression: Option<&CertCompression>,
) -> Result<rustls::ServerConfig, rustls::Error> {
    let provider = Arc::new(crate::tls::hybrid_first(
        rustls::crypto::aws_lc_rs::default_provider(),
    ));
    let (mut certs, mut mtc) = (HashMap::new(), HashMap::new());
    for (host, hc) in &set.hosts {
        let key = (provider.key_provider)
            .load_private_key(PrivateKeyDer::Pkcs8(hc.key.clone().into()))?;
        let mut certified = CertifiedKey::new(hc.chain.clone(), key.clone());
        certified.ocsp = hc.ocsp.clone();
        let certified = Arc::new(certified);
        if let Some(standalone) = &hc.standalone {
            let standalone = Arc::new(CertifiedKey::new(standalone.clone(), key));
            if let Some(c) = super::mtc_choice::MtcChoice::new(certified.clone(), standalone) {
                mtc.insert(host.to_ascii_lowercase(), c);
            }
        }
        certs.insert(host.to_ascii_lowercase(), certified);
    }
    let hosts = certs.len();
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(BySni(certs, mtc)));
    compression::server(&mut config, compression);
    config.cert_compression_cache = Arc::new(rustls::compress::CompressionCache::new(hosts.max(4)));
    Ok(config)
}

/// Either stack's acceptor.
#[derive(Clone)]
enum Acceptor {
    Openssl(Arc<SslAcceptor>),
    Rustls(tokio_rustls::TlsAcceptor),
}

impl Acceptor {
    /// The handshake on `tcp`, then HTTP until the client is done.
    async fn serve(&self, tcp: TcpStream) {
        match self {
            Acceptor::Openssl(acceptor) => {
                let Ok(ssl) = Ssl::new(acceptor.context()) else {
                    return;
                };
                let Ok(mut tls) = tokio_openssl::SslStream::new(ssl, tcp) else {
                    return;
                };
                if Pin::new(&mut tls).accept().await.is_err() {
                    return;
                }
                let host = tls.ssl().servername(NameType::HOST_NAME).unwrap_or("");
                let host = host.to_owned();
                http(tls, host).await;
            }
            Acceptor::Rustls(acceptor) => {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let host = tls.get_ref().1.server_name().unwrap_or("").to_owned();
                http(tls, host).await;
            }
        }
    }
}

/// After the handshake: a small HTTP/1.1 answer per request (a page-sized one for
/// [`sized_body`]'s paths), or (for [`NO_HTTP_HOST`]) a close without one.
pub(super) async fn http<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    mut tls: S,
    host: String,
) {
    if host.eq_ignore_ascii_case(NO_HTTP_HOST) {
        // Handshake done; close without answering the request.
        let _ = tokio::io::AsyncWriteExt::shutdown(&mut tls).await;
        return;
    }
    let service = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let body = match sized_body(req.uri().path()) {
            Some(n) => Bytes::from(vec![b'.'; n]),
            None => Bytes::from(format!("certbench mirror: {host}\n")),
        };
        async move { Ok::<_, std::convert::Infallible>(Response::new(Full::new(body))) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(tls), service)
        .await;
}

/// The largest page-sized response the mirror makes: 64 MiB.
pub const MAX_BODY: usize = 64 << 20;

/// `/bytes/N` asks for a response body of `N` bytes (at most [`MAX_BODY`]): the page-sized
/// responses a time to first byte is measured over. Any other path gets the small answer.
pub fn sized_body(path: &str) -> Option<usize> {
    let n = path.strip_prefix("/bytes/")?.parse::<usize>().ok()?;
    (n <= MAX_BODY).then_some(n)
}

impl MirrorServer {
    /// Where a client should connect for `host`: the server, or a closed port for
    /// [`REFUSED_HOST`].
    pub fn addr_for(&self, host: &str) -> SocketAddr {
        if host.eq_ignore_ascii_case(REFUSED_HOST) {
            self.refused
        } else {
            self.addr
        }
    }

    /// Starts serving `set` on `listener` over OpenSSL (on the current tokio runtime).
    pub fn start(set: &MirrorSet, listener: TcpListener) -> Result<MirrorServer, StartError> {
        Self::start_with(set, listener, Transport::Openssl)
    }

    /// Starts serving `set` on `listener` over `stack` (on the current tokio runtime).
    pub fn start_with(
        set: &MirrorSet,
        listener: TcpListener,
        stack: Transport,
    ) -> Result<MirrorServer, StartError> {
        Self::start_compressing(set, listener, stack, None)
    }

    /// [`MirrorServer::start_with`], the certificates compressed with `compression` for a
    /// client that offers it (`--compress-certs`; rustls only: the system's OpenSSL 3.0 has no
    /// certificate compression, [`StartError::CompressionNeedsRustls`]).
    pub fn start_compressing(
        set: &MirrorSet,
        listener: TcpListener,
        stack: Transport,
        compression: Option<&CertCompression>,
    ) -> Result<MirrorServer, StartError> {
        let acceptor = match (stack, compression) {
            (Transport::Openssl, None) => Acceptor::Openssl(Arc::new(acceptor(set)?)),
            (Transport::Openssl, Some(_)) => return Err(StartError::CompressionNeedsRustls),
            // QUIC's own server is [`super::quic`]; its TCP twin serves over rustls.
            (Transport::Rustls | Transport::Quic, c) => Acceptor::Rustls(rustls_acceptor(set, c)?),
        };
        let addr = listener.local_addr().expect("bound listener");
        // A port that was free a moment ago and has no listener now: connecting is refused.
        let refused = std::net::TcpListener::bind((addr.ip(), 0))
            .and_then(|l| l.local_addr())
            .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 1)));
        // The faults that send certificates send a real chain (cnn.com's synthetic one).
        let fault_chain: Arc<Vec<Vec<u8>>> = Arc::new(
            set.hosts
                .get("cnn.com")
                .or_else(|| set.hosts.values().next())
                .map(|h| h.chain.iter().map(|c| c.to_vec()).collect())
                .unwrap_or_default(),
        );
        let task = tokio::spawn(async move {
            loop {
                let tcp = match listener.accept().await {
                    Ok((tcp, _)) => tcp,
                    Err(_) => {
                        // E.g. out of file descriptors: back off instead of spinning.
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = tcp.set_nodelay(true);
                let acceptor = acceptor.clone();
                let fault_chain = fault_chain.clone();
                tokio::spawn(async move {
                    let sni = faults::peek_sni(&tcp).await;
                    if let Some(fault) = sni.as_deref().and_then(faults::conn_fault) {
                        faults::act(fault, tcp, &fault_chain).await;
                        return;
                    }
                    acceptor.serve(tcp).await;
                });
            }
        });
        Ok(MirrorServer {
            addr,
            refused,
            task,
        })
    }
}
