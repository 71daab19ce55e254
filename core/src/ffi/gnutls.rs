//! Every `unsafe` GnuTLS call certbench makes, each with its SAFETY argument.
//!
//! GnuTLS (Debian's `libgnutls28-dev`, linked dynamically) is what WebKitGTK and Epiphany
//! verify with, through glib-networking. This module wraps what the `gnutls` method needs —
//! DER → `gnutls_x509_crt_t`, a trust list, `gnutls_x509_trust_list_verify_crt`, the host
//! checks — in owned types that free what they own, and is used from nowhere else. GnuTLS is
//! C: nothing here can throw, and no Rust callback is registered but the time function
//! ([`with_time`]), which cannot panic.
//!
//! GnuTLS has no validation-time argument: verification reads the process-wide time function
//! (`gnutls_global_set_time_function`). certbench installs one, once, that returns this
//! thread's validation time while [`with_time`] runs, and the real time otherwise.

use std::cell::Cell;
use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::ptr;
use std::sync::Once;

type Crt = *mut c_void;
type TrustList = *mut c_void;
type TimeT = i64;

#[repr(C)]
struct Datum {
    data: *mut u8,
    size: c_uint,
}

const GNUTLS_X509_FMT_DER: c_int = 0;
const GNUTLS_CRT_X509: c_int = 1;

#[link(name = "gnutls")]
unsafe extern "C" {
    fn gnutls_check_version(req: *const c_char) -> *const c_char;
    fn gnutls_strerror(error: c_int) -> *const c_char;
    fn gnutls_global_set_time_function(f: unsafe extern "C" fn(*mut TimeT) -> TimeT);
    fn gnutls_x509_crt_init(cert: *mut Crt) -> c_int;
    fn gnutls_x509_crt_deinit(cert: Crt);
    fn gnutls_x509_crt_import(cert: Crt, data: *const Datum, format: c_int) -> c_int;
    fn gnutls_x509_crt_check_hostname2(cert: Crt, hostname: *const c_char, flags: c_uint)
    -> c_uint;
    fn gnutls_x509_crt_check_issuer(cert: Crt, issuer: Crt) -> c_uint;
    fn gnutls_x509_crt_check_ip(cert: Crt, ip: *const u8, size: c_uint, flags: c_uint) -> c_uint;
    fn gnutls_x509_trust_list_init(list: *mut TrustList, size: c_uint) -> c_int;
    fn gnutls_x509_trust_list_deinit(list: TrustList, all: c_uint);
    fn gnutls_x509_trust_list_add_cas(
        list: TrustList,
        clist: *const Crt,
        clist_size: c_uint,
        flags: c_uint,
    ) -> c_int;
    fn gnutls_x509_trust_list_verify_crt(
        list: TrustList,
        cert_list: *mut Crt,
        cert_list_size: c_uint,
        flags: c_uint,
        voutput: *mut c_uint,
        func: *const c_void,
    ) -> c_int;
    fn gnutls_certificate_verification_status_print(
        status: c_uint,
        kind: c_int,
        out: *mut Datum,
        flags: c_uint,
    ) -> c_int;
    static gnutls_free: Option<unsafe extern "C" fn(*mut c_void)>;
}

/// What GnuTLS reported when a call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GnutlsError(String);

impl GnutlsError {
    fn code(what: &str, code: c_int) -> GnutlsError {
        // SAFETY: gnutls_strerror returns a static NUL-terminated string for any code.
        let text = unsafe { CStr::from_ptr(gnutls_strerror(code)) };
        GnutlsError(format!("{what}: {}", text.to_string_lossy()))
    }
}

/// The GnuTLS version linked, read at run time (e.g. `3.7.9`).
pub fn version() -> String {
    // SAFETY: with NULL, gnutls_check_version returns the static version string.
    let v = unsafe { gnutls_check_version(ptr::null()) };
    if v.is_null() {
        return "unknown".to_owned();
    }
    // SAFETY: non-NULL: a static NUL-terminated string.
    unsafe { CStr::from_ptr(v) }.to_string_lossy().into_owned()
}

thread_local! {
    /// This thread's validation time while [`with_time`] runs.
    static NOW: Cell<Option<TimeT>> = const { Cell::new(None) };
}

/// The time function GnuTLS reads: this thread's validation time, else the real time.
unsafe extern "C" fn validation_time(t: *mut TimeT) -> TimeT {
    let now = NOW.try_with(Cell::get).ok().flatten().unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as TimeT)
    });
    if !t.is_null() {
        // SAFETY: `time(3)`'s contract, which GnuTLS follows: a non-NULL `t` is writable.
        unsafe { *t = now };
    }
    now
}

/// Runs `f` with GnuTLS's clock reading `time` on this thread.
pub fn with_time<R>(time: i64, f: impl FnOnce() -> R) -> R {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // SAFETY: installs a function that matches `gnutls_time_func` and never unwinds.
        unsafe { gnutls_global_set_time_function(validation_time) }
    });
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            NOW.with(|n| n.set(None));
        }
    }
    NOW.with(|n| n.set(Some(time)));
    let _reset = Reset;
    f()
}

/// A parsed certificate (`gnutls_x509_crt_t`), freed on drop.
pub struct Cert(Crt);

// SAFETY: a parsed certificate is not changed by verification or host checks (GnuTLS reads
// it), so it may move between threads; it is used by one thread at a time (not Sync).
unsafe impl Send for Cert {}

impl Cert {
    /// Parses DER.
    pub fn from_der(der: &[u8]) -> Result<Cert, GnutlsError> {
        let size = c_uint::try_from(der.len())
            .map_err(|_| GnutlsError("certificate too large".to_owned()))?;
        let mut crt: Crt = ptr::null_mut();
        // SAFETY: `crt` is writable; on success it holds a new certificate, freed by Drop.
        let rc = unsafe { gnutls_x509_crt_init(&mut crt) };
        if rc < 0 {
            return Err(GnutlsError::code("gnutls_x509_crt_init", rc));
        }
        let cert = Cert(crt);
        let datum = Datum {
            data: der.as_ptr().cast_mut(),
            size,
        };
        // SAFETY: `datum` points at `size` readable bytes, which GnuTLS only reads (it copies
        // what it keeps); `cert.0` is a live certificate.
        let rc = unsafe { gnutls_x509_crt_import(cert.0, &datum, GNUTLS_X509_FMT_DER) };
        if rc < 0 {
            return Err(GnutlsError::code("not a DER certificate", rc));
        }
        Ok(cert)
    }

    /// Whether the certificate is valid for DNS name `host` (`gnutls_x509_crt_check_hostname2`).
    pub fn matches_host(&self, host: &str) -> bool {
        let Ok(host) = CString::new(host) else {
            return false; // a NUL inside: no name matches
        };
        // SAFETY: a live certificate and a NUL-terminated name.
        unsafe { gnutls_x509_crt_check_hostname2(self.0, host.as_ptr(), 0) != 0 }
    }

    /// Whether `issuer`'s subject and key identifiers name it as this certificate's issuer
    /// (`gnutls_x509_crt_check_issuer`: names only, no signature check).
    pub fn issued_by(&self, issuer: &Cert) -> bool {
        // SAFETY: two live certificates, only read.
        unsafe { gnutls_x509_crt_check_issuer(self.0, issuer.0) != 0 }
    }

    /// Whether the certificate is valid for IP address `ip` (4 or 16 bytes).
    pub fn matches_ip(&self, ip: &[u8]) -> bool {
        // SAFETY: a live certificate and `ip.len()` readable bytes (4 or 16, so it fits).
        unsafe { gnutls_x509_crt_check_ip(self.0, ip.as_ptr(), ip.len() as c_uint, 0) != 0 }
    }
}

impl Drop for Cert {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from gnutls_x509_crt_init and is freed once, here (a
        // certificate handed to a trust list is never wrapped in a `Cert` again).
        unsafe { gnutls_x509_crt_deinit(self.0) }
    }
}

/// A trust list (`gnutls_x509_trust_list_t`) that owns its anchors, freed on drop.
pub struct Trust(TrustList);

// SAFETY: the list is not changed after `Trust::new` returns; GnuTLS's verification only reads
// it (glib-networking holds a mutex around it because its database is a global it may still
// be filling; certbench's list is complete before it is shared).
unsafe impl Send for Trust {}
unsafe impl Sync for Trust {}

impl Trust {
    /// A trust list of `roots` (parsed, kept: GnuTLS owns them from here).
    pub fn new(roots: Vec<Cert>) -> Result<Trust, GnutlsError> {
        let mut list: TrustList = ptr::null_mut();
        // SAFETY: `list` is writable; on success a new list, freed by Drop.
        let rc = unsafe { gnutls_x509_trust_list_init(&mut list, 0) };
        if rc < 0 {
            return Err(GnutlsError::code("gnutls_x509_trust_list_init", rc));
        }
        let trust = Trust(list);
        let crts: Vec<Crt> = roots
            .into_iter()
            .map(std::mem::ManuallyDrop::new)
            .map(|c| c.0)
            .collect();
        let n = c_uint::try_from(crts.len()).map_err(|_| GnutlsError("too many roots".into()))?;
        // SAFETY: a live list and `n` live certificates, whose ownership passes to the list
        // (freed by gnutls_x509_trust_list_deinit(.., 1) in Drop; duplicates GnuTLS drops are
        // freed by GnuTLS itself).
        let rc = unsafe { gnutls_x509_trust_list_add_cas(trust.0, crts.as_ptr(), n, 0) };
        if rc < 0 {
            return Err(GnutlsError::code("gnutls_x509_trust_list_add_cas", rc));
        }
        Ok(trust)
    }

    /// Verifies `chain` (end-entity first, as sent) as glib-networking does:
    /// `gnutls_x509_trust_list_verify_crt(list, chain, n, 0, &status, NULL)`. `Ok(0)`: trusted;
    /// `Ok(status)`: GnuTLS's refusal bits; `Err`: the call failed.
    pub fn verify(&self, chain: &mut [Cert]) -> Result<c_uint, GnutlsError> {
        let n = c_uint::try_from(chain.len()).map_err(|_| GnutlsError("chain too long".into()))?;
        let mut crts: Vec<Crt> = chain.iter().map(|c| c.0).collect();
        let mut status: c_uint = 0;
        // SAFETY: a live list (only read) and `n` live certificates owned by `chain`, which
        // outlives the call; `status` is writable; no callback.
        let rc = unsafe {
            gnutls_x509_trust_list_verify_crt(
                self.0,
                crts.as_mut_ptr(),
                n,
                0,
                &mut status,
                ptr::null(),
            )
        };
        if rc < 0 {
            return Err(GnutlsError::code("gnutls_x509_trust_list_verify_crt", rc));
        }
        Ok(status)
    }
}

impl Drop for Trust {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from gnutls_x509_trust_list_init and is freed once, here,
        // with the anchors it owns.
        unsafe { gnutls_x509_trust_list_deinit(self.0, 1) }
    }
}

/// GnuTLS's own words for refusal bits `status`.
pub fn status_text(status: c_uint) -> String {
    let mut out = Datum {
        data: ptr::null_mut(),
        size: 0,
    };
    // SAFETY: `out` is writable; on success GnuTLS allocates `out.data` with gnutls_malloc.
    let rc = unsafe {
        gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &mut out, 0)
    };
    if rc < 0 || out.data.is_null() {
        return format!("certificate status 0x{status:x}");
    }
    // SAFETY: on success `out.data` holds `out.size` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(out.data, out.size as usize) };
    let text = String::from_utf8_lossy(bytes)
        .trim_end_matches('\0')
        .trim()
        .to_owned();
    // SAFETY: `gnutls_free` is GnuTLS's deallocator for what it allocated; read once here.
    if let Some(free) = unsafe { gnutls_free } {
        // SAFETY: `out.data` came from GnuTLS's allocator and is freed once.
        unsafe { free(out.data.cast()) };
    }
    text
}
