//! The libssl callbacks a connector's hook installs: `openssl` timed where libssl runs it,
//! a method after OpenSSL's own verification (callback) or instead of it (replace), and what
//! they record in one handshake ([`HookState`]). Every hook fails closed: a panic or an error
//! is a rejection.

use std::sync::{Arc, Mutex};

use certbench_core::Checks;
use certbench_core::chain::Chain;
use certbench_core::fail_closed;
use certbench_core::ffi::ossl;
use certbench_core::methods::openssl::OpenSslVerifier;
use certbench_core::methods::{AnyRoots, DynVerifier};
use certbench_core::stages::Recorder;
use certbench_core::verifier::{Rejection, Target};
use certbench_schema::Stage;
use openssl::ssl::{SslConnectorBuilder, SslRef, SslVerifyMode};
use openssl::x509::{X509StoreContext, X509StoreContextRef};
use rustls_pki_types::CertificateDer;

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
pub(super) fn lock(state: &Mutex<HookState>) -> std::sync::MutexGuard<'_, HookState> {
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
pub(super) fn install_native(
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
pub(super) struct HookedMethod {
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
    pub(super) fn new(
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
pub(super) fn install_callback(
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
pub(super) fn install_replace(
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
