//! The stack Servo uses today: hyper 1 over hyper-rustls 0.27 over rustls 0.23 (aws-lc-rs),
//! with the method inside a [`TimedVerifier`] (from `certbench-core`), which records its
//! stages into a [`LastVerification`] the driver reads after the handshake.
//!
//! Stages: `roots-creation` (the method's store), `http-connector-creation` (the
//! `TimedVerifier`, the rustls `ClientConfig` and the hyper-rustls connector, as Servo's
//! `create_tls_config` and `create_http_client` build them), `connection` (as over OpenSSL).
//!
//! With `--tls-resumption`, each (site, method) keeps its `ClientConfig`: rustls resumes a
//! session only under the very verifier (`Arc::ptr_eq`) it was made with, so the
//! configuration (verifier and store included) is built on the first connection and cloned
//! for the next ones, as Servo keeps one (later samples record `roots-creation` 0,
//! `roots_cached`).
//!
//! The TCP stream counts the server's first flight ([`Counted`]), and the certificates
//! received give the chain's bytes and its Certificate message. In a `--pq` run
//! (`hybrid_first`) the client offers X25519MLKEM768 first, as Chrome and Firefox do.
//!
//! A method that checks CT or revocation (its [`Checks`]: the browsers' methods as shipped,
//! Servo's with `--ct` or `--revocation`) is put in as a [`MethodVerifier`] given them
//! ([`TimedVerifier::for_method`]), always: also `webpki` and `platform`, whose own rustls
//! verifiers (taken as one opaque `verify` when nothing else is checked) check neither; their
//! `verify()` is the same verifier's call, then the `ct` and `revocation` stages. rustls asks
//! every server for a staple (`status_request`) and hands the response to
//! `verify_server_cert`, which passes it and the data to the method (its `revocation` stage
//! inside the handshake).
//!
//! With `--compress-certs`, the client offers the one algorithm asked for, through a timed
//! decompressor ([`crate::tls::compression::client`]): a server that compresses gives the
//! sample its `cert-decompression` stage and the CompressedCertificate's bytes. Without it,
//! the client offers none. The server's CertificateVerify is checked through the
//! [`TimedVerifier`], timed as `certificate-verify`.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use certbench_core::Checks;
use hyper_util::rt::TokioIo;
use rustls::client::danger::ServerCertVerifier;

use super::flight::{Counted, Flights, certificate_message_bytes, chain_bytes};
use super::{ConnInfo, Failure, TlsStack, Verification, tcp};
use crate::sites::Site;
use crate::tls::compression::{self, Timed};
use certbench_core::methods::{AnyRoots, DynVerifier, Method};
use certbench_core::roots::RootSet;
pub use certbench_core::timed::{
    LastVerification, MethodVerifier, TimedVerifier, VerificationSink, reason,
};
use certbench_schema::Transport;

/// The verifier a sample's rustls configuration verifies with: `verifier` timed into `sink`,
/// checking what `checks` names (see the module documentation).
pub fn timed(
    verifier: &Arc<dyn DynVerifier>,
    store: Arc<AnyRoots>,
    checks: &Checks,
    sink: Arc<dyn VerificationSink>,
) -> Arc<dyn ServerCertVerifier> {
    Arc::new(TimedVerifier::for_method(
        verifier.clone(),
        store,
        checks,
        sink,
    ))
}

/// The store `method`'s verifier builds from `roots`: what the rustls-based stacks (rustls,
/// QUIC) hand its `TimedVerifier`.
pub fn method_store(
    method: Method,
    verifier: &dyn DynVerifier,
    roots: &RootSet,
) -> Result<Arc<AnyRoots>, Failure> {
    verifier
        .build_roots(roots.certs())
        .map(Arc::new)
        .map_err(|e| Failure::Input(format!("building {method} roots: {e}")))
}

/// A rustls client configuration built the way Servo builds one
/// (`builder_with_provider`, aws-lc-rs, safe default protocol versions), verifying with
/// `verifier`. `resumption`: the session store to share between connections, or none.
pub fn client_config(
    verifier: Arc<dyn ServerCertVerifier>,
    resumption: Option<Arc<dyn rustls::client::ClientSessionStore>>,
) -> Result<rustls::ClientConfig, rustls::Error> {
    client_config_with(
        verifier,
        resumption,
        certbench_core::methods::webpki_server::provider(),
    )
}

/// [`client_config`] on another provider (the hybrid-first one of a `--pq` run).
pub fn client_config_with(
    verifier: Arc<dyn ServerCertVerifier>,
    resumption: Option<Arc<dyn rustls::client::ClientSessionStore>>,
    provider: Arc<rustls::crypto::CryptoProvider>,
) -> Result<rustls::ClientConfig, rustls::Error> {
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    config.resumption = match resumption {
        Some(store) => rustls::client::Resumption::store(store),
        None => rustls::client::Resumption::disabled(),
    };
    compression::none_client(&mut config);
    Ok(config)
}

/// The TCP side of the connector: [`super::tcp`] to a fixed address (the mirror,
/// `--resolve`) or to the URI's host, resolved; the stream counts into `flights`.
#[derive(Clone, Debug)]
pub struct TcpConnector {
    /// Where to connect instead of resolving the host.
    pub addr: Option<SocketAddr>,
    /// Where the connection's first flight is counted.
    pub flights: Arc<Flights>,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl tower_service::Service<hyper::Uri> for TcpConnector {
    type Response = TokioIo<Counted<tokio::net::TcpStream>>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: hyper::Uri) -> Self::Future {
        let (fixed, flights) = (self.addr, self.flights.clone());
        Box::pin(async move {
            let host = uri.host().unwrap_or_default();
            let host = host.trim_start_matches('[').trim_end_matches(']');
            let port = uri.port_u16().unwrap_or(443);
            let stream = tcp(host, port, fixed).await?;
            if let Ok(local) = stream.local_addr() {
                flights.set_local(local);
            }
            Ok(TokioIo::new(Counted::new(stream, flights)))
        })
    }
}

/// The HTTPS connector Servo's `create_http_client` builds (hyper-rustls, HTTP/1.1 here),
/// over [`TcpConnector`].
pub type Connector = hyper_rustls::HttpsConnector<TcpConnector>;

/// Builds the connector from a client configuration.
pub fn connector(config: rustls::ClientConfig, tcp: TcpConnector) -> Connector {
    hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .wrap_connector(tcp)
}

/// The rustls stack as a [`TlsStack`]: every method inside a [`TimedVerifier`].
pub struct RustlsTransport {
    /// Keep each (site, method)'s configuration and sessions, and resume.
    pub resumption: bool,
    /// Offer X25519MLKEM768 first ([`crate::tls::hybrid_first`]): `--pq` runs.
    pub hybrid_first: bool,
    /// Offer certificate compression, decompressing with this (timed): `--compress-certs`.
    pub decompressor: Option<&'static dyn rustls::compress::CertDecompressor>,
}

/// A client configuration, the sink of its verifier and its timed decompressor, if any: kept
/// together (the decompressor's lease as long as the configuration).
type Configured = (rustls::ClientConfig, Arc<LastVerification>, Option<Timed>);

/// What one (site, method) keeps with `--tls-resumption`: the session store, and the client
/// configuration with the sink of its verifier.
pub struct RustlsReuse {
    sessions: Arc<dyn rustls::client::ClientSessionStore>,
    config: Option<Configured>,
}

impl Default for RustlsReuse {
    fn default() -> Self {
        RustlsReuse {
            sessions: Arc::new(rustls::client::ClientSessionMemoryCache::new(8)),
            config: None,
        }
    }
}

/// One sample's connector (the hyper-rustls connector is built per sample, as Servo builds
/// one per HTTP client), and where its verifier records.
pub struct RustlsConnector {
    https: Connector,
    flights: Arc<Flights>,
    last: Arc<LastVerification>,
    /// The timed decompressor (`--compress-certs`).
    decompression: Option<Timed>,
    /// The method verifying, told as the handshake starts ([`DynVerifier::handshake_started`]).
    verifier: Arc<dyn DynVerifier>,
}

impl TlsStack for RustlsTransport {
    type Stores = Arc<AnyRoots>;
    type Reuse = RustlsReuse;
    type Connector = RustlsConnector;
    type Io = hyper_rustls::MaybeHttpsStream<TokioIo<Counted<tokio::net::TcpStream>>>;

    fn kind(&self) -> Transport {
        Transport::Rustls
    }

    fn hook(&self, _: Method) -> Option<certbench_schema::Hook> {
        Some(certbench_schema::Hook::TimedVerifier)
    }

    fn library(&self) -> (&'static str, String) {
        (
            "rustls",
            certbench_core::versions::locked("rustls").to_owned(),
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

    fn reuses_stores(&self, reuse: &RustlsReuse) -> bool {
        self.resumption && reuse.config.is_some()
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
        reuse: &mut RustlsReuse,
    ) -> Result<RustlsConnector, Failure> {
        let reused = if self.resumption {
            reuse.config.clone()
        } else {
            None
        };
        let (config, last, decompression) = match (reused, stores) {
            (Some(kept), _) => kept,
            (None, Some(store)) => {
                let last = Arc::new(LastVerification::default());
                let timed = timed(verifier, store, checks, last.clone());
                let sessions = self.resumption.then(|| reuse.sessions.clone());
                let provider = match self.hybrid_first {
                    true => Arc::new(crate::tls::hybrid_first(
                        rustls::crypto::aws_lc_rs::default_provider(),
                    )),
                    false => certbench_core::methods::webpki_server::provider(),
                };
                let mut config = client_config_with(timed, sessions, provider)
                    .map_err(|e| Failure::Input(format!("building the connector: {e}")))?;
                let decompression = compression::client(&mut config, self.decompressor);
                let kept = (config, last, decompression);
                if self.resumption {
                    reuse.config = Some(kept.clone());
                }
                kept
            }
            (None, None) => return Err(Failure::Input(format!("no {method} trust store"))),
        };
        let flights = Arc::new(Flights::default());
        let tcp = TcpConnector {
            addr,
            flights: flights.clone(),
        };
        Ok(RustlsConnector {
            https: connector(config, tcp),
            flights,
            last,
            decompression,
            verifier: verifier.clone(),
        })
    }

    async fn handshake(
        &self,
        c: &RustlsConnector,
        site: &Site,
    ) -> Result<(Self::Io, ConnInfo), Failure> {
        use tower_service::Service;
        let uri: hyper::Uri = format!("https://{}{}", site.authority(), site.path)
            .parse()
            .map_err(|e| Failure::Input(format!("url: {e}")))?;
        let mut https = c.https.clone();
        c.verifier.handshake_started();
        let stream = https
            .call(uri)
            .await
            .map_err(|e| match e.downcast::<Failure>() {
                Ok(failure) => *failure, // resolution or TCP, typed where it happened
                Err(e) => Failure::TlsHandshake(e.to_string()),
            })?;
        let info = match &stream {
            hyper_rustls::MaybeHttpsStream::Https(tls) => {
                let (_, conn) = tls.inner().get_ref();
                let chain = conn.peer_certificates().unwrap_or_default();
                ConnInfo {
                    tls_version: conn.protocol_version().map(|v| match v {
                        rustls::ProtocolVersion::TLSv1_3 => "TLSv1.3".to_owned(),
                        rustls::ProtocolVersion::TLSv1_2 => "TLSv1.2".to_owned(),
                        other => format!("{other:?}"),
                    }),
                    cipher: conn
                        .negotiated_cipher_suite()
                        .map(|c| format!("{:?}", c.suite())),
                    chain_len: Some(chain.len() as u32),
                    key_types: chain
                        .iter()
                        .map(|c| certbench_core::der::key_type(c))
                        .collect(),
                    resumed: conn.handshake_kind() == Some(rustls::HandshakeKind::Resumed),
                    chain_bytes: (!chain.is_empty()).then(|| chain_bytes(chain)),
                    cert_message_bytes: (!chain.is_empty())
                        .then(|| certificate_message_bytes(chain)),
                    first_flight_bytes: c.flights.first_flight(),
                    first_flight_handshake_bytes: c.flights.first_flight_handshake(),
                    compressed_cert_message_bytes: (c.decompression.as_ref())
                        .and_then(|d| d.record.last())
                        .filter(|d| d.ok)
                        .map(|d| d.message_bytes()),
                    quic: None,
                    link_counts: c.flights.local().and_then(crate::link::tcp_counts_of),
                }
            }
            hyper_rustls::MaybeHttpsStream::Http(_) => {
                return Err(Failure::TlsHandshake(
                    "the connector did not use TLS".to_owned(),
                ));
            }
        };
        Ok((stream, info))
    }

    fn verification(&self, c: &RustlsConnector) -> Verification {
        let mut v = match c.last.take() {
            Some((stages, verdict)) => Verification {
                stages,
                rejection: verdict.err().map(|r| r.reason),
            },
            None => Verification::default(),
        };
        // Inflating the server's CompressedCertificate came before the verifier's call.
        if let Some(d) = c.decompression.as_ref().and_then(|d| d.record.take()) {
            v.stages
                .add(certbench_schema::Stage::CertDecompression, d.ns);
        }
        v
    }
}
