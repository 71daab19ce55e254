//! Every `unsafe` AWS-LC call certbench makes, each with its SAFETY argument.
//!
//! AWS-LC's libcrypto comes with `aws-lc-sys` (already built for rustls' aws-lc-rs provider)
//! under prefixed symbols (`aws_lc_0_47_0_X509_verify_cert`, …), so it links beside the system
//! OpenSSL in one process. Its X.509 API is OpenSSL 1.1.1's; this module wraps the part the
//! `awslc` method needs — DER → `X509`, a store, `X509_verify_cert` with its parameters — in
//! owned types that free what they own, and is used from nowhere else. No callback into Rust
//! is registered, so nothing here can unwind across the FFI boundary.

use std::ffi::{CStr, c_int, c_long, c_ulong, c_void};
use std::ptr;

use aws_lc_sys as sys;

/// What AWS-LC reported when a call failed (its error queue, or the call that failed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AwsLcError(String);

impl AwsLcError {
    /// The first error of this thread's AWS-LC error queue (the rest are cleared), or `what`.
    fn from_queue(what: &str) -> AwsLcError {
        // SAFETY: ERR_get_error only pops this thread's error queue.
        let code = unsafe { sys::ERR_get_error() };
        let message = if code == 0 {
            what.to_owned()
        } else {
            let mut buf = [0u8; 256];
            // SAFETY: `buf` is writable for its whole length, which is passed; AWS-LC writes a
            // NUL-terminated string of at most that length.
            unsafe { sys::ERR_error_string_n(code, buf.as_mut_ptr().cast(), buf.len()) };
            let text = CStr::from_bytes_until_nul(&buf)
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{what}: {text}")
        };
        // SAFETY: clears this thread's queue, so a later failure reports its own error.
        unsafe { sys::ERR_clear_error() };
        AwsLcError(message)
    }
}

/// The AWS-LC version linked, read at run time (e.g. `5.12.0`).
pub fn version() -> String {
    // SAFETY: OpenSSL_version returns a pointer to a static NUL-terminated string.
    let text = unsafe { CStr::from_ptr(sys::OpenSSL_version(sys::OPENSSL_VERSION as c_int)) };
    let text = text.to_string_lossy(); // "OpenSSL 1.1.1 (compatible; AWS-LC 5.12.0)"
    text.split("AWS-LC ")
        .nth(1)
        .map(|v| v.trim_end_matches(')').to_owned())
        .unwrap_or_else(|| text.into_owned())
}

/// A parsed certificate (`X509 *`), freed on drop.
pub struct Cert(*mut sys::X509);

// SAFETY: an X509 is not changed after parsing except for caches AWS-LC fills under its own
// lock (extension caching is thread-safe in AWS-LC, as in OpenSSL 1.1.1), so it may be moved
// to and shared between threads.
unsafe impl Send for Cert {}
unsafe impl Sync for Cert {}

impl Cert {
    /// Parses DER; trailing bytes are an error.
    pub fn from_der(der: &[u8]) -> Result<Cert, AwsLcError> {
        // SAFETY: d2i_X509 and X509_free are a `d2i` and its matching free.
        unsafe { parse(der, "certificate", sys::d2i_X509, sys::X509_free) }.map(Cert)
    }
}

/// One DER object through AWS-LC's `d2i` function `d2i`; trailing bytes are an error (and the
/// object is freed with `free`). `what` names it in errors.
///
/// # Safety
/// `d2i` must be an AWS-LC `d2i_*` function (reads at most `len` bytes from `*inp`, advances it
/// past what it parsed, returns a new object or NULL) and `free` the function that frees what
/// it returns.
unsafe fn parse<T>(
    der: &[u8],
    what: &str,
    d2i: unsafe extern "C" fn(*mut *mut T, *mut *const u8, c_long) -> *mut T,
    free: unsafe extern "C" fn(*mut T),
) -> Result<*mut T, AwsLcError> {
    let len = c_long::try_from(der.len()).map_err(|_| AwsLcError(format!("{what} too large")))?;
    let mut p = der.as_ptr();
    // SAFETY: `p` points at `len` readable bytes; per the contract above, `d2i` reads at most
    // that many and advances `p` past what it parsed. A NULL result is checked below.
    let x = unsafe { d2i(ptr::null_mut(), &mut p, len) };
    if x.is_null() {
        return Err(AwsLcError::from_queue(&format!("not a DER {what}")));
    }
    // SAFETY: both pointers are into (or one past the end of) `der`.
    if unsafe { p.offset_from(der.as_ptr()) } != der.len() as isize {
        // SAFETY: `x` came from `d2i` and is freed once, here.
        unsafe { free(x) };
        return Err(AwsLcError(format!("trailing data after the {what}")));
    }
    Ok(x)
}

impl Drop for Cert {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from d2i_X509 and is freed once, here.
        unsafe { sys::X509_free(self.0) }
    }
}

/// A parsed CRL (`X509_CRL *`), freed on drop.
pub struct Crl(*mut sys::X509_CRL);

// SAFETY: as for `Cert`: not changed after parsing but under AWS-LC's own locks.
unsafe impl Send for Crl {}
unsafe impl Sync for Crl {}

impl Crl {
    /// Parses DER; trailing bytes are an error.
    pub fn from_der(der: &[u8]) -> Result<Crl, AwsLcError> {
        // SAFETY: d2i_X509_CRL and X509_CRL_free are a `d2i` and its matching free.
        unsafe { parse(der, "CRL", sys::d2i_X509_CRL, sys::X509_CRL_free) }.map(Crl)
    }
}

impl Drop for Crl {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from d2i_X509_CRL and is freed once, here.
        unsafe { sys::X509_CRL_free(self.0) }
    }
}

/// A trust store (`X509_STORE *`), freed on drop.
pub struct Store(*mut sys::X509_STORE);

// SAFETY: AWS-LC locks an X509_STORE internally; verifications may share one from several
// threads (what a connector does). certbench never changes a store after building it.
unsafe impl Send for Store {}
unsafe impl Sync for Store {}

impl Store {
    /// A store trusting `roots`.
    pub fn new(roots: &[Cert]) -> Result<Store, AwsLcError> {
        // SAFETY: X509_STORE_new has no preconditions; NULL is checked.
        let s = unsafe { sys::X509_STORE_new() };
        if s.is_null() {
            return Err(AwsLcError::from_queue("X509_STORE_new"));
        }
        let store = Store(s);
        for root in roots {
            // SAFETY: both pointers are valid; X509_STORE_add_cert takes its own reference to
            // the certificate (the `Cert` keeps ours). Adding a duplicate is not an error.
            if unsafe { sys::X509_STORE_add_cert(store.0, root.0) } != 1 {
                return Err(AwsLcError::from_queue("X509_STORE_add_cert"));
            }
        }
        Ok(store)
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from X509_STORE_new and is released once, here.
        unsafe { sys::X509_STORE_free(self.0) }
    }
}

/// A `STACK_OF(T)` borrowing its elements: it frees only itself.
struct BorrowedStack<'a, T> {
    sk: *mut sys::OPENSSL_STACK,
    _items: std::marker::PhantomData<&'a [T]>,
}

impl<'a, T> BorrowedStack<'a, T> {
    fn new(items: impl Iterator<Item = *mut c_void>) -> Result<BorrowedStack<'a, T>, AwsLcError> {
        // SAFETY: no preconditions; NULL is checked.
        let sk = unsafe { sys::OPENSSL_sk_new_null() };
        if sk.is_null() {
            return Err(AwsLcError::from_queue("sk_new_null"));
        }
        let stack = BorrowedStack {
            sk,
            _items: std::marker::PhantomData,
        };
        for item in items {
            // SAFETY: `sk` is a valid stack; the pointer is kept alive for `'a` by the caller's
            // borrow, and the stack never frees it. 0 means the push failed.
            if unsafe { sys::OPENSSL_sk_push(stack.sk, item) } == 0 {
                return Err(AwsLcError::from_queue("sk_push"));
            }
        }
        Ok(stack)
    }
}

impl<T> Drop for BorrowedStack<'_, T> {
    fn drop(&mut self) {
        // SAFETY: frees the stack only, not its (borrowed) elements.
        unsafe { sys::OPENSSL_sk_free(self.sk) }
    }
}

/// The peer name to check, as `X509_VERIFY_PARAM` takes it.
#[derive(Clone, Copy, Debug)]
pub enum Name<'a> {
    /// A DNS name (no partial wildcards: AWS-LC never accepts them).
    Dns(&'a str),
    /// An IP address, 4 or 16 octets.
    Ip(&'a [u8]),
    /// An email address.
    Email(&'a str),
}

/// The parameters of one verification, set on its context (never on the shared store).
#[derive(Clone, Copy, Debug, Default)]
pub struct Params<'a> {
    /// Validation time (POSIX seconds); `None`: time not checked (`X509_V_FLAG_NO_CHECK_TIME`).
    pub time: Option<i64>,
    /// `X509_PURPOSE_*` (e.g. [`SSL_SERVER`]); `None`: any.
    pub purpose: Option<c_int>,
    /// The peer name.
    pub name: Option<Name<'a>>,
    /// Longest chain (`X509_VERIFY_PARAM_set_depth`).
    pub depth: Option<c_int>,
}

/// `X509_PURPOSE_SSL_SERVER`.
pub const SSL_SERVER: c_int = sys::X509_PURPOSE_SSL_SERVER as c_int;
/// `X509_PURPOSE_SSL_CLIENT`.
pub const SSL_CLIENT: c_int = sys::X509_PURPOSE_SSL_CLIENT as c_int;

/// Why `X509_verify_cert` said no: its error string and the depth it stopped at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `X509_verify_cert_error_string` of the context's error.
    pub reason: String,
    /// `X509_STORE_CTX_get_error_depth`.
    pub depth: i32,
}

/// The verdict of [`verify`]: `Ok(Ok(()))` accepted, `Ok(Err(refusal))` rejected by
/// `X509_verify_cert`, `Err` when the verification could not be set up.
pub type Verdict = Result<Result<(), Refusal>, AwsLcError>;

/// `X509_verify_cert` of `leaf` with `untrusted` intermediates against `store`, with `params`,
/// `X509_V_FLAG_PARTIAL_CHAIN` (every trusted certificate is an anchor, as in webpki and the
/// `openssl` method) and, when `crls` is not empty, CRL checks of the whole chain.
pub fn verify(
    store: &Store,
    leaf: &Cert,
    untrusted: &[Cert],
    crls: &[Crl],
    params: &Params<'_>,
) -> Verdict {
    let chain = BorrowedStack::<Cert>::new(untrusted.iter().map(|c| c.0.cast()))?;
    let crl_stack = BorrowedStack::<Crl>::new(crls.iter().map(|c| c.0.cast()))?;
    // SAFETY: no preconditions; NULL is checked. Freed by `Ctx`'s drop.
    let ctx = Ctx(unsafe { sys::X509_STORE_CTX_new() });
    if ctx.0.is_null() {
        return Err(AwsLcError::from_queue("X509_STORE_CTX_new"));
    }
    // SAFETY: every pointer is valid and outlives `ctx` (declared after them, dropped first);
    // the context takes references, it does not free the store, leaf or stack.
    if unsafe { sys::X509_STORE_CTX_init(ctx.0, store.0, leaf.0, chain.sk.cast()) } != 1 {
        return Err(AwsLcError::from_queue("X509_STORE_CTX_init"));
    }
    // SAFETY: `ctx` is initialised; the parameters it returns belong to it (not to the store)
    // and live as long as it does.
    let param = unsafe { sys::X509_STORE_CTX_get0_param(ctx.0) };
    if param.is_null() {
        return Err(AwsLcError("the store context has no parameters".into()));
    }
    let mut flags = sys::X509_V_FLAG_PARTIAL_CHAIN as c_ulong;
    match params.time {
        // SAFETY: `param` is valid (above).
        Some(t) => unsafe { sys::X509_VERIFY_PARAM_set_time_posix(param, t) },
        None => flags |= sys::X509_V_FLAG_NO_CHECK_TIME as c_ulong,
    }
    if !crls.is_empty() {
        flags |= (sys::X509_V_FLAG_CRL_CHECK | sys::X509_V_FLAG_CRL_CHECK_ALL) as c_ulong;
        // SAFETY: `crl_stack` outlives `ctx` (declared before it); set0 does not free it
        // (AWS-LC's X509_STORE_CTX_set0_crls only stores the pointer).
        unsafe { sys::X509_STORE_CTX_set0_crls(ctx.0, crl_stack.sk.cast()) };
    }
    // SAFETY: `param` is valid; the calls below copy what they are given.
    unsafe {
        if sys::X509_VERIFY_PARAM_set_flags(param, flags) != 1 {
            return Err(AwsLcError::from_queue("X509_VERIFY_PARAM_set_flags"));
        }
        if let Some(purpose) = params.purpose
            && sys::X509_VERIFY_PARAM_set_purpose(param, purpose) != 1
        {
            return Err(AwsLcError::from_queue("X509_VERIFY_PARAM_set_purpose"));
        }
        if let Some(depth) = params.depth {
            sys::X509_VERIFY_PARAM_set_depth(param, depth);
        }
        let set = match params.name {
            Some(Name::Dns(host)) => {
                sys::X509_VERIFY_PARAM_set1_host(param, host.as_ptr().cast(), host.len())
            }
            Some(Name::Ip(ip)) => sys::X509_VERIFY_PARAM_set1_ip(param, ip.as_ptr(), ip.len()),
            Some(Name::Email(email)) => {
                sys::X509_VERIFY_PARAM_set1_email(param, email.as_ptr().cast(), email.len())
            }
            None => 1,
        };
        if set != 1 {
            return Err(AwsLcError::from_queue("peer name not accepted"));
        }
    }
    // SAFETY: `ctx` is initialised and configured; everything it points to is alive.
    let ok = unsafe { sys::X509_verify_cert(ctx.0) };
    if ok == 1 {
        return Ok(Ok(()));
    }
    // SAFETY: reading the context's error fields; the error string is static.
    let (err, depth) = unsafe {
        (
            sys::X509_STORE_CTX_get_error(ctx.0),
            sys::X509_STORE_CTX_get_error_depth(ctx.0),
        )
    };
    // SAFETY: returns a pointer to a static NUL-terminated string for any code.
    let reason = unsafe { CStr::from_ptr(sys::X509_verify_cert_error_string(c_long::from(err))) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: clears this thread's AWS-LC error queue (X509_verify_cert may leave entries).
    unsafe { sys::ERR_clear_error() };
    Ok(Err(Refusal { reason, depth }))
}

/// An `X509_STORE_CTX *`, freed on drop.
struct Ctx(*mut sys::X509_STORE_CTX);

impl Drop for Ctx {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: came from X509_STORE_CTX_new, freed once (it cleans itself up first).
            unsafe { sys::X509_STORE_CTX_free(self.0) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_read_from_the_library() {
        let v = version();
        assert!(v.chars().next().is_some_and(|c| c.is_ascii_digit()), "{v}");
    }

    #[test]
    fn bad_der_is_an_error_not_a_crash() {
        assert!(Cert::from_der(b"").is_err());
        assert!(Cert::from_der(b"\x30\x03\x02\x01").is_err());
        let e = Cert::from_der(b"junk").err().unwrap();
        assert!(e.to_string().contains("not a DER certificate"), "{e}");
    }
}
