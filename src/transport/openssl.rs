//! The seed's stack: a hyper 1 HTTP/1.1 client over OpenSSL (tokio-openssl), one fresh
//! connection per sample, with the certificate verification hooked in one of three ways.
//!
//! - [`Hook::Native`] (`openssl`): OpenSSL verifies. libssl runs `X509_verify_cert` inside the
//!   handshake, before any `set_verify_callback` runs; certbench times it where it happens, by
//!   installing `SSL_CTX_set_cert_verify_callback` with a wrapper that calls it (`verify`).
//! - [`Hook::Callback`] (a webpki method, the seed's way): OpenSSL's own verification still
//!   runs (timed as `openssl-verify`), and at depth 0 the `set_verify_callback` converts the
//!   chain to DER (`chain-creation`) and calls webpki (`verify`, `verify-hostname`), whose
//!   verdict decides.
//! - [`Hook::Replace`] (a webpki method, what a browser should do): the cert-verify callback
//!   replaces `X509_verify_cert` entirely with webpki; OpenSSL verifies nothing.
//!
//! In every hook `total-verification` is the whole span of the cert-verify callback. A panic
//! or an error in any hook rejects the chain (fail closed).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use certbench_analysis::Stage;
use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode};
use openssl::x509::X509StoreContextRef;
use openssl::x509::store::X509Store;
use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::methods::{AnyRoots, DynVerifier, Rejection, Target};
use crate::ossl;
use crate::stages::Recorder;

/// How a webpki method is put into OpenSSL's handshake (`--hook`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HookMode {
    /// `set_verify_callback` at depth 0, after OpenSSL's own verification (the seed's way).
    Callback,
    /// `SSL_CTX_set_cert_verify_callback`: webpki instead of `X509_verify_cert`.
    Replace,
}

impl HookMode {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            HookMode::Callback => "callback",
            HookMode::Replace => "replace",
        }
    }
}

/// How verification happens in one connector.
pub enum Hook {
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
    catch_unwind(AssertUnwindSafe(|| {
        verifier.verify(roots, &chain, target, rec)
    }))
    .unwrap_or_else(|panic| {
        Err(Rejection::new(format!(
            "verifier panicked: {}",
            panic_message(&panic)
        )))
    })
}

/// The message of a panic payload.
fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned())
}

/// Builds a connector for one sample. `store` is OpenSSL's trust store (unused by
/// [`Hook::Replace`]); `host` and `time` are what webpki checks. With `resumption`, the
/// sessions the server gives land in `state.session`; without, no session is kept.
///
/// Invariant relied on by `ossl::offer_session`: no session ever enters this context's
/// internal session cache.
pub fn connector(
    hook: Hook,
    store: Option<X509Store>,
    host: &str,
    time: u64,
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
    let host = host.to_owned();
    match hook {
        Hook::Native => {
            let st = state.clone();
            ossl::set_cert_verify_callback(
                &mut b,
                Box::new(move |ctx| {
                    let mut s = lock(&st);
                    let span = s.rec.start();
                    let ok = ctx.verify_cert().unwrap_or(false);
                    let ns = s.rec.stop(Stage::Verify, span);
                    s.rec.add(Stage::TotalVerification, ns);
                    if !ok {
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
        Hook::Callback(verifier, roots) => {
            let (st, h) = (state.clone(), host.clone());
            b.set_verify_callback(SslVerifyMode::PEER, move |_preverify_ok, ctx| {
                catch_unwind(AssertUnwindSafe(|| {
                    if ctx.error_depth() != 0 {
                        return true; // webpki decides for the whole chain at depth 0
                    }
                    let mut s = lock(&st);
                    if let Some(done) = s.webpki {
                        return done;
                    }
                    let span = s.rec.start();
                    let target = Target::server(&h, time);
                    let result = webpki(verifier.as_ref(), &roots, ctx, target, &mut s.rec);
                    s.inner_ns += span.elapsed_ns();
                    let ok = result.is_ok();
                    if let Err(r) = result {
                        s.rejection = Some(r.reason);
                    }
                    s.webpki = Some(ok);
                    ok
                }))
                .unwrap_or(false)
            });
            let st = state.clone();
            ossl::set_cert_verify_callback(
                &mut b,
                Box::new(move |ctx| {
                    let span = lock(&st).rec.start();
                    let ok = ctx.verify_cert().unwrap_or(false);
                    let outer = span.elapsed_ns();
                    let mut s = lock(&st);
                    let own = outer.saturating_sub(s.inner_ns);
                    s.rec.add(Stage::OpenSslVerify, own);
                    s.rec.add(Stage::TotalVerification, outer);
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
        Hook::Replace(verifier, roots) => {
            let (st, h) = (state.clone(), host.clone());
            ossl::set_cert_verify_callback(
                &mut b,
                Box::new(move |ctx| {
                    let mut s = lock(&st);
                    let span = s.rec.start();
                    let target = Target::server(&h, time);
                    let result = webpki(verifier.as_ref(), &roots, ctx, target, &mut s.rec);
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
    }
    Ok(b.build())
}

/// Another owning handle to `store` (its reference count + 1), so that one store built once
/// can go to many connectors ([`connector`] takes its store by value). `None` if OpenSSL
/// refuses the new reference.
pub fn share_store(store: &openssl::x509::store::X509StoreRef) -> Option<X509Store> {
    ossl::share_store(store)
}
