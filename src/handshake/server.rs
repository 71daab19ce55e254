//! The loopback handshake server: `threads` threads, each with its own single-threaded
//! runtime accepting from the one listening socket, OpenSSL or rustls, the generated
//! certificate, the chosen TLS version and resumption mechanism (one acceptor shared by all
//! threads, so sessions resume whichever thread accepts). Each connection: handshake, then
//! read until the client closes (answering its close_notify). The threads' CPU clocks are
//! readable from other threads ([`Server::cpu`] sums them).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use openssl::pkey::PKey;
use openssl::ssl::{SslAcceptor, SslMethod, SslOptions, SslSessionCacheMode};
use openssl::x509::X509;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::error::HandshakeError;
use super::scenario::Resumption;
use crate::certs::test::ServerCert;
use crate::tls::{Provider, Version};
use certbench_schema::Transport;

/// A running server; stopped on drop.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    clocks: Vec<libc::clockid_t>,
    stop: Option<tokio::sync::watch::Sender<bool>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Server {
    /// CPU time the server's threads have used so far, summed.
    pub fn cpu(&self) -> Duration {
        self.clocks.iter().map(|&c| clock_time(c)).sum()
    }

    /// Its threads.
    pub fn threads(&self) -> usize {
        self.clocks.len()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Reads a CPU-time clock.
pub fn clock_time(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid, exclusive `ts`.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

enum Acceptor {
    Openssl(SslAcceptor),
    Rustls(tokio_rustls::TlsAcceptor),
}

fn openssl_acceptor(
    cert: &ServerCert,
    tls: Version,
    resumption: Resumption,
    staple: Option<&[u8]>,
) -> Result<SslAcceptor, openssl::error::ErrorStack> {
    let mut b = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server())?;
    let leaf = X509::from_der(&cert.chain[0])?;
    b.set_certificate(&leaf)?;
    for c in &cert.chain[1..] {
        b.add_extra_chain_cert(X509::from_der(c)?)?;
    }
    let key = PKey::private_key_from_pkcs8(&cert.key)?;
    b.set_private_key(&key)?;
    let v = tls.openssl();
    b.set_min_proto_version(Some(v))?;
    b.set_max_proto_version(Some(v))?;
    match resumption {
        Resumption::None => {
            b.set_session_cache_mode(SslSessionCacheMode::OFF);
            b.set_options(SslOptions::NO_TICKET);
            b.set_num_tickets(0)?;
        }
        Resumption::Tickets => {
            b.set_session_cache_mode(SslSessionCacheMode::SERVER);
        }
        Resumption::SessionId => {
            // No tickets: TLS 1.2 session IDs, TLS 1.3 stateful tickets (server cache).
            b.set_session_cache_mode(SslSessionCacheMode::SERVER);
            b.set_options(SslOptions::NO_TICKET);
        }
    }
    b.set_session_id_context(b"certbench-handshake")?;
    if let Some(staple) = staple {
        // SSL_CTX_set_tlsext_status_cb: the response, to every client that asks for one.
        let staple = staple.to_vec();
        b.set_status_callback(move |ssl| ssl.set_ocsp_status(&staple).map(|()| true))?;
    }
    Ok(b.build())
}

fn rustls_acceptor(
    cert: &ServerCert,
    tls: Version,
    resumption: Resumption,
    provider: Provider,
    staple: Option<&[u8]>,
) -> Result<tokio_rustls::TlsAcceptor, HandshakeError> {
    let versions = tls.rustls();
    let key = rustls_pki_types::PrivateKeyDer::Pkcs8(cert.key.clone().into());
    let builder = rustls::ServerConfig::builder_with_provider(provider.crypto())
        .with_protocol_versions(versions)?
        .with_no_client_auth();
    // The stapled OCSP response (`CertifiedKey.ocsp`), to every client that asks for one.
    let mut config = match staple {
        Some(ocsp) => builder.with_single_cert_with_ocsp(cert.chain.clone(), key, ocsp.to_vec()),
        None => builder.with_single_cert(cert.chain.clone(), key),
    }?;
    crate::tls::compression::none_server(&mut config);
    match resumption {
        Resumption::None => {
            config.session_storage = Arc::new(rustls::server::NoServerSessionStorage {});
            config.send_tls13_tickets = 0;
        }
        Resumption::Tickets => {
            config.ticketer = provider.ticketer()?;
        }
        Resumption::SessionId => {
            config.session_storage = rustls::server::ServerSessionMemoryCache::new(4096);
        }
    }
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// Reads until the peer closes; answers a close_notify with one.
async fn drain<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(mut s: S) {
    let mut buf = [0u8; 1024];
    let _ = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(n) = s.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    let _ = s.shutdown().await;
}

/// Starts a server of `stack` on 127.0.0.1 (a free port), on `threads` threads (at least 1).
pub fn start(
    stack: Transport,
    cert: &ServerCert,
    tls: Version,
    resumption: Resumption,
    provider: Provider,
    threads: usize,
) -> Result<Server, HandshakeError> {
    start_stapling(stack, cert, tls, resumption, provider, threads, None)
}

/// [`start`], stapling `staple` (a DER OCSP response) for every client that asks for one.
pub fn start_stapling(
    stack: Transport,
    cert: &ServerCert,
    tls: Version,
    resumption: Resumption,
    provider: Provider,
    threads: usize,
    staple: Option<&[u8]>,
) -> Result<Server, HandshakeError> {
    let acceptor = Arc::new(match stack {
        Transport::Openssl => Acceptor::Openssl(openssl_acceptor(cert, tls, resumption, staple)?),
        Transport::Rustls => {
            Acceptor::Rustls(rustls_acceptor(cert, tls, resumption, provider, staple)?)
        }
        Transport::Quic => return Err(HandshakeError::NoQuic),
    });
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    std_listener.set_nonblocking(true)?;
    let addr = std_listener.local_addr()?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let (clock_tx, clock_rx) = std::sync::mpsc::channel::<libc::clockid_t>();
    let mut handles = Vec::new();
    for i in 0..threads.max(1) {
        let listener = std_listener.try_clone()?;
        let (acceptor, clock_tx, mut stop_rx) =
            (acceptor.clone(), clock_tx.clone(), stop_rx.clone());
        handles.push(
            std::thread::Builder::new()
                .name(format!("certbench-hs-server-{i}"))
                .spawn(move || serve(listener, acceptor, clock_tx, &mut stop_rx))?,
        );
    }
    drop(clock_tx);
    let clocks: Vec<libc::clockid_t> = clock_rx.iter().take(handles.len()).collect();
    if clocks.len() != handles.len() {
        return Err(HandshakeError::Setup(
            "a server thread did not start".into(),
        ));
    }
    Ok(Server {
        addr,
        clocks,
        stop: Some(stop_tx),
        threads: handles,
    })
}

/// One server thread: its CPU clock sent back, then accept and serve until stopped.
fn serve(
    std_listener: std::net::TcpListener,
    acceptor: Arc<Acceptor>,
    clock_tx: std::sync::mpsc::Sender<libc::clockid_t>,
    stop_rx: &mut tokio::sync::watch::Receiver<bool>,
) {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: pthread_self is this live thread; `clock` is a valid out pointer.
    let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
    let _ = clock_tx.send(if rc == 0 {
        clock
    } else {
        libc::CLOCK_THREAD_CPUTIME_ID
    });
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(_) => return,
    };
    rt.block_on(async move {
        let Ok(listener) = tokio::net::TcpListener::from_std(std_listener) else {
            return;
        };
        loop {
            let tcp = tokio::select! {
                _ = stop_rx.changed() => break,
                r = listener.accept() => match r {
                    Ok((tcp, _)) => tcp,
                    Err(_) => continue,
                },
            };
            let _ = tcp.set_nodelay(true);
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                match &*acceptor {
                    Acceptor::Openssl(a) => {
                        let Ok(ssl) = openssl::ssl::Ssl::new(a.context()) else {
                            return;
                        };
                        let Ok(mut s) = tokio_openssl::SslStream::new(ssl, tcp) else {
                            return;
                        };
                        if std::pin::Pin::new(&mut s).accept().await.is_ok() {
                            drain(s).await;
                        }
                    }
                    Acceptor::Rustls(a) => {
                        if let Ok(s) = a.accept(tcp).await {
                            drain(s).await;
                        }
                    }
                }
            });
        }
    });
}
