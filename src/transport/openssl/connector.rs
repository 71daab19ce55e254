//! The `SslConnector` of one sample: its session handling, trust store and hook.

use std::sync::{Arc, Mutex};

use certbench_core::Checks;
use certbench_core::ffi::ossl;
use certbench_core::methods::{AnyRoots, DynVerifier};
use openssl::ssl::{SslConnector, SslMethod};
use openssl::x509::store::X509Store;

use super::hooks::{
    HookState, HookedMethod, install_callback, install_native, install_replace, lock,
};

/// How verification happens in one connector.
pub enum ConnectorHook {
    /// OpenSSL's own `X509_verify_cert`, timed.
    Native,
    /// A webpki method after OpenSSL's own verification.
    Callback(Arc<dyn DynVerifier>, Arc<AnyRoots>),
    /// A webpki method instead of OpenSSL's verification.
    Replace(Arc<dyn DynVerifier>, Arc<AnyRoots>),
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

/// Another owning handle to `store` (its reference count + 1), so that one store built once
/// can go to many connectors ([`connector`] takes its store by value). `None` if OpenSSL
/// refuses the new reference.
pub fn share_store(store: &openssl::x509::store::X509StoreRef) -> Option<X509Store> {
    ossl::share_store(store)
}
