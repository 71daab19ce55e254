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
pub(crate) fn store_ctx_param_mut(
    ctx: &mut X509StoreContextRef,
) -> Option<&mut X509VerifyParamRef> {
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
