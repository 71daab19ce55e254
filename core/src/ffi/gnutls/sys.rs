//! GnuTLS's C interface as certbench declares it: the raw handle types, the constants
//! (`GNUTLS_E_*`, `GNUTLS_CERT_*`, `GNUTLS_OCSP_*`, the session's verify flags), the `extern`
//! block, [`GnutlsError`], the linked version and the validation clock.
//!
//! Invariant: nothing outside `ffi::gnutls` calls a function declared here; the safe
//! wrappers in the sibling modules ([`super::x509`], [`super::ocsp`]) are the only callers.
//! GnuTLS is C: nothing here can throw, and no Rust callback is registered but the time
//! function ([`with_time`]), which cannot panic.
//!
//! GnuTLS has no validation-time argument: verification reads the process-wide time function
//! (`gnutls_global_set_time_function`). certbench installs one, once, that returns this
//! thread's validation time while [`with_time`] runs, and the real time otherwise.

use std::cell::Cell;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::ptr;
use std::sync::Once;

pub(super) type Crt = *mut c_void;
pub(super) type TrustList = *mut c_void;
pub(super) type TlsFeatures = *mut c_void;
pub(super) type OcspResp = *mut c_void;
pub(super) type TimeT = i64;

#[repr(C)]
pub(super) struct Datum {
    pub(super) data: *mut u8,
    pub(super) size: c_uint,
}

/// `gnutls_typed_vdata_st` (`gnutls/gnutls.h`): `{ gnutls_vdata_types_t type; unsigned char
/// *data; unsigned int size; }`.
#[repr(C)]
pub(super) struct TypedVdata {
    pub(super) kind: c_int,
    pub(super) data: *mut u8,
    pub(super) size: c_uint,
}

pub(super) const GNUTLS_X509_FMT_DER: c_int = 0;
pub(super) const GNUTLS_CRT_X509: c_int = 1;
/// `GNUTLS_DT_DNS_HOSTNAME`: a NUL-terminated host name (or NULL: no name check).
pub(super) const GNUTLS_DT_DNS_HOSTNAME: c_int = 1;
/// `GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE`: past the last TLS feature.
pub(super) const GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE: c_int = -56;
/// `GNUTLS_E_NO_CERTIFICATE_FOUND`: the peer sent no certificate.
pub(super) const GNUTLS_E_NO_CERTIFICATE_FOUND: c_int = -49;
/// `GNUTLS_E_CONSTRAINT_ERROR`: more peer certificates than the credentials' verify depth.
pub(super) const GNUTLS_E_CONSTRAINT_ERROR: c_int = -101;
/// The TLS feature `status_request` (RFC 7633: the TLS extension number 5, OCSP stapling).
pub(super) const TLS_FEATURE_STATUS_REQUEST: c_uint = 5;

/// `GNUTLS_CERT_INVALID`: set with every refusal bit.
pub const GNUTLS_CERT_INVALID: c_uint = 1 << 1;
/// `GNUTLS_CERT_UNEXPECTED_OWNER`: the host given as `GNUTLS_DT_DNS_HOSTNAME` is not the
/// end-entity certificate's (`gnutls_x509_crt_check_hostname2` inside the verification).
pub const GNUTLS_CERT_UNEXPECTED_OWNER: c_uint = 1 << 14;
/// `GNUTLS_CERT_MISSING_OCSP_STATUS`: a certificate demands a stapled OCSP response (TLS
/// feature `status_request`, RFC 7633) and none came.
pub const GNUTLS_CERT_MISSING_OCSP_STATUS: c_uint = 1 << 19;
/// `GNUTLS_CERT_REVOKED`: revoked by its authority (here: the stapled OCSP response).
pub const GNUTLS_CERT_REVOKED: c_uint = 1 << 5;
/// `GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED`: the stapled response is past its nextUpdate (or,
/// without one, older than `MAX_OCSP_VALIDITY_SECS`).
pub const GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED: c_uint = 1 << 12;
/// `GNUTLS_CERT_INVALID_OCSP_STATUS`: the stapled response is unusable (does not parse, is
/// for another certificate, or is not signed by the issuer or a responder it authorised).
pub const GNUTLS_CERT_INVALID_OCSP_STATUS: c_uint = 1 << 20;

/// `GNUTLS_OCSP_RESP_SUCCESSFUL` (`gnutls_ocsp_resp_status_t`).
pub const GNUTLS_OCSP_RESP_SUCCESSFUL: c_int = 0;
/// `gnutls_ocsp_cert_status_t`.
pub const GNUTLS_OCSP_CERT_GOOD: c_uint = 0;
pub const GNUTLS_OCSP_CERT_REVOKED: c_uint = 1;
/// `GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND` (`gnutls_ocsp_verify_reason_t`): what
/// `gnutls_ocsp_resp_verify` finds in an empty trust list.
pub const GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND: c_uint = 1;
/// `MAX_OCSP_VALIDITY_SECS` (`lib/x509/ocsp.h`): how old a response without nextUpdate may be.
pub const MAX_OCSP_VALIDITY_SECS: i64 = 15 * 60 * 60 * 24;

/// `GNUTLS_PROFILE_LOW` (`gnutls_certificate_verification_profiles_t`).
pub(super) const GNUTLS_PROFILE_LOW: c_uint = 2;
/// The verify flags `_gnutls_x509_cert_verify_peers` uses for a glib-networking session:
/// `cred->verify_flags | session->internals.additional_verify_flags`. glib-networking never
/// sets the credentials' flags (`g_tls_database_gnutls_get_credentials`:
/// `gnutls_certificate_allocate_credentials` + `gnutls_certificate_set_trust_list`, so 0), and
/// its priority is the default string with `%COMPAT` appended (`initialize_gnutls_priority`,
/// `gnutls_priority_init2(.., "%COMPAT", .., GNUTLS_PRIORITY_INIT_DEF_APPEND)`): Debian's
/// default is `NORMAL`, whose verification profile is `GNUTLS_PROFILE_LOW`
/// (`lib/priority.c`, `pgroups`), which `gnutls_priority_set` adds to the session's flags as
/// `GNUTLS_PROFILE_TO_VFLAGS(GNUTLS_PROFILE_LOW)`; `%COMPAT` adds no verify flag, and with no
/// `/etc/gnutls/config` there is no system-wide minimum profile. So: the profile alone, no
/// other flag (in particular not `GNUTLS_VERIFY_DISABLE_CRL_CHECKS`, so the OCSP/must-staple
/// step runs, and not `GNUTLS_VERIFY_DO_NOT_ALLOW_UNSORTED_CHAIN`, so GnuTLS sorts the list).
pub const VERIFY_PEERS_FLAGS: c_uint = GNUTLS_PROFILE_LOW << 24;
/// `DEFAULT_MAX_VERIFY_DEPTH`: the credentials' default verify depth (`cred->verify_depth`,
/// glib-networking does not change it); more peer certificates than this is an error.
pub const MAX_VERIFY_DEPTH: usize = 16;

#[link(name = "gnutls")]
unsafe extern "C" {
    pub(super) fn gnutls_check_version(req: *const c_char) -> *const c_char;
    pub(super) fn gnutls_strerror(error: c_int) -> *const c_char;
    pub(super) fn gnutls_global_set_time_function(f: unsafe extern "C" fn(*mut TimeT) -> TimeT);
    pub(super) fn gnutls_x509_crt_init(cert: *mut Crt) -> c_int;
    pub(super) fn gnutls_x509_crt_deinit(cert: Crt);
    pub(super) fn gnutls_x509_crt_import(cert: Crt, data: *const Datum, format: c_int) -> c_int;
    pub(super) fn gnutls_x509_tlsfeatures_init(features: *mut TlsFeatures) -> c_int;
    pub(super) fn gnutls_x509_tlsfeatures_deinit(features: TlsFeatures);
    pub(super) fn gnutls_x509_tlsfeatures_get(
        features: TlsFeatures,
        idx: c_uint,
        feature: *mut c_uint,
    ) -> c_int;
    pub(super) fn gnutls_x509_crt_get_tlsfeatures(
        cert: Crt,
        features: TlsFeatures,
        flags: c_uint,
        critical: *mut c_uint,
    ) -> c_int;
    pub(super) fn gnutls_x509_trust_list_init(list: *mut TrustList, size: c_uint) -> c_int;
    pub(super) fn gnutls_x509_trust_list_deinit(list: TrustList, all: c_uint);
    pub(super) fn gnutls_x509_trust_list_add_cas(
        list: TrustList,
        clist: *const Crt,
        clist_size: c_uint,
        flags: c_uint,
    ) -> c_int;
    pub(super) fn gnutls_x509_trust_list_verify_crt2(
        list: TrustList,
        cert_list: *mut Crt,
        cert_list_size: c_uint,
        data: *mut TypedVdata,
        elements: c_uint,
        flags: c_uint,
        voutput: *mut c_uint,
        func: *const c_void,
    ) -> c_int;
    pub(super) fn gnutls_ocsp_resp_init(resp: *mut OcspResp) -> c_int;
    pub(super) fn gnutls_ocsp_resp_deinit(resp: OcspResp);
    pub(super) fn gnutls_ocsp_resp_import(resp: OcspResp, data: *const Datum) -> c_int;
    pub(super) fn gnutls_ocsp_resp_get_status(resp: OcspResp) -> c_int;
    pub(super) fn gnutls_ocsp_resp_check_crt(resp: OcspResp, indx: c_uint, crt: Crt) -> c_int;
    pub(super) fn gnutls_ocsp_resp_verify(
        resp: OcspResp,
        trustlist: TrustList,
        verify: *mut c_uint,
        flags: c_uint,
    ) -> c_int;
    pub(super) fn gnutls_ocsp_resp_verify_direct(
        resp: OcspResp,
        issuer: Crt,
        verify: *mut c_uint,
        flags: c_uint,
    ) -> c_int;
    pub(super) fn gnutls_ocsp_resp_get_single(
        resp: OcspResp,
        indx: c_uint,
        digest: *mut c_int,
        issuer_name_hash: *mut Datum,
        issuer_key_hash: *mut Datum,
        serial_number: *mut Datum,
        cert_status: *mut c_uint,
        this_update: *mut TimeT,
        next_update: *mut TimeT,
        revocation_time: *mut TimeT,
        revocation_reason: *mut c_uint,
    ) -> c_int;
    pub(super) fn gnutls_certificate_verification_status_print(
        status: c_uint,
        kind: c_int,
        out: *mut Datum,
        flags: c_uint,
    ) -> c_int;
    pub(super) static gnutls_free: Option<unsafe extern "C" fn(*mut c_void)>;
}

/// Why a GnuTLS call gave no verdict. The `gnutls` method turns each into a rejection (as
/// glib-networking turns a negative return of `gnutls_certificate_verify_peers3` into
/// `G_TLS_CERTIFICATE_GENERIC_ERROR`): never an accept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GnutlsError {
    /// A GnuTLS call returned a negative code.
    #[error("{call}: {text}")]
    Call {
        /// What was called (or, for an import, what the bytes are not).
        call: &'static str,
        /// GnuTLS's code (`GNUTLS_E_*`).
        code: c_int,
        /// `gnutls_strerror(code)`.
        text: String,
    },
    /// An input GnuTLS's C interface cannot carry (a length past `unsigned int`).
    #[error("{0}")]
    Input(&'static str),
}

impl GnutlsError {
    pub(super) fn code(call: &'static str, code: c_int) -> GnutlsError {
        // SAFETY: gnutls_strerror returns a static NUL-terminated string for any code.
        let text = unsafe { CStr::from_ptr(gnutls_strerror(code)) };
        GnutlsError::Call {
            call,
            code,
            text: text.to_string_lossy().into_owned(),
        }
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
    // Restores what was there, so that a nested call (an OCSP check inside a verification)
    // leaves the outer validation time in place.
    struct Reset(Option<TimeT>);
    impl Drop for Reset {
        fn drop(&mut self) {
            NOW.with(|n| n.set(self.0));
        }
    }
    let _reset = Reset(NOW.with(|n| n.replace(Some(time))));
    f()
}

/// `gnutls_strerror(code)`.
pub fn strerror(code: c_int) -> String {
    // SAFETY: gnutls_strerror returns a static NUL-terminated string for any code.
    unsafe { CStr::from_ptr(gnutls_strerror(code)) }
        .to_string_lossy()
        .into_owned()
}
