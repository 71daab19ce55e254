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

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use certbench_analysis::schema::SCHEMA_VERSION;
use certbench_analysis::{Sample, SampleMeta, Source, Stage, Verdict};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
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
use crate::transport::Transport;
use crate::transport::openssl::{Hook, HookMode, HookState, connector};
use crate::transport::rustls as rt;

/// What to measure.
#[derive(Clone, Debug)]
pub struct DriverOptions {
    /// Methods, in the order of the first run.
    pub methods: Vec<Method>,
    /// Measured runs.
    pub runs: u32,
    /// Warm-up runs (recorded with `warmup: true`).
    pub warmup: u32,
    /// The TLS stack.
    pub transport: Transport,
    /// How webpki methods are hooked into OpenSSL (OpenSSL transport).
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
    /// Sites measured at once (`--concurrency`; 1 = one sample at a time, the default).
    pub concurrency: usize,
}

/// Identifies one sample of a run: (host, method, warm-up, run index). Two samples of one
/// run never share a key (sites are deduplicated), so a run can be resumed by key.
pub type SampleKey = (String, String, bool, u32);

/// The key of `sample`.
pub fn sample_key(sample: &Sample) -> SampleKey {
    (
        sample.site.clone(),
        sample.method.clone(),
        sample.warmup,
        sample.run,
    )
}

/// Steering a run from outside: stop it between samples, and skip samples already taken.
#[derive(Clone, Debug, Default)]
pub struct RunControl {
    /// Set (e.g. on SIGINT) to stop before the next sample; the current one finishes.
    pub stop: Arc<std::sync::atomic::AtomicBool>,
    /// Samples already taken (`--resume`): not measured again.
    pub done: std::collections::HashSet<SampleKey>,
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

/// The stores one method needs: over OpenSSL, OpenSSL's (for `openssl` natively, and for
/// OpenSSL's own verification under the callback hook) and/or the hooked method's; over
/// rustls, the method's own.
#[derive(Clone)]
struct MethodStores {
    openssl: Option<Arc<AnyRoots>>,
    method: Option<Arc<AnyRoots>>,
}

type CachedStores = Result<MethodStores, String>;

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The stores `method` needs over `transport` (and under `hook`), built from `roots`.
fn build_stores(
    method: Method,
    opts: &DriverOptions,
    roots: &RootSet,
    openssl_verifier: &dyn DynVerifier,
    verifier: &dyn DynVerifier,
) -> CachedStores {
    let over_openssl = opts.transport == Transport::Openssl;
    let needs_openssl =
        over_openssl && (method == Method::OpenSsl || opts.hook == HookMode::Callback);
    let openssl = if needs_openssl {
        Some(Arc::new(
            openssl_verifier
                .build_roots(roots.certs())
                .map_err(|e| format!("building OpenSSL roots: {e}"))?,
        ))
    } else {
        None
    };
    let own = if over_openssl && method == Method::OpenSsl {
        None // native: the OpenSSL store above
    } else {
        Some(Arc::new(
            verifier
                .build_roots(roots.certs())
                .map_err(|e| format!("building {method} roots: {e}"))?,
        ))
    };
    Ok(MethodStores {
        openssl,
        method: own,
    })
}

fn x509_store(any: &AnyRoots) -> Option<X509Store> {
    crate::ossl::share_store(&any.downcast_ref::<OpenSslRoots>()?.0)
}

/// Measures every site with every method, `warmup + runs` times, handing each sample to
/// `sink` as soon as it is taken.
pub async fn run(sites: &[Site], roots: &RootSet, opts: &DriverOptions, sink: impl FnMut(Sample)) {
    run_with(sites, roots, opts, &RunControl::default(), sink).await;
}

/// [`run`], steered by `control`; returns `false` when stopped before the end.
pub async fn run_with(
    sites: &[Site],
    roots: &RootSet,
    opts: &DriverOptions,
    control: &RunControl,
    mut sink: impl FnMut(Sample),
) -> bool {
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
                    build_stores(*m, opts, roots, openssl_verifier.as_ref(), v.as_ref()),
                )
            })
            .collect()
    } else {
        Vec::new()
    };
    let ctx = Ctx {
        verifiers: &verifiers,
        cached: &cached,
        openssl_verifier: openssl_verifier.as_ref(),
        roots,
        opts,
        control,
    };
    let states: Vec<RefCell<SiteState>> = sites.iter().map(|_| RefCell::default()).collect();
    let sink: RefCell<&mut dyn FnMut(Sample)> = RefCell::new(&mut sink);
    let sink = &sink;
    let concurrency = opts.concurrency.max(1);
    let mut runs_before = 0usize;
    for (warmup, runs) in [(true, opts.warmup), (false, opts.runs)] {
        for run in 0..runs {
            let one = |c: usize| {
                ctx.site(
                    &sites[c],
                    warmup,
                    run,
                    runs_before + run as usize + c,
                    &states[c],
                    sink,
                )
            };
            // Up to `concurrency` sites at once (one sample at a time per site, its methods
            // in their rotating order); every site of this run before the next run.
            let mut pending = FuturesUnordered::new();
            let mut next = 0;
            let mut stopped = false;
            loop {
                while pending.len() < concurrency && next < sites.len() && !stopped {
                    pending.push(one(next));
                    next += 1;
                }
                match pending.next().await {
                    Some(finished) => stopped |= !finished,
                    None => break,
                }
            }
            if stopped {
                return false;
            }
        }
        runs_before += runs as usize;
    }
    true
}

/// What one site keeps between its samples: the last TLS session per method
/// (`--tls-resumption` over OpenSSL), the reused rustls configuration per method (over rustls).
#[derive(Default)]
struct SiteState {
    sessions: HashMap<Method, SslSession>,
    reuse: HashMap<Method, RustlsReuse>,
}

/// Everything a run's samples share.
struct Ctx<'a> {
    verifiers: &'a [(Method, Arc<dyn DynVerifier>)],
    cached: &'a [(Method, CachedStores)],
    openssl_verifier: &'a dyn DynVerifier,
    roots: &'a RootSet,
    opts: &'a DriverOptions,
    control: &'a RunControl,
}

impl Ctx<'_> {
    /// One run of one site: each method once, in the rotation `order` picks, each sample
    /// handed to `sink` as soon as it is taken. `false` when stopped (before a sample).
    #[allow(clippy::too_many_arguments)]
    async fn site(
        &self,
        site: &Site,
        warmup: bool,
        run: u32,
        order: usize,
        state: &RefCell<SiteState>,
        sink: &RefCell<&mut dyn FnMut(Sample)>,
    ) -> bool {
        let opts = self.opts;
        for k in permutation(self.verifiers.len(), order) {
            let (method, verifier) = &self.verifiers[k];
            if self.control.stop.load(std::sync::atomic::Ordering::SeqCst) {
                return false;
            }
            let key = (site.host.clone(), method.name().to_owned(), warmup, run);
            if self.control.done.contains(&key) {
                continue;
            }
            let cache = self
                .cached
                .iter()
                .find(|(m, _)| m == method)
                .map(|(_, s)| s);
            let mut sample = match opts.transport {
                Transport::Openssl => {
                    let offered = state.borrow().sessions.get(method).cloned();
                    let (sample, session) = measure(
                        *method,
                        verifier.clone(),
                        self.openssl_verifier,
                        cache,
                        self.roots,
                        site,
                        opts,
                        offered.as_ref(),
                    )
                    .await;
                    if let Some(session) = session {
                        state.borrow_mut().sessions.insert(*method, session);
                    }
                    sample
                }
                Transport::Rustls => {
                    // Taken out of the site's state while the sample runs, put back after.
                    let mut reused = opts
                        .resumption
                        .then(|| state.borrow_mut().reuse.remove(method).unwrap_or_default());
                    let sample = measure_rustls(
                        *method,
                        verifier.clone(),
                        cache,
                        self.roots,
                        site,
                        opts,
                        reused.as_mut(),
                    )
                    .await;
                    if let Some(r) = reused {
                        state.borrow_mut().reuse.insert(*method, r);
                    }
                    sample
                }
            };
            sample.run = run;
            sample.warmup = warmup;
            sample.close_failed();
            (sink.borrow_mut())(sample);
        }
        true
    }
}

/// A sample of `method` on `site`, before measuring.
fn new_sample(
    method: Method,
    transport: Transport,
    site: &Site,
    roots: &RootSet,
    roots_cached: bool,
) -> Sample {
    Sample {
        schema: SCHEMA_VERSION,
        source: Source::Driver,
        method: method.name().to_owned(),
        transport: Some(transport.name().to_owned()),
        site: site.host.clone(),
        chain: None,
        run: 0,
        warmup: false,
        stages: Default::default(),
        verdict: Verdict::Ok,
        meta: SampleMeta {
            roots: Some(roots.describe()),
            roots_cached,
            ..SampleMeta::default()
        },
    }
}

/// What the connections of one (site, method) share over rustls with `--tls-resumption`:
/// the session store, and the client configuration — rustls resumes a session only under
/// the very verifier and client-certificate resolver (`Arc::ptr_eq`) it was made with, so the
/// configuration (verifier and its store included) is built on the first connection and
/// cloned for the next ones, as Servo keeps one (later samples record `roots-creation` 0,
/// `roots_cached`).
struct RustlsReuse {
    sessions: Arc<dyn rustls::client::ClientSessionStore>,
    config: Option<(rustls::ClientConfig, Arc<rt::LastVerification>)>,
}

impl Default for RustlsReuse {
    fn default() -> Self {
        RustlsReuse {
            sessions: Arc::new(rustls::client::ClientSessionMemoryCache::new(8)),
            config: None,
        }
    }
}

/// One sample over rustls: `roots-creation` (the method's store), `http-connector-creation`
/// (the `TimedVerifier`, the rustls `ClientConfig` and the hyper-rustls connector, as Servo's
/// `create_tls_config` and `create_http_client` build them), `connection` (as over OpenSSL),
/// and the verification stages the `TimedVerifier` recorded inside the handshake.
async fn measure_rustls(
    method: Method,
    verifier: Arc<dyn DynVerifier>,
    cached: Option<&CachedStores>,
    roots: &RootSet,
    site: &Site,
    opts: &DriverOptions,
    reuse: Option<&mut RustlsReuse>,
) -> Sample {
    let reused = reuse.as_ref().and_then(|r| r.config.clone());
    let mut sample = new_sample(
        method,
        Transport::Rustls,
        site,
        roots,
        cached.is_some() || reused.is_some(),
    );
    sample.meta.validation_time = Some(now_secs());
    let mut rec = Recorder::new();
    let total = rec.start();

    let stores = match cached {
        _ if reused.is_some() => {
            rec.add(Stage::RootsCreation, 0);
            Ok(MethodStores {
                openssl: None,
                method: None,
            })
        }
        Some(result) => {
            rec.add(Stage::RootsCreation, 0);
            result.clone()
        }
        None => {
            let span = rec.start();
            let built = build_stores(method, opts, roots, verifier.as_ref(), verifier.as_ref());
            rec.stop(Stage::RootsCreation, span);
            built
        }
    };
    let store = match stores.map(|s| s.method) {
        Ok(s) => s,
        Err(e) => {
            sample.verdict = Verdict::Error(format!("input: {e}"));
            sample.stages = rec.to_map();
            return sample;
        }
    };

    let span = rec.start();
    let config = match (reused, store) {
        (Some((config, last)), _) => Ok((config, last)),
        (None, Some(store)) => {
            let last = Arc::new(rt::LastVerification::default());
            let timed = rt::TimedVerifier::for_method(verifier, store, last.clone());
            rt::client_config(Arc::new(timed), reuse.as_ref().map(|r| r.sessions.clone()))
                .map(|c| (c, last))
        }
        (None, None) => unreachable!("over rustls every method has its own store"),
    };
    if let (Some(r), Ok(pair)) = (reuse, &config) {
        r.config = Some(pair.clone());
    }
    let (config, last) = match config {
        Ok((c, l)) => (Ok(c), l),
        Err(e) => (Err(e), Arc::new(rt::LastVerification::default())),
    };
    let addr = opts.resolve.get(&(site.host.clone(), site.port)).copied();
    let connector = config.map(|c| rt::connector(c, rt::TcpConnector { addr }));
    rec.stop(Stage::HttpConnectorCreation, span);
    let connector = match connector {
        Ok(c) => c,
        Err(e) => {
            sample.verdict = Verdict::Error(format!("input: building the connector: {e}"));
            sample.stages = rec.to_map();
            return sample;
        }
    };

    let span = rec.start();
    let result = tokio::time::timeout(opts.timeout, fetch_rustls(connector, site)).await;
    rec.stop(Stage::Connection, span);
    rec.stop(Stage::Total, total);

    let verification = last.take();
    if let Some((hs, _)) = &verification {
        for (stage, ns) in hs.to_map() {
            rec.add(stage, ns);
        }
    }
    sample.stages = rec.to_map();
    match result {
        Ok(Ok((info, open))) => {
            sample.meta.tls_version = info.tls_version;
            sample.meta.cipher = info.cipher;
            sample.meta.chain_len = info.chain_len;
            sample.meta.key_types = info.key_types;
            if opts.resumption {
                sample.meta.resumed = Some(info.resumed);
            }
            let _ = tokio::time::timeout(opts.timeout, open.close()).await;
        }
        Ok(Err(e)) => {
            sample.verdict = match verification {
                Some((_, Err(reason))) => Verdict::Rejected(reason),
                _ => Verdict::Error(e),
            }
        }
        Err(_) => {
            sample.verdict =
                Verdict::Error(format!("timeout: no response within {:?}", opts.timeout))
        }
    }
    sample
}

type RustlsStream = hyper_rustls::MaybeHttpsStream<TokioIo<tokio::net::TcpStream>>;

/// A rustls connection whose response head has arrived.
struct OpenRustls {
    sender: hyper::client::conn::http1::SendRequest<Empty<Bytes>>,
    conn: tokio::task::JoinHandle<
        Result<hyper::client::conn::http1::Parts<RustlsStream>, hyper::Error>,
    >,
    body: hyper::body::Incoming,
}

impl OpenRustls {
    /// Reads the rest of the response and closes TLS with a close_notify.
    async fn close(self) {
        use http_body_util::BodyExt;
        use hyper::rt::Write;
        let _ = self.body.collect().await;
        drop(self.sender);
        if let Ok(Ok(parts)) = self.conn.await {
            let mut io = parts.io;
            let _ = std::future::poll_fn(|cx| Pin::new(&mut io).poll_shutdown(cx)).await;
        }
    }
}

/// Connects through the hyper-rustls connector and sends one request; returns at the
/// response head.
async fn fetch_rustls(
    mut connector: rt::Connector,
    site: &Site,
) -> Result<(ConnInfo, OpenRustls), String> {
    use tower_service::Service;
    let authority = if site.port == 443 {
        site.host.clone()
    } else {
        format!("{}:{}", site.host, site.port)
    };
    let uri: hyper::Uri = format!("https://{authority}{}", site.path)
        .parse()
        .map_err(|e| format!("input: url: {e}"))?;
    let stream = connector.call(uri).await.map_err(|e| {
        let msg = e.to_string();
        if msg.starts_with("dns:") || msg.starts_with("connect:") {
            msg
        } else {
            format!("tls handshake: {msg}")
        }
    })?;
    let info = match &stream {
        hyper_rustls::MaybeHttpsStream::Https(tls) => {
            let (_, conn) = tls.inner().get_ref();
            let chain = conn.peer_certificates().unwrap_or_default();
            ConnInfo {
                // Named as OpenSSL names them, so that both transports' samples compare.
                tls_version: conn.protocol_version().map(|v| match v {
                    rustls::ProtocolVersion::TLSv1_3 => "TLSv1.3".to_owned(),
                    rustls::ProtocolVersion::TLSv1_2 => "TLSv1.2".to_owned(),
                    other => format!("{other:?}"),
                }),
                cipher: conn
                    .negotiated_cipher_suite()
                    .map(|c| format!("{:?}", c.suite())),
                chain_len: Some(chain.len() as u32),
                key_types: chain.iter().map(|c| crate::chain::key_type(c)).collect(),
                resumed: conn.handshake_kind() == Some(rustls::HandshakeKind::Resumed),
            }
        }
        hyper_rustls::MaybeHttpsStream::Http(_) => {
            return Err("tls: the connector did not use TLS".to_owned());
        }
    };
    let (mut sender, conn) = hyper::client::conn::http1::handshake(stream)
        .await
        .map_err(|e| format!("http: {e}"))?;
    let conn = tokio::spawn(conn.without_shutdown());
    let req = hyper::Request::get(site.path.as_str())
        .header(hyper::header::HOST, authority)
        .body(Empty::<Bytes>::new())
        .map_err(|e| format!("http: {e}"))?;
    let resp = match sender.send_request(req).await {
        Ok(r) => r,
        Err(e) => {
            conn.abort();
            return Err(http_error(&e));
        }
    };
    Ok((
        info,
        OpenRustls {
            sender,
            conn,
            body: resp.into_body(),
        },
    ))
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
    let mut sample = new_sample(method, Transport::Openssl, site, roots, cached.is_some());
    sample.meta.hook = Some(hook_name.to_owned());
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
            let built = build_stores(method, opts, roots, openssl_verifier, verifier.as_ref());
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
    let hook = match (method, opts.hook, stores.method) {
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
            return Err(http_error(&e));
        }
    };
    let open = Open {
        sender,
        conn,
        body: resp.into_body(),
    };
    Ok((info, open))
}

/// An HTTP failure after TLS was up, in words: hyper says "operation was canceled" when the
/// server closes the connection before answering.
fn http_error(e: &hyper::Error) -> String {
    if e.is_canceled() || e.is_incomplete_message() {
        format!("http: the server closed the connection without a response ({e})")
    } else {
        format!("http: {e}")
    }
}
