//! The handshake's client side: a client stack's connector (OpenSSL or rustls, held to the
//! run's version, resumption and verifier), and one counted handshake — TCP connect, the TLS
//! handshake (its latency ends here), then close_notify both ways.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use openssl::ssl::{SslConnector, SslMethod, SslSession, SslSessionCacheMode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::error::{HandshakeError, HandshakeFailure};
use super::revocation::{Counted, Counts};
use super::scenario::{Checks, Resumption, Scenario};
use crate::certs::test::{SERVER_NAME, ServerCert};

/// A client stack's connector, one per client task (sessions are per client).
pub(super) enum Client {
    Openssl {
        connector: SslConnector,
        session: Arc<Mutex<Option<SslSession>>>,
    },
    /// rustls, and the method verifying (told as each handshake starts), if not rustls' own.
    Rustls(
        tokio_rustls::TlsConnector,
        Option<Arc<dyn certbench_core::methods::DynVerifier>>,
    ),
}

pub(super) fn openssl_client(cfg: &Scenario, cert: &ServerCert) -> Result<Client, HandshakeError> {
    let mut b = SslConnector::builder(SslMethod::tls_client())?;
    let mut store = openssl::x509::store::X509StoreBuilder::new()?;
    store.add_cert(openssl::x509::X509::from_der(&cert.ca)?)?;
    b.set_cert_store(store.build());
    let v = cfg.tls.openssl();
    b.set_min_proto_version(Some(v))?;
    b.set_max_proto_version(Some(v))?;
    let session = Arc::new(Mutex::new(None));
    if cfg.resumption == Resumption::None {
        b.set_session_cache_mode(SslSessionCacheMode::OFF);
        b.set_options(openssl::ssl::SslOptions::NO_TICKET);
    } else {
        b.set_session_cache_mode(
            SslSessionCacheMode::CLIENT | SslSessionCacheMode::NO_INTERNAL_STORE,
        );
        if cfg.resumption == Resumption::SessionId {
            b.set_options(openssl::ssl::SslOptions::NO_TICKET);
        }
        let slot = session.clone();
        b.set_new_session_callback(move |_, s| {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(s);
        });
    }
    Ok(Client::Openssl {
        connector: b.build(),
        session,
    })
}

/// The rustls client; with `checks.ct` (`--ct`), a certbench method that has a CT check
/// checks the leaf's SCTs against those logs in every handshake, and with
/// `checks.revocation` (`--revocation`) one with a revocation check checks it, with the
/// server's staple, counting what it found into `counts` (rustls' own verifier, neither).
pub(super) fn rustls_client(
    cfg: &Scenario,
    cert: &ServerCert,
    checks: Checks<'_>,
    counts: &Arc<Counts>,
) -> Result<Client, HandshakeError> {
    let versions = cfg.tls.rustls();
    let builder = rustls::ClientConfig::builder_with_provider(cfg.provider.crypto())
        .with_protocol_versions(versions)?;
    let mut hooked = None;
    let mut config = match cfg.verifier {
        None => {
            let mut roots = rustls::RootCertStore::empty();
            roots.add(cert.ca.clone())?;
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        Some(method) => {
            let verifier: Arc<dyn certbench_core::methods::DynVerifier> =
                Arc::from(method.verifier());
            let roots = verifier
                .build_roots(std::slice::from_ref(&cert.ca))
                .map_err(|e| HandshakeError::Setup(format!("{method} roots: {e}")))?;
            hooked = Some(verifier.clone());
            // Every method goes through MethodVerifier here (`webpki` and `platform` too,
            // whose `verify()` is their own rustls verifier's call): with `ct`, its `verify()`
            // adds the CT check, which their rustls verifiers do not make.
            let resolved = checks.for_method(method);
            let revoking = resolved.revocation.is_some();
            let timed =
                certbench_core::timed::MethodVerifier::new(verifier, Arc::new(roots), &resolved);
            let verifier: Arc<dyn rustls::client::danger::ServerCertVerifier> = match revoking {
                true => Arc::new(Counted {
                    inner: timed,
                    counts: counts.clone(),
                }),
                false => Arc::new(timed),
            };
            builder
                .dangerous()
                .with_custom_certificate_verifier(verifier)
                .with_no_client_auth()
        }
    };
    config.resumption = match cfg.resumption {
        Resumption::None => rustls::client::Resumption::disabled(),
        Resumption::Tickets => rustls::client::Resumption::in_memory_sessions(64),
        Resumption::SessionId => rustls::client::Resumption::in_memory_sessions(64)
            .tls12_resumption(rustls::client::Tls12Resumption::SessionIdOnly),
    };
    crate::tls::compression::none_client(&mut config);
    Ok(Client::Rustls(
        tokio_rustls::TlsConnector::from(Arc::new(config)),
        hooked,
    ))
}

/// Closes a TLS stream both ways: our close_notify, then read (a TLS 1.3 client processes
/// the server's session tickets here) until the server's close_notify or EOF.
async fn close<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(s: &mut S) {
    let _ = s.shutdown().await;
    let mut buf = [0u8; 1024];
    let _ = tokio::time::timeout(Duration::from_secs(10), async {
        while let Ok(n) = s.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
}

/// One handshake: (latency, resumed).
pub(super) async fn handshake(
    client: &Client,
    addr: std::net::SocketAddr,
) -> Result<(Duration, bool), HandshakeFailure> {
    let start = Instant::now();
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(HandshakeFailure::Connect)?;
    tcp.set_nodelay(true).map_err(HandshakeFailure::Connect)?;
    match client {
        Client::Openssl { connector, session } => {
            let mut ssl = connector
                .configure()
                .and_then(|c| c.into_ssl(SERVER_NAME))
                .map_err(HandshakeFailure::Setup)?;
            let offered = session.lock().unwrap_or_else(|e| e.into_inner()).clone();
            if let Some(s) = offered {
                certbench_core::ffi::ossl::offer_session(&mut ssl, &s)
                    .map_err(HandshakeFailure::Setup)?;
            }
            let mut s = tokio_openssl::SslStream::new(ssl, tcp).map_err(HandshakeFailure::Setup)?;
            Pin::new(&mut s)
                .connect()
                .await
                .map_err(HandshakeFailure::Openssl)?;
            let latency = start.elapsed();
            let resumed = s.ssl().session_reused();
            close(&mut s).await;
            Ok((latency, resumed))
        }
        Client::Rustls(connector, hooked) => {
            if let Some(verifier) = hooked {
                verifier.handshake_started();
            }
            let name = rustls_pki_types::ServerName::try_from(SERVER_NAME)
                .map_err(HandshakeFailure::Name)?;
            let mut s = connector
                .connect(name, tcp)
                .await
                .map_err(HandshakeFailure::Rustls)?;
            let latency = start.elapsed();
            let resumed = s.get_ref().1.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
            close(&mut s).await;
            Ok((latency, resumed))
        }
    }
}
