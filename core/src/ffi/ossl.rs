//! Every `unsafe` OpenSSL call certbench makes, each with its SAFETY argument.
//!
//! rust-openssl does not wrap everything certbench needs. Functions are declared here, wrapped
//! in safe functions whose signatures tie every borrowed pointer to a Rust lifetime, and used
//! from nowhere else.

use foreign_types_shared::ForeignTypeRef;
use openssl::x509::X509StoreContextRef;
use openssl::x509::verify::X509VerifyParamRef;
use openssl_sys::{X509_STORE_CTX, X509_VERIFY_PARAM};

unsafe extern "C" {
    /// `X509_VERIFY_PARAM *X509_STORE_CTX_get0_param(const X509_STORE_CTX *ctx);` (OpenSSL ≥ 1.1)
    fn X509_STORE_CTX_get0_param(ctx: *mut X509_STORE_CTX) -> *mut X509_VERIFY_PARAM;
}

/// The verification parameters of an initialised store context, to set the validation time,
/// host, flags and purpose for this one verification (the store's own defaults stay as they
/// are, so a shared store is never changed by a verification).
///
/// `None` if the context has no parameters (it was not initialised).
pub fn store_ctx_param_mut(ctx: &mut X509StoreContextRef) -> Option<&mut X509VerifyParamRef> {
    // SAFETY: `ctx.as_ptr()` is a valid X509_STORE_CTX for as long as the `&mut` borrow lives.
    // X509_STORE_CTX_get0_param only reads a field; it returns either NULL (checked below) or
    // a pointer owned by the context, valid until the context is cleaned up, which cannot
    // happen while we hold `&mut ctx`. The returned reference borrows `ctx` mutably, so it
    // neither outlives the context nor aliases another mutable borrow of it.
    unsafe {
        let p = X509_STORE_CTX_get0_param(ctx.as_ptr());
        if p.is_null() {
            None
        } else {
            Some(X509VerifyParamRef::from_ptr_mut(p))
        }
    }
}

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use openssl::ex_data::Index;
use openssl::ssl::{SslContext, SslContextBuilder};
use openssl::stack::StackRef;
use openssl::x509::{X509, X509Ref, X509StoreContext, X509VerifyResult};
use openssl_sys::{SSL_CTX, stack_st_X509};

unsafe extern "C" {
    /// `void SSL_CTX_set_cert_verify_callback(SSL_CTX *ctx,
    ///     int (*cb)(X509_STORE_CTX *, void *), void *arg);`
    fn SSL_CTX_set_cert_verify_callback(
        ctx: *mut SSL_CTX,
        cb: Option<unsafe extern "C" fn(*mut X509_STORE_CTX, *mut c_void) -> c_int>,
        arg: *mut c_void,
    );
    /// `X509 *X509_STORE_CTX_get0_cert(const X509_STORE_CTX *ctx);`
    fn X509_STORE_CTX_get0_cert(ctx: *mut X509_STORE_CTX) -> *mut openssl_sys::X509;
    /// `STACK_OF(X509) *X509_STORE_CTX_get0_untrusted(const X509_STORE_CTX *ctx);`
    fn X509_STORE_CTX_get0_untrusted(ctx: *mut X509_STORE_CTX) -> *mut stack_st_X509;
    /// `int X509_STORE_up_ref(X509_STORE *v);` (1 on success)
    fn X509_STORE_up_ref(v: *mut openssl_sys::X509_STORE) -> c_int;
}

/// What replaces `X509_verify_cert` in a handshake: returns true to accept the peer's chain.
/// It may call [`X509StoreContextRef::verify_cert`] itself to run OpenSSL's own verification.
pub type CertVerifyFn = dyn Fn(&mut X509StoreContextRef) -> bool + Send + Sync;

fn cert_verify_index() -> Index<SslContext, Box<CertVerifyFn>> {
    static INDEX: OnceLock<Index<SslContext, Box<CertVerifyFn>>> = OnceLock::new();
    *INDEX.get_or_init(|| SslContext::new_ex_index().expect("an SSL_CTX ex_data index"))
}

/// Installs `f` with `SSL_CTX_set_cert_verify_callback`: in every handshake made with this
/// context, libssl calls `f` instead of `X509_verify_cert`.
///
/// Fail closed: if `f` panics, or its state cannot be found, the chain is rejected
/// (`X509_V_ERR_APPLICATION_VERIFICATION`) and no unwinding crosses into C.
pub fn set_cert_verify_callback(builder: &mut SslContextBuilder, f: Box<CertVerifyFn>) {
    // The context owns the closure through its ex_data: it lives as long as the SSL_CTX, and
    // every SSL made from the context holds a reference to the SSL_CTX.
    builder.set_ex_data(cert_verify_index(), f);
    // SAFETY: `builder.as_ptr()` is a valid SSL_CTX. The callback is a plain function that
    // finds its state through ex_data (the `arg` pointer is unused and null).
    unsafe {
        SSL_CTX_set_cert_verify_callback(
            builder.as_ptr(),
            Some(cert_verify_trampoline),
            std::ptr::null_mut(),
        );
    }
}

unsafe extern "C" fn cert_verify_trampoline(ctx: *mut X509_STORE_CTX, _arg: *mut c_void) -> c_int {
    let outcome = crate::fail_closed::run(|| {
        // SAFETY: libssl calls this with the handshake's initialised X509_STORE_CTX, valid for
        // the duration of the call; we make the only reference to it here.
        let ctx = unsafe { X509StoreContextRef::from_ptr_mut(ctx) };
        let f: *const Box<CertVerifyFn> = {
            let ssl = X509StoreContext::ssl_idx()
                .ok()
                .and_then(|i| ctx.ex_data(i));
            match ssl.and_then(|ssl| ssl.ssl_context().ex_data(cert_verify_index())) {
                Some(f) => f,
                None => return false,
            }
        };
        // SAFETY: `f` lives in the SSL_CTX's ex_data, and the SSL_CTX outlives this call (the
        // SSL being verified holds a reference to it). The shared borrow of `ctx` used to find
        // it has ended, so passing `ctx` mutably aliases nothing the closure can reach.
        let f = unsafe { &*f };
        f(ctx)
    });
    match outcome {
        Ok(true) => 1,
        Ok(false) => 0,
        Err(_) => {
            // SAFETY: as above, `ctx` is valid for this call; the panic is over.
            let ctx = unsafe { X509StoreContextRef::from_ptr_mut(ctx) };
            ctx.set_error(X509VerifyResult::APPLICATION_VERIFICATION);
            0
        }
    }
}

/// The certificate being verified and the untrusted certificates the peer sent (libssl puts
/// the whole peer chain, leaf included, in the untrusted stack).
pub fn peer_certs(ctx: &mut X509StoreContextRef) -> (Option<&X509Ref>, Option<&StackRef<X509>>) {
    // SAFETY: `ctx` is a valid X509_STORE_CTX for the borrow. Both getters return pointers
    // owned by the context (or NULL, checked), valid while the context is; the returned
    // references borrow `ctx`.
    unsafe {
        let cert = X509_STORE_CTX_get0_cert(ctx.as_ptr());
        let untrusted = X509_STORE_CTX_get0_untrusted(ctx.as_ptr());
        (
            (!cert.is_null()).then(|| X509Ref::from_ptr(cert)),
            (!untrusted.is_null()).then(|| StackRef::from_ptr(untrusted)),
        )
    }
}

/// Another owning handle to the same `X509_STORE` (reference count + 1), so that one store
/// built once can be handed to many `SSL_CTX`s (`set_cert_store` takes ownership).
/// `None` if OpenSSL refuses the new reference.
pub fn share_store(
    store: &openssl::x509::store::X509StoreRef,
) -> Option<openssl::x509::store::X509Store> {
    use foreign_types_shared::ForeignType;
    // SAFETY: `store.as_ptr()` is a valid X509_STORE. After X509_STORE_up_ref succeeds we own
    // one more reference, which `X509Store::from_ptr` takes over (and frees on drop).
    unsafe {
        let p = store.as_ptr();
        (X509_STORE_up_ref(p) == 1).then(|| openssl::x509::store::X509Store::from_ptr(p))
    }
}

/// Offers `session` (from an earlier connection to the same server) for resumption.
///
/// rust-openssl makes `SslRef::set_session` unsafe because OpenSSL requires a session to be
/// used with one `SSL_CTX` only: a session inserted into a context's session cache is linked
/// into that cache's list. certbench's client contexts never store sessions in a cache: they
/// run with caching off, or, with `--tls-resumption`, with `CLIENT | NO_INTERNAL_STORE`, which
/// hands each new session to a callback and links it into nothing (see
/// `transport::openssl::connector`). So offering such a session on an `SSL` of another such
/// context is sound: OpenSSL only reads it and takes its own reference.
pub fn offer_session(
    ssl: &mut openssl::ssl::SslRef,
    session: &openssl::ssl::SslSessionRef,
) -> Result<(), openssl::error::ErrorStack> {
    // SAFETY: see above; callers only pass sessions received through the new-session callback
    // of a connector made by `transport::openssl::connector`, on an `ssl` made by another.
    unsafe { ssl.set_session(session) }
}

unsafe extern "C" {
    /// `void X509_STORE_CTX_set0_crls(X509_STORE_CTX *ctx, STACK_OF(X509_CRL) *sk);`
    fn X509_STORE_CTX_set0_crls(ctx: *mut X509_STORE_CTX, sk: *mut openssl_sys::stack_st_X509_CRL);
}

/// A `STACK_OF(X509_CRL)` borrowing CRLs owned by Rust (the stack holds no references of its
/// own: it is freed with `OPENSSL_sk_free`, never `pop_free`).
pub struct CrlStack<'a> {
    sk: *mut openssl_sys::OPENSSL_STACK,
    _crls: std::marker::PhantomData<&'a [openssl::x509::X509Crl]>,
}

impl<'a> CrlStack<'a> {
    /// A stack of `crls`, in order.
    pub fn new(
        crls: &'a [openssl::x509::X509Crl],
    ) -> Result<CrlStack<'a>, openssl::error::ErrorStack> {
        use foreign_types_shared::ForeignType;
        // SAFETY: OPENSSL_sk_new_null returns a new empty stack or NULL (checked). Each push
        // stores a pointer to a live X509_CRL owned by `crls`, which the PhantomData borrow
        // keeps alive (and unmoved: X509Crl is a pointer) for as long as the stack exists. On
        // a failed push the stack is freed here; `Drop` frees it otherwise.
        unsafe {
            let sk = openssl_sys::OPENSSL_sk_new_null();
            if sk.is_null() {
                return Err(openssl::error::ErrorStack::get());
            }
            let stack = CrlStack {
                sk,
                _crls: std::marker::PhantomData,
            };
            for crl in crls {
                if openssl_sys::OPENSSL_sk_push(sk, crl.as_ptr() as *const c_void) <= 0 {
                    return Err(openssl::error::ErrorStack::get());
                }
            }
            Ok(stack)
        }
    }
}

impl Drop for CrlStack<'_> {
    fn drop(&mut self) {
        // SAFETY: `sk` came from OPENSSL_sk_new_null and is freed once, here. Its elements are
        // borrowed, so they are not freed.
        unsafe { openssl_sys::OPENSSL_sk_free(self.sk) }
    }
}

/// Makes `ctx` check revocation against `crls` (with `X509_V_FLAG_CRL_CHECK*` set by the
/// caller). The stack must outlive every use of `ctx`: the borrow of `crls` ties it to the
/// caller's scope, and the caller initialises and cleans up `ctx` within that scope.
pub fn set0_crls(ctx: &mut X509StoreContextRef, crls: &CrlStack<'_>) {
    // SAFETY: `ctx` is a valid, initialised X509_STORE_CTX for the borrow. set0 stores the
    // pointer without taking ownership (X509_STORE_CTX_cleanup does not free it); the stack
    // and its CRLs outlive the verification because `X509StoreContextRef::init`'s closure,
    // where this is called, cleans the context up before `crls` can be dropped.
    unsafe {
        X509_STORE_CTX_set0_crls(ctx.as_ptr(), crls.sk as *mut openssl_sys::stack_st_X509_CRL)
    }
}
