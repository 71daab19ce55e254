//! The site driver: real connections (or the loopback mirror), one fresh connection per
//! sample, methods interleaved, stages recorded where they happen.
//!
//! One sample = one method connecting to one site: `roots-creation` (the stores the hook
//! needs: OpenSSL's `X509Store` for `openssl` and the callback hook, webpki's anchors for a
//! webpki method), `http-connector-creation` (the `SslConnector` with its hooks),
//! `connection` (name resolution, TCP connect with TCP_NODELAY, TLS handshake, HTTP/1.1
//! request to the response head), and, measured inside the handshake by the hooks,
//! `openssl-verify`, `chain-creation`, `verify`, `verify-hostname` and `total-verification`;
//! all inside `total`. Disjoint: roots-creation + http-connector-creation + connection ≤ total.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use certbench_analysis::schema::SCHEMA_VERSION;
use certbench_analysis::{Sample, SampleMeta, Source, Stage, Verdict};
use http_body_util::Empty;
use hyper_util::rt::TokioIo;
use openssl::ssl::{SslConnector, SslSession};
use openssl::x509::store::X509Store;

use crate::bench::verify::permutation;
use crate::methods::openssl::OpenSslRoots;
use crate::methods::{AnyRoots, DynVerifier, Method};
use crate::roots::RootSet;
use crate::sites::Site;
use crate::stages::Recorder;
use crate::transport::openssl::{Hook, HookMode, HookState, connector};

/// What to measure.
#[derive(Clone, Debug)]
pub struct DriverOptions {
    /// Methods, in the order of the first run.
    pub methods: Vec<Method>,
    /// Measured runs.
    pub runs: u32,
    /// Warm-up runs (recorded with `warmup: true`).
    pub warmup: u32,
    /// How webpki methods are hooked into OpenSSL.
    pub hook: HookMode,
    /// Bound on one sample's connection (resolution + connect + handshake + response head).
    pub timeout: Duration,
    /// Build each store once and reuse it.
    pub cache_roots: bool,
    /// `(host, port)` → address, used instead of DNS (`--resolve`, and every site with
    /// `--mirror`).
    pub resolve: HashMap<(String, u16), SocketAddr>,
    /// Offer each (site, method)'s previous TLS session for resumption (`--tls-resumption`);
    /// otherwise every sample is a full handshake.
    pub resumption: bool,
}

/// Facts about a finished connection.
#[derive(Default)]
struct ConnInfo {
    tls_version: Option<String>,
    cipher: Option<String>,
    chain_len: Option<u32>,
    key_types: Vec<String>,
    resumed: bool,
}

/// The stores one method needs: OpenSSL's (for `openssl`, and for OpenSSL's own
/// verification under the callback hook) and/or webpki's.
#[derive(Clone)]
struct MethodStores {
    openssl: Option<Arc<AnyRoots>>,
    webpki: Option<Arc<AnyRoots>>,
}

type CachedStores = Result<MethodStores, String>;

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The stores `method` needs under `hook`, built from `roots`.
fn build_stores(
    method: Method,
    hook: HookMode,
    roots: &RootSet,
    openssl_verifier: &dyn DynVerifier,
    verifier: &dyn DynVerifier,
) -> CachedStores {
    let needs_openssl = method == Method::OpenSsl || hook == HookMode::Callback;
    let openssl = if needs_openssl {
        Some(Arc::new(
            openssl_verifier
                .build_roots(roots.certs())
                .map_err(|e| format!("building OpenSSL roots: {e}"))?,
        ))
    } else {
        None
    };
    let webpki = if method == Method::OpenSsl {
        None
    } else {
        Some(Arc::new(
            verifier
                .build_roots(roots.certs())
                .map_err(|e| format!("building {method} roots: {e}"))?,
        ))
    };
    Ok(MethodStores { openssl, webpki })
}

fn x509_store(any: &AnyRoots) -> Option<X509Store> {
    crate::ossl::share_store(&any.downcast_ref::<OpenSslRoots>()?.0)
}

/// Measures every site with every method, `warmup + runs` times, handing each sample to
/// `sink` as soon as it is taken.
pub async fn run(
    sites: &[Site],
    roots: &RootSet,
    opts: &DriverOptions,
    mut sink: impl FnMut(Sample),
) {
    let openssl_verifier = Method::OpenSsl.verifier();
    let verifiers: Vec<(Method, Arc<dyn DynVerifier>)> = opts
        .methods
        .iter()
        .map(|&m| (m, Arc::from(m.verifier())))
        .collect();
    let cached: Vec<(Method, CachedStores)> = if opts.cache_roots {
        verifiers
            .iter()
            .map(|(m, v)| {
                (
                    *m,
                    build_stores(*m, opts.hook, roots, openssl_verifier.as_ref(), v.as_ref()),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let n = verifiers.len();
    // (site, method) → the session of its last connection, with --tls-resumption.
    let mut sessions: HashMap<(usize, Method), SslSession> = HashMap::new();
    let mut runs_before = 0usize;
    for (warmup, runs) in [(true, opts.warmup), (false, opts.runs)] {
        for run in 0..runs {
            for (c, site) in sites.iter().enumerate() {
                for k in permutation(n, runs_before + run as usize + c) {
                    let (method, verifier) = &verifiers[k];
                    let cache = cached.iter().find(|(m, _)| m == method).map(|(_, s)| s);
                    let offered = sessions.get(&(c, *method));
                    let (mut sample, session) = measure(
                        *method,
                        verifier.clone(),
                        openssl_verifier.as_ref(),
                        cache,
                        roots,
                        site,
                        opts,
                        offered,
                    )
                    .await;
                    if let Some(session) = session {
                        sessions.insert((c, *method), session);
                    }
                    sample.run = run;
                    sample.warmup = warmup;
                    sink(sample);
                }
            }
        }
        runs_before += runs as usize;
    }
}

#[allow(clippy::too_many_arguments)]
async fn measure(
    method: Method,
    verifier: Arc<dyn DynVerifier>,
    openssl_verifier: &dyn DynVerifier,
    cached: Option<&CachedStores>,
    roots: &RootSet,
    site: &Site,
    opts: &DriverOptions,
    session: Option<&SslSession>,
) -> (Sample, Option<SslSession>) {
    let hook_name = match (method, opts.hook) {
        (Method::OpenSsl, _) => "native",
        (_, HookMode::Callback) => "callback",
        (_, HookMode::Replace) => "replace",
    };
    let mut sample = Sample {
        schema: SCHEMA_VERSION,
        source: Source::Driver,
        method: method.name().to_owned(),
        transport: Some("openssl".to_owned()),
        site: site.host.clone(),
        chain: None,
        run: 0,
        warmup: false,
        stages: Default::default(),
        verdict: Verdict::Ok,
        meta: SampleMeta {
            roots: Some(roots.describe()),
            roots_cached: cached.is_some(),
            hook: Some(hook_name.to_owned()),
            ..SampleMeta::default()
        },
    };
    let time = now_secs();
    sample.meta.validation_time = Some(time);
    let mut rec = Recorder::new();
    let total = rec.start();

    let stores = match cached {
        Some(result) => {
            rec.add(Stage::RootsCreation, 0);
            result.clone()
        }
        None => {
            let span = rec.start();
            let built = build_stores(
                method,
                opts.hook,
                roots,
                openssl_verifier,
                verifier.as_ref(),
            );
            rec.stop(Stage::RootsCreation, span);
            built
        }
    };
    let stores = match stores {
        Ok(s) => s,
        Err(e) => {
            sample.verdict = Verdict::Error(format!("input: {e}"));
            sample.stages = rec.to_map();
            return (sample, None);
        }
    };

    let span = rec.start();
    let state = Arc::new(Mutex::new(HookState::default()));
    let openssl_store = stores.openssl.as_deref().and_then(x509_store);
    let hook = match (method, opts.hook, stores.webpki) {
        (Method::OpenSsl, _, _) => Hook::Native,
        (_, HookMode::Callback, Some(r)) => Hook::Callback(verifier.clone(), r),
        (_, HookMode::Replace, Some(r)) => Hook::Replace(verifier.clone(), r),
        (_, _, None) => unreachable!("webpki methods always get webpki roots"),
    };
    let built = connector(
        hook,
        openssl_store,
        &site.host,
        time,
        opts.resumption,
        state.clone(),
    );
    rec.stop(Stage::HttpConnectorCreation, span);
    let connector = match built {
        Ok(c) => c,
        Err(e) => {
            sample.verdict = Verdict::Error(format!("input: building the connector: {e}"));
            sample.stages = rec.to_map();
            return (sample, None);
        }
    };

    let span = rec.start();
    let verify_host = method == Method::OpenSsl;
    let addr = opts.resolve.get(&(site.host.clone(), site.port)).copied();
    let offer = if opts.resumption { session } else { None };
    let result = tokio::time::timeout(
        opts.timeout,
        fetch(&connector, site, addr, verify_host, offer),
    )
    .await;
    rec.stop(Stage::Connection, span);
    // The sample ends here; what follows is bookkeeping, not part of `total`.
    rec.stop(Stage::Total, total);

    let (result, open) = match result {
        Ok(Ok((info, open))) => (Ok(Ok(info)), Some(open)),
        Ok(Err(e)) => (Ok(Err(e)), None),
        Err(elapsed) => (Err(elapsed), None),
    };
    let hs_stages = state.lock().unwrap_or_else(|e| e.into_inner()).rec.to_map();
    for (stage, ns) in hs_stages {
        rec.add(stage, ns);
    }
    sample.stages = rec.to_map();
    // Closing is not part of the sample; it is bounded like the connection.
    if let Some(open) = open {
        let _ = tokio::time::timeout(opts.timeout, open.close()).await;
    }
    let mut hs = state.lock().unwrap_or_else(|e| e.into_inner());
    match result {
        Ok(Ok(info)) => {
            sample.meta.tls_version = info.tls_version;
            sample.meta.cipher = info.cipher;
            sample.meta.chain_len = info.chain_len;
            sample.meta.key_types = info.key_types;
            if opts.resumption {
                sample.meta.resumed = Some(info.resumed);
            }
        }
        Ok(Err(e)) => {
            sample.verdict = match &hs.rejection {
                Some(reason) => Verdict::Rejected(reason.clone()),
                None => Verdict::Error(e),
            }
        }
        Err(_) => {
            sample.verdict =
                Verdict::Error(format!("timeout: no response within {:?}", opts.timeout))
        }
    }
    let next_session = hs.session.take();
    (sample, next_session)
}

type Tls = tokio_openssl::SslStream<tokio::net::TcpStream>;
type ConnTask =
    tokio::task::JoinHandle<Result<hyper::client::conn::http1::Parts<TokioIo<Tls>>, hyper::Error>>;

/// A connection whose response head has arrived, to be closed after the timed span.
struct Open {
    sender: hyper::client::conn::http1::SendRequest<Empty<Bytes>>,
    conn: ConnTask,
    body: hyper::body::Incoming,
}

impl Open {
    /// Reads the rest of the response and closes TLS properly (close_notify). Without a
    /// close_notify, OpenSSL marks the connection's session not resumable when it frees it.
    async fn close(self) {
        use http_body_util::BodyExt;
        use tokio::io::AsyncWriteExt;
        let _ = self.body.collect().await;
        drop(self.sender);
        if let Ok(Ok(parts)) = self.conn.await {
            let _ = parts.io.into_inner().shutdown().await;
        }
    }
}

/// Resolves, connects, handshakes and sends one request; returns at the response head, with
/// the connection still open (see [`Open::close`]).
async fn fetch(
    connector: &SslConnector,
    site: &Site,
    addr: Option<SocketAddr>,
    verify_host: bool,
    session: Option<&SslSession>,
) -> Result<(ConnInfo, Open), String> {
    let addr = match addr {
        Some(a) => a,
        None => tokio::net::lookup_host((site.host.as_str(), site.port))
            .await
            .map_err(|e| format!("dns: {}: {e}", site.host))?
            .next()
            .ok_or_else(|| format!("dns: {}: no address", site.host))?,
    };
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {addr}: {e}"))?;
    tcp.set_nodelay(true).map_err(|e| format!("connect: {e}"))?;
    let mut ssl = connector
        .configure()
        .and_then(|mut c| {
            c.set_verify_hostname(verify_host);
            c.into_ssl(&site.host)
        })
        .map_err(|e| format!("tls: {e}"))?;
    if let Some(session) = session {
        crate::ossl::offer_session(&mut ssl, session).map_err(|e| format!("tls: {e}"))?;
    }
    let mut tls = tokio_openssl::SslStream::new(ssl, tcp).map_err(|e| format!("tls: {e}"))?;
    Pin::new(&mut tls)
        .connect()
        .await
        .map_err(|e| format!("tls handshake: {e}"))?;
    let ssl = tls.ssl();
    let chain = ssl.peer_cert_chain();
    let info = ConnInfo {
        tls_version: Some(ssl.version_str().to_owned()),
        cipher: ssl.current_cipher().map(|c| c.name().to_owned()),
        chain_len: chain.map(|c| c.len() as u32),
        key_types: chain
            .into_iter()
            .flatten()
            .map(|c| {
                c.to_der()
                    .map(|d| crate::chain::key_type(&d))
                    .unwrap_or_default()
            })
            .collect(),
        resumed: ssl.session_reused(),
    };
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .map_err(|e| format!("http: {e}"))?;
    let conn = tokio::spawn(conn.without_shutdown());
    let authority = if site.port == 443 {
        site.host.clone()
    } else {
        format!("{}:{}", site.host, site.port)
    };
    let req = hyper::Request::get(site.path.as_str())
        .header(hyper::header::HOST, authority)
        .body(Empty::<Bytes>::new())
        .map_err(|e| format!("http: {e}"))?;
    let resp = match sender.send_request(req).await {
        Ok(r) => r,
        Err(e) => {
            conn.abort();
            return Err(format!("http: {e}"));
        }
    };
    let open = Open {
        sender,
        conn,
        body: resp.into_body(),
    };
    Ok((info, open))
}
