//! The seed's stack: a hyper 1 HTTP/1.1 client over OpenSSL (tokio-openssl), one fresh
//! connection per sample, with the certificate verification hooked in one of three ways.
//!
//! - [`ConnectorHook::Native`] (`openssl`): OpenSSL verifies. libssl runs `X509_verify_cert` inside the
//!   handshake, before any `set_verify_callback` runs; certbench times it where it happens, by
//!   installing `SSL_CTX_set_cert_verify_callback` with a wrapper that calls it (`verify`).
//! - [`ConnectorHook::Callback`] (a webpki method, the seed's way): OpenSSL's own verification still
//!   runs (timed as `openssl-verify`), and at depth 0 the `set_verify_callback` converts the
//!   chain to DER (`chain-creation`) and calls webpki (`verify`, `verify-hostname`), whose
//!   verdict decides.
//! - [`ConnectorHook::Replace`] (a webpki method, what a browser should do): the cert-verify callback
//!   replaces `X509_verify_cert` entirely with webpki; OpenSSL verifies nothing.
//!
//! In every hook `total-verification` is the whole span of the cert-verify callback. A panic
//! or an error in any hook rejects the chain (fail closed).
//!
//! With `--ct`, a hooked method that checks CT is given the logs in its [`Target`] (its `ct`
//! stage inside its own stages); `openssl` itself has no CT check (OpenSSL verifies no SCT).
//!
//! With `--revocation`, a hooked method with a revocation mechanism is given the run's data and
//! the OCSP response the server stapled (the connection asks for one, `status_request`;
//! OpenSSL holds a TLS 1.3 staple, which comes in the Certificate message, when it verifies
//! the chain: `SSL_get_tlsext_status_ocsp_resp` in the hook). A TLS 1.2 staple comes after the
//! verification, in CertificateStatus: such a connection checks none. `openssl` natively
//! checks no revocation.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use certbench_core::fail_closed;
use certbench_core::ffi::ossl;
use certbench_core::methods::openssl::{OpenSslRoots, OpenSslVerifier};
use certbench_schema::Stage;
use hyper_util::rt::TokioIo;
use openssl::ssl::{
    SslConnector, SslConnectorBuilder, SslMethod, SslRef, SslSession, SslVerifyMode, StatusType,
};
use openssl::x509::store::X509Store;
use openssl::x509::{X509StoreContext, X509StoreContextRef};
use rustls_pki_types::CertificateDer;

use super::{ConnInfo, Failure, TlsStack, Verification, tcp};
use crate::sites::Site;
use certbench_core::Checks;
use certbench_core::chain::Chain;
use certbench_core::methods::{AnyRoots, DynVerifier, Method};
use certbench_core::roots::RootSet;
use certbench_core::stages::Recorder;
use certbench_core::verifier::{Rejection, Target};
use certbench_schema::{Hook, Transport};

/// How verification happens in one connector.
pub enum ConnectorHook {
    /// OpenSSL's own `X509_verify_cert`, timed.
    Native,
    /// A webpki method after OpenSSL's own verification.
    Callback(Arc<dyn DynVerifier>, Arc<AnyRoots>),
    /// A webpki method instead of OpenSSL's verification.
    Replace(Arc<dyn DynVerifier>, Arc<AnyRoots>),
}

/// What the hooks record during one handshake.
#[derive(Default)]
pub struct HookState {
    /// Stages measured inside the handshake.
    pub rec: Recorder,
    /// The verifier's reason, when it rejected.
    pub rejection: Option<String>,
    /// The webpki verdict (callback hook), once it ran.
    webpki: Option<bool>,
    /// Nanoseconds spent in the webpki callback (to take out of `openssl-verify`).
    inner_ns: u64,
    /// The session the server gave (with resumption on), to offer on the next connection.
    pub session: Option<openssl::ssl::SslSession>,
}

/// Locks the state even if a panicking hook poisoned it (the panic is already a rejection).
fn lock(state: &Mutex<HookState>) -> std::sync::MutexGuard<'_, HookState> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// The chain libssl is verifying, as DER (the seed's `chain-creation`: X509 → DER).
fn chain_from(ctx: &mut X509StoreContextRef) -> Result<Chain, Rejection> {
    let (leaf, untrusted) = ossl::peer_certs(ctx);
    let leaf = leaf.ok_or_else(|| Rejection::new("no peer certificate"))?;
    let leaf_der = leaf
        .to_der()
        .map_err(|e| Rejection::new(format!("leaf to DER: {e}")))?;
    let mut intermediates = Vec::new();
    for cert in untrusted.into_iter().flatten() {
        let der = cert
            .to_der()
            .map_err(|e| Rejection::new(format!("chain to DER: {e}")))?;
        if der != leaf_der {
            intermediates.push(CertificateDer::from(der));
        }
    }
    Ok(Chain {
        leaf: CertificateDer::from(leaf_der),
        intermediates,
    })
}

/// Runs a webpki method on the chain in `ctx`, recording `chain-creation` (X509 → DER, plus
/// the method's own) and its stages into `rec`.
fn webpki(
    verifier: &dyn DynVerifier,
    roots: &AnyRoots,
    ctx: &mut X509StoreContextRef,
    target: Target<'_>,
    rec: &mut Recorder,
) -> Result<(), Rejection> {
    let span = rec.start();
    let chain = chain_from(ctx);
    rec.stop(Stage::ChainCreation, span);
    let chain = chain?;
    // Fail closed with a reason: a panicking verifier is a rejection, never an accept, and
    // never unwinds into OpenSSL.
    fail_closed::verify(|| verifier.verify(roots, &chain, target, rec))
}

/// Builds a connector for one sample. `store` is OpenSSL's trust store (unused by
/// [`ConnectorHook::Replace`]); `host` and `time` are what webpki checks; the hooked method checks what
/// `checks` names (its own, resolved once: the leaf's SCTs, revocation with the server's
/// staple); [`ConnectorHook::Native`] checks neither. With `resumption`, the sessions the server gives
/// land in `state.session`; without, no session is kept.
///
/// Invariant relied on by `ossl::offer_session`: no session ever enters this context's
/// internal session cache.
pub fn connector(
    hook: ConnectorHook,
    store: Option<X509Store>,
    (host, time): (&str, u64),
    checks: &Checks,
    resumption: bool,
    state: Arc<Mutex<HookState>>,
) -> Result<SslConnector, openssl::error::ErrorStack> {
    use openssl::ssl::SslSessionCacheMode;
    let mut b = SslConnector::builder(SslMethod::tls_client())?;
    if resumption {
        b.set_session_cache_mode(
            SslSessionCacheMode::CLIENT | SslSessionCacheMode::NO_INTERNAL_STORE,
        );
        let st = state.clone();
        b.set_new_session_callback(move |_ssl, session| {
            lock(&st).session = Some(session);
        });
    } else {
        b.set_session_cache_mode(SslSessionCacheMode::OFF);
    }
    if let Some(store) = store {
        b.set_cert_store(store);
    }
    let hooked = |v, r| HookedMethod::new(v, r, (host, time), checks);
    match hook {
        ConnectorHook::Native => install_native(&mut b, host, time, state),
        ConnectorHook::Callback(v, r) => install_callback(&mut b, hooked(v, r), state),
        ConnectorHook::Replace(v, r) => install_replace(&mut b, hooked(v, r), state),
    }
    Ok(b.build())
}

/// OpenSSL's own `X509_verify_cert` on the chain in `ctx`, under the `openssl` method's
/// policy ([`OpenSslVerifier::policy`]: the same flags as in `verify`, `limbo` and the rustls
/// transport, not libssl's defaults). `false` when it rejects, or when the policy cannot be
/// set (the reason then in `rejection`).
fn openssl_verify(
    ctx: &mut X509StoreContextRef,
    host: &str,
    time: u64,
    rejection: &mut Option<String>,
) -> bool {
    if let Err(r) = OpenSslVerifier::default().configure(ctx, Target::server(host, time)) {
        *rejection = Some(r.reason);
        return false;
    }
    ctx.verify_cert().unwrap_or(false)
}

/// `openssl` itself: libssl's own `X509_verify_cert`, timed where it runs.
fn install_native(
    b: &mut SslConnectorBuilder,
    host: &str,
    time: u64,
    state: Arc<Mutex<HookState>>,
) {
    let host = host.to_owned();
    ossl::set_cert_verify_callback(
        b,
        Box::new(move |ctx| {
            let mut s = lock(&state);
            let span = s.rec.start();
            let ok = openssl_verify(ctx, &host, time, &mut s.rejection);
            let ns = s.rec.stop(Stage::Verify, span);
            s.rec.add(Stage::TotalVerification, ns);
            if !ok && s.rejection.is_none() {
                s.rejection = Some(format!(
                    "{} (depth {})",
                    ctx.error().error_string(),
                    ctx.error_depth()
                ));
            }
            ok
        }),
    );
}

/// A method put into OpenSSL's handshake, with what it verifies for.
struct HookedMethod {
    verifier: Arc<dyn DynVerifier>,
    roots: Arc<AnyRoots>,
    host: String,
    time: u64,
    checks: Checks,
}

/// The OCSP response the server stapled on the connection whose chain `ctx` verifies.
fn stapled(ctx: &X509StoreContextRef) -> Option<Vec<u8>> {
    let idx = X509StoreContext::ssl_idx().ok()?;
    let ssl: &SslRef = ctx.ex_data(idx)?;
    ssl.ocsp_status().map(<[u8]>::to_vec)
}

impl HookedMethod {
    /// `verifier` with its store `roots`, verifying `host` at `time`, checking what `checks`
    /// names (CT logs prepared for the method now, before any handshake).
    fn new(
        verifier: Arc<dyn DynVerifier>,
        roots: Arc<AnyRoots>,
        (host, time): (&str, u64),
        checks: &Checks,
    ) -> Self {
        if let Some(logs) = &checks.ct {
            verifier.prepare_ct(logs);
        }
        HookedMethod {
            verifier,
            roots,
            host: host.to_owned(),
            time,
            checks: checks.clone(),
        }
    }

    /// Runs the method on the chain in `ctx` (see [`webpki`]), with the server's staple when
    /// it checks revocation.
    fn verify(&self, ctx: &mut X509StoreContextRef, rec: &mut Recorder) -> Result<(), Rejection> {
        let staple = self.checks.revocation.as_ref().and_then(|_| stapled(ctx));
        let target = self
            .checks
            .target(Target::server(&self.host, self.time), staple.as_deref());
        webpki(self.verifier.as_ref(), &self.roots, ctx, target, rec)
    }
}

/// The seed's way: OpenSSL verifies (`openssl-verify`), then at depth 0 the verify callback
/// runs the method, whose verdict decides.
fn install_callback(
    b: &mut SslConnectorBuilder,
    method: HookedMethod,
    state: Arc<Mutex<HookState>>,
) {
    let (host, time) = (method.host.clone(), method.time);
    let st = state.clone();
    b.set_verify_callback(SslVerifyMode::PEER, move |_preverify_ok, ctx| {
        fail_closed::run(|| {
            if ctx.error_depth() != 0 {
                return true; // webpki decides for the whole chain at depth 0
            }
            let mut s = lock(&st);
            if let Some(done) = s.webpki {
                return done;
            }
            let span = s.rec.start();
            let result = method.verify(ctx, &mut s.rec);
            s.inner_ns += span.elapsed_ns();
            let ok = result.is_ok();
            if let Err(r) = result {
                s.rejection = Some(r.reason);
            }
            s.webpki = Some(ok);
            ok
        })
        .unwrap_or_else(|panic| {
            lock(&st).rejection = Some(panic.reason);
            false
        })
    });
    ossl::set_cert_verify_callback(
        b,
        Box::new(move |ctx| {
            let span = lock(&state).rec.start();
            let mut policy_error = None;
            let ok = openssl_verify(ctx, &host, time, &mut policy_error);
            let outer = span.elapsed_ns();
            let mut s = lock(&state);
            let own = outer.saturating_sub(s.inner_ns);
            s.rec.add(Stage::OpenSslVerify, own);
            s.rec.add(Stage::TotalVerification, outer);
            if let Some(e) = policy_error {
                s.rejection = Some(e);
                return false;
            }
            match s.webpki {
                Some(webpki_ok) => ok && webpki_ok,
                None => {
                    s.rejection = Some(format!(
                        "webpki was not consulted (OpenSSL: {})",
                        ctx.error().error_string()
                    ));
                    false
                }
            }
        }),
    );
}

/// What a browser should do: the method instead of `X509_verify_cert`.
fn install_replace(
    b: &mut SslConnectorBuilder,
    method: HookedMethod,
    state: Arc<Mutex<HookState>>,
) {
    ossl::set_cert_verify_callback(
        b,
        Box::new(move |ctx| {
            let mut s = lock(&state);
            let span = s.rec.start();
            let result = method.verify(ctx, &mut s.rec);
            s.rec.stop(Stage::TotalVerification, span);
            match result {
                Ok(()) => true,
                Err(r) => {
                    s.rejection = Some(r.reason);
                    false
                }
            }
        }),
    );
}

/// The OpenSSL stack as a [`TlsStack`]: `openssl` runs natively; every other method is put
/// in through `hook`.
pub struct OpensslTransport {
    /// How a method other than `openssl` enters the handshake.
    pub hook: Hook,
    /// Keep the session the server gives and offer it on the next connection.
    pub resumption: bool,
    /// Put `openssl` in through `hook` too, as its certbench method (its `X509_verify_cert`
    /// on the chain the hook hands it), instead of natively: for a layer above every method
    /// (`certbench page`'s verification cache).
    pub hook_openssl: bool,
}

/// The stores one method needs over OpenSSL: OpenSSL's own (for `openssl`, and for
/// OpenSSL's own verification under the callback hook) and the hooked method's.
#[derive(Clone)]
pub struct OpensslStores {
    openssl: Option<Arc<AnyRoots>>,
    method: Option<Arc<AnyRoots>>,
}

/// One sample's connector, with what its hooks record.
pub struct OpensslConnector {
    ssl: SslConnector,
    addr: Option<SocketAddr>,
    state: Arc<Mutex<HookState>>,
    verify_host: bool,
    offer: Option<SslSession>,
    /// Ask the server for a staple (`status_request`): the method checks revocation.
    status_request: bool,
    /// The method verifying, told as the handshake starts ([`DynVerifier::handshake_started`]).
    verifier: Arc<dyn DynVerifier>,
}

impl OpensslTransport {
    /// `openssl` itself verifies natively (no hook), unless `hook_openssl`.
    fn native(&self, method: Method) -> bool {
        method == Method::OpenSsl && !self.hook_openssl
    }
}

impl TlsStack for OpensslTransport {
    type Stores = OpensslStores;
    type Reuse = Option<SslSession>;
    type Connector = OpensslConnector;
    type Io = TokioIo<tokio_openssl::SslStream<tokio::net::TcpStream>>;

    fn kind(&self) -> Transport {
        Transport::Openssl
    }

    fn hook(&self, method: Method) -> Option<certbench_schema::Hook> {
        Some(if self.native(method) {
            certbench_schema::Hook::Native
        } else {
            self.hook
        })
    }

    fn library(&self) -> (&'static str, String) {
        ("OpenSSL", certbench_core::versions::openssl())
    }

    fn openssl_verifies(&self, method: Method) -> bool {
        self.native(method) || self.hook == Hook::Callback
    }

    fn stores(
        &self,
        method: Method,
        verifier: &dyn DynVerifier,
        roots: &RootSet,
    ) -> Result<OpensslStores, Failure> {
        let build = |v: &dyn DynVerifier, m: Method| {
            v.build_roots(roots.certs())
                .map(Arc::new)
                .map_err(|e| Failure::Input(format!("building {m} roots: {e}")))
        };
        let native = self.native(method);
        let openssl = if native || self.hook == Hook::Callback {
            Some(build(Method::OpenSsl.verifier().as_ref(), Method::OpenSsl)?)
        } else {
            None
        };
        let method = if native {
            None // the OpenSSL store above
        } else {
            Some(build(verifier, method)?)
        };
        Ok(OpensslStores { openssl, method })
    }

    fn connector(
        &self,
        method: Method,
        verifier: &Arc<dyn DynVerifier>,
        stores: Option<OpensslStores>,
        site: &Site,
        addr: Option<SocketAddr>,
        time: u64,
        checks: &Checks,
        reuse: &mut Option<SslSession>,
    ) -> Result<OpensslConnector, Failure> {
        let stores = stores.ok_or_else(|| Failure::Input("no trust store".to_owned()))?;
        let state = Arc::new(Mutex::new(HookState::default()));
        let store = stores
            .openssl
            .as_deref()
            .and_then(|r| ossl::share_store(&r.downcast_ref::<OpenSslRoots>()?.0));
        let hook = match (self.native(method), stores.method) {
            // `openssl` natively: no CT check.
            (true, _) => ConnectorHook::Native,
            (false, Some(r)) if self.hook == Hook::Callback => {
                ConnectorHook::Callback(verifier.clone(), r)
            }
            (false, Some(r)) => ConnectorHook::Replace(verifier.clone(), r),
            (false, None) => return Err(Failure::Input(format!("no {method} trust store"))),
        };
        // `openssl` natively checks nothing beyond the path (its Checks are none).
        let status_request = checks.revocation.is_some() && !self.native(method);
        let ssl = connector(
            hook,
            store,
            (&site.host, time),
            checks,
            self.resumption,
            state.clone(),
        )
        .map_err(|e| Failure::Input(format!("building the connector: {e}")))?;
        Ok(OpensslConnector {
            ssl,
            addr,
            state,
            verify_host: self.native(method),
            offer: if self.resumption { reuse.clone() } else { None },
            status_request,
            verifier: verifier.clone(),
        })
    }

    async fn handshake(
        &self,
        c: &OpensslConnector,
        site: &Site,
    ) -> Result<(Self::Io, ConnInfo), Failure> {
        let tcp = tcp(&site.host, site.port, c.addr).await?;
        let tls_error = |e: &dyn std::fmt::Display| Failure::TlsHandshake(e.to_string());
        let mut ssl = c
            .ssl
            .configure()
            .and_then(|mut conf| {
                conf.set_verify_hostname(c.verify_host);
                conf.into_ssl(&site.host)
            })
            .map_err(|e| tls_error(&e))?;
        if let Some(session) = &c.offer {
            ossl::offer_session(&mut ssl, session).map_err(|e| tls_error(&e))?;
        }
        if c.status_request {
            ssl.set_status_type(StatusType::OCSP)
                .map_err(|e| tls_error(&e))?;
        }
        let mut tls = tokio_openssl::SslStream::new(ssl, tcp).map_err(|e| tls_error(&e))?;
        c.verifier.handshake_started();
        Pin::new(&mut tls)
            .connect()
            .await
            .map_err(|e| tls_error(&e))?;
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
                        .map(|d| certbench_core::der::key_type(&d))
                        .unwrap_or_default()
                })
                .collect(),
            resumed: ssl.session_reused(),
            ..ConnInfo::default()
        };
        Ok((TokioIo::new(tls), info))
    }

    fn verification(&self, c: &OpensslConnector) -> Verification {
        let mut s = lock(&c.state);
        Verification {
            stages: std::mem::take(&mut s.rec),
            rejection: s.rejection.take(),
        }
    }

    fn keep(&self, c: &OpensslConnector, reuse: &mut Option<SslSession>) {
        if let Some(session) = lock(&c.state).session.take() {
            *reuse = Some(session);
        }
    }
}

/// Another owning handle to `store` (its reference count + 1), so that one store built once
/// can go to many connectors ([`connector`] takes its store by value). `None` if OpenSSL
/// refuses the new reference.
pub fn share_store(store: &openssl::x509::store::X509StoreRef) -> Option<X509Store> {
    ossl::share_store(store)
}
