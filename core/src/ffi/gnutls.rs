//! Every `unsafe` GnuTLS call certbench makes, each with its SAFETY argument.
//!
//! GnuTLS (Debian's `libgnutls28-dev`, linked dynamically) is what WebKitGTK and Epiphany
//! verify with, through glib-networking. This module wraps what the `gnutls` method needs —
//! DER → `gnutls_x509_crt_t`, a trust list, the body of `gnutls_certificate_verify_peers3`
//! after its import (the must-staple rule, `gnutls_x509_trust_list_verify_crt2` with the host
//! as typed data) — in owned types that free what they own, and is used from nowhere else.
//! GnuTLS is C: nothing here can throw, and no Rust callback is registered but the time
//! function ([`with_time`]), which cannot panic.
//!
//! GnuTLS has no validation-time argument: verification reads the process-wide time function
//! (`gnutls_global_set_time_function`). certbench installs one, once, that returns this
//! thread's validation time while [`with_time`] runs, and the real time otherwise.
//!
//! Why not `gnutls_certificate_verify_peers3` itself: it reads the peer's certificates from a
//! session's handshake state (`cert_auth_info_t`), which only a handshake fills; GnuTLS has no
//! public call that sets them. [`verify_peers3`] makes the calls it makes
//! (`lib/cert-session.c`, `_gnutls_x509_cert_verify_peers`, GnuTLS 3.7.9), in its order and
//! with its flags and data; what needs a session (a stapled OCSP response) is documented there.

use std::cell::Cell;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::ptr;
use std::sync::Once;

type Crt = *mut c_void;
type TrustList = *mut c_void;
type TlsFeatures = *mut c_void;
type TimeT = i64;

#[repr(C)]
struct Datum {
    data: *mut u8,
    size: c_uint,
}

/// `gnutls_typed_vdata_st` (`gnutls/gnutls.h`): `{ gnutls_vdata_types_t type; unsigned char
/// *data; unsigned int size; }`.
#[repr(C)]
struct TypedVdata {
    kind: c_int,
    data: *mut u8,
    size: c_uint,
}

const GNUTLS_X509_FMT_DER: c_int = 0;
const GNUTLS_CRT_X509: c_int = 1;
/// `GNUTLS_DT_DNS_HOSTNAME`: a NUL-terminated host name (or NULL: no name check).
const GNUTLS_DT_DNS_HOSTNAME: c_int = 1;
/// `GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE`: past the last TLS feature.
const GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE: c_int = -56;
/// `GNUTLS_E_NO_CERTIFICATE_FOUND`: the peer sent no certificate.
const GNUTLS_E_NO_CERTIFICATE_FOUND: c_int = -49;
/// `GNUTLS_E_CONSTRAINT_ERROR`: more peer certificates than the credentials' verify depth.
const GNUTLS_E_CONSTRAINT_ERROR: c_int = -101;
/// The TLS feature `status_request` (RFC 7633: the TLS extension number 5, OCSP stapling).
const TLS_FEATURE_STATUS_REQUEST: c_uint = 5;

/// `GNUTLS_CERT_INVALID`: set with every refusal bit.
pub const GNUTLS_CERT_INVALID: c_uint = 1 << 1;
/// `GNUTLS_CERT_UNEXPECTED_OWNER`: the host given as `GNUTLS_DT_DNS_HOSTNAME` is not the
/// end-entity certificate's (`gnutls_x509_crt_check_hostname2` inside the verification).
pub const GNUTLS_CERT_UNEXPECTED_OWNER: c_uint = 1 << 14;
/// `GNUTLS_CERT_MISSING_OCSP_STATUS`: a certificate demands a stapled OCSP response (TLS
/// feature `status_request`, RFC 7633) and none came.
pub const GNUTLS_CERT_MISSING_OCSP_STATUS: c_uint = 1 << 19;

/// `GNUTLS_PROFILE_LOW` (`gnutls_certificate_verification_profiles_t`).
const GNUTLS_PROFILE_LOW: c_uint = 2;
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
    fn gnutls_check_version(req: *const c_char) -> *const c_char;
    fn gnutls_strerror(error: c_int) -> *const c_char;
    fn gnutls_global_set_time_function(f: unsafe extern "C" fn(*mut TimeT) -> TimeT);
    fn gnutls_x509_crt_init(cert: *mut Crt) -> c_int;
    fn gnutls_x509_crt_deinit(cert: Crt);
    fn gnutls_x509_crt_import(cert: Crt, data: *const Datum, format: c_int) -> c_int;
    fn gnutls_x509_tlsfeatures_init(features: *mut TlsFeatures) -> c_int;
    fn gnutls_x509_tlsfeatures_deinit(features: TlsFeatures);
    fn gnutls_x509_tlsfeatures_get(
        features: TlsFeatures,
        idx: c_uint,
        feature: *mut c_uint,
    ) -> c_int;
    fn gnutls_x509_crt_get_tlsfeatures(
        cert: Crt,
        features: TlsFeatures,
        flags: c_uint,
        critical: *mut c_uint,
    ) -> c_int;
    fn gnutls_x509_trust_list_init(list: *mut TrustList, size: c_uint) -> c_int;
    fn gnutls_x509_trust_list_deinit(list: TrustList, all: c_uint);
    fn gnutls_x509_trust_list_add_cas(
        list: TrustList,
        clist: *const Crt,
        clist_size: c_uint,
        flags: c_uint,
    ) -> c_int;
    fn gnutls_x509_trust_list_verify_crt2(
        list: TrustList,
        cert_list: *mut Crt,
        cert_list_size: c_uint,
        data: *mut TypedVdata,
        elements: c_uint,
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
    fn code(call: &'static str, code: c_int) -> GnutlsError {
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

// SAFETY: a parsed certificate is not changed by verification or the TLS-feature read (GnuTLS
// reads it), so it may move between threads; it is used by one thread at a time (not Sync).
unsafe impl Send for Cert {}

impl Cert {
    /// Parses DER (`gnutls_x509_crt_init` + `gnutls_x509_crt_import(.., GNUTLS_X509_FMT_DER)`,
    /// as `_gnutls_x509_cert_verify_peers` imports each peer certificate).
    pub fn from_der(der: &[u8]) -> Result<Cert, GnutlsError> {
        let size =
            c_uint::try_from(der.len()).map_err(|_| GnutlsError::Input("certificate too large"))?;
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

    /// Whether the certificate demands a stapled OCSP response: the body of GnuTLS's
    /// `_gnutls_ocsp_verify_mandatory_stapling` once the client has asked for a status
    /// (`gnutls_x509_crt_get_tlsfeatures(cert, features, 0, NULL) == 0` and one feature is
    /// `status_request`, 5). A TLS-feature extension GnuTLS cannot read demands nothing, as
    /// there; only `gnutls_x509_tlsfeatures_init` failing is an error.
    pub fn requires_stapling(&self) -> Result<bool, GnutlsError> {
        let mut features: TlsFeatures = ptr::null_mut();
        // SAFETY: `features` is writable; on success a new set, freed by `Features`' Drop.
        let rc = unsafe { gnutls_x509_tlsfeatures_init(&mut features) };
        if rc < 0 {
            return Err(GnutlsError::code("gnutls_x509_tlsfeatures_init", rc));
        }
        struct Features(TlsFeatures);
        impl Drop for Features {
            fn drop(&mut self) {
                // SAFETY: from gnutls_x509_tlsfeatures_init, freed once, here.
                unsafe { gnutls_x509_tlsfeatures_deinit(self.0) }
            }
        }
        let features = Features(features);
        // SAFETY: a live certificate (only read) and a live, empty feature set; flags 0 (no
        // GNUTLS_EXT_FLAG_APPEND) and a NULL `critical`, as GnuTLS's own call passes.
        let rc = unsafe { gnutls_x509_crt_get_tlsfeatures(self.0, features.0, 0, ptr::null_mut()) };
        if rc != 0 {
            return Ok(false);
        }
        for idx in 0.. {
            let mut feature: c_uint = 0;
            // SAFETY: a live feature set; `feature` is writable.
            let rc = unsafe { gnutls_x509_tlsfeatures_get(features.0, idx, &mut feature) };
            if rc == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE {
                break;
            }
            if rc < 0 {
                return Err(GnutlsError::code("gnutls_x509_tlsfeatures_get", rc));
            }
            if feature == TLS_FEATURE_STATUS_REQUEST {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

impl Drop for Cert {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from gnutls_x509_crt_init and is freed once, here (a
        // certificate handed to a trust list is never wrapped in a `Cert` again).
        unsafe { gnutls_x509_crt_deinit(self.0) }
    }
}

/// The peer's certificates as `_gnutls_x509_cert_verify_peers` imports them from the raw list
/// the server sent: first the verify-depth limit (more than [`MAX_VERIFY_DEPTH`]:
/// `GNUTLS_E_CONSTRAINT_ERROR`), then each DER certificate parsed, in the order sent, none
/// dropped or reordered (GnuTLS sorts inside the verification, [`verify_peers3`]).
pub fn import_peers(raw: &[&[u8]]) -> Result<Peers, GnutlsError> {
    if raw.is_empty() {
        return Err(GnutlsError::code(
            "no peer certificate",
            GNUTLS_E_NO_CERTIFICATE_FOUND,
        ));
    }
    if raw.len() > MAX_VERIFY_DEPTH {
        return Err(GnutlsError::code(
            "more peer certificates than the verify depth",
            GNUTLS_E_CONSTRAINT_ERROR,
        ));
    }
    raw.iter()
        .map(|der| Cert::from_der(der))
        .collect::<Result<_, _>>()
        .map(Peers)
}

/// The peer's certificates as [`import_peers`] made them: 1 to [`MAX_VERIFY_DEPTH`] of them.
/// The bound is a safety invariant of [`verify_peers3`]: GnuTLS 3.7.9's
/// `gnutls_x509_trust_list_verify_crt2` copies the list into a stack array of
/// DEFAULT_MAX_VERIFY_DEPTH entries before any length check (lifted in 3.8.4, commit e369e67a,
/// CVE-2024-0567); `_gnutls_x509_cert_verify_peers` never gives it more, and neither does this.
pub struct Peers(Vec<Cert>);

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
        let n = c_uint::try_from(crts.len()).map_err(|_| GnutlsError::Input("too many roots"))?;
        // SAFETY: a live list and `n` live certificates, whose ownership passes to the list
        // (freed by gnutls_x509_trust_list_deinit(.., 1) in Drop; duplicates GnuTLS drops are
        // freed by GnuTLS itself).
        let rc = unsafe { gnutls_x509_trust_list_add_cas(trust.0, crts.as_ptr(), n, 0) };
        if rc < 0 {
            return Err(GnutlsError::code("gnutls_x509_trust_list_add_cas", rc));
        }
        Ok(trust)
    }
}

impl Drop for Trust {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from gnutls_x509_trust_list_init and is freed once, here,
        // with the anchors it owns.
        unsafe { gnutls_x509_trust_list_deinit(self.0, 1) }
    }
}

/// `gnutls_certificate_verify_peers3(session, hostname, &status)` past its import
/// ([`import_peers`]), as GnuTLS 3.7.9's `_gnutls_x509_cert_verify_peers` goes on, for a
/// client session whose peer stapled no OCSP response:
///
/// 1. OCSP (flags lack `GNUTLS_VERIFY_DISABLE_CRL_CHECKS`): for each peer certificate,
///    `gnutls_ocsp_status_request_get2(session, i, ..)` finds no response, so
///    `_gnutls_ocsp_verify_mandatory_stapling`: the client asked for a status (GnuTLS sends
///    `status_request` in every client hello, `gnutls_init` enables it, glib-networking does
///    not pass `GNUTLS_NO_STATUS_REQUEST`), so a certificate whose TLS features include
///    `status_request` sets `GNUTLS_CERT_INVALID | GNUTLS_CERT_MISSING_OCSP_STATUS`
///    ([`Cert::requires_stapling`]). Every peer certificate is checked, not only the leaf.
/// 2. `gnutls_x509_trust_list_verify_crt2(tlist, peers, n, &data, 1, flags, &status, NULL)`
///    with `data = { GNUTLS_DT_DNS_HOSTNAME, hostname, 0 }` (NULL `hostname`: no name check)
///    and `flags` = [`VERIFY_PEERS_FLAGS`]: GnuTLS sorts the list (`_gnutls_sort_clist`),
///    drops duplicates, completes it from the trust list, verifies it under the LOW profile,
///    then checks the leaf against `hostname` (`gnutls_x509_crt_check_hostname2(leaf,
///    hostname, flags)`: an IPv4 or IPv6 literal is matched against iPAddress names,
///    `GNUTLS_CERT_UNEXPECTED_OWNER` when nothing matches). No key purpose is given.
/// 3. `status |= ocsp_status`.
///
/// `Ok(0)`: trusted; `Ok(bits)`: GnuTLS's refusal bits; `Err`: a call failed (a rejection).
/// What needs the session and is not here: a stapled response (`check_ocsp_response`:
/// parse, match, signature, revoked, freshness), which certbench's targets never carry.
pub fn verify_peers3(
    trust: &Trust,
    peers: &Peers,
    hostname: Option<&CStr>,
) -> Result<c_uint, GnutlsError> {
    let peers = &peers.0;
    let n = peers.len() as c_uint; // 1..=16: Peers' invariant
    let mut ocsp_status: c_uint = 0;
    for cert in peers {
        if cert.requires_stapling()? {
            ocsp_status |= GNUTLS_CERT_INVALID | GNUTLS_CERT_MISSING_OCSP_STATUS;
        }
    }
    let mut crts: Vec<Crt> = peers.iter().map(|c| c.0).collect();
    let mut data = TypedVdata {
        kind: GNUTLS_DT_DNS_HOSTNAME,
        data: hostname.map_or(ptr::null_mut(), |h| h.as_ptr().cast::<u8>().cast_mut()),
        size: 0,
    };
    let mut status: c_uint = 0;
    // SAFETY: a live list (only read); `n` (1 to 16: `Peers`' invariant) live certificates
    // owned by `peers`, which outlives the call (GnuTLS copies the array of pointers before sorting it and frees only the
    // issuers it added itself); one typed datum whose `data` is NULL or `hostname`'s
    // NUL-terminated bytes, which GnuTLS only reads, `size` 0 (GnuTLS then takes `strlen`);
    // `status` is writable; no callback.
    let rc = unsafe {
        gnutls_x509_trust_list_verify_crt2(
            trust.0,
            crts.as_mut_ptr(),
            n,
            &mut data,
            1,
            VERIFY_PEERS_FLAGS,
            &mut status,
            ptr::null(),
        )
    };
    if rc < 0 {
        return Err(GnutlsError::code("gnutls_x509_trust_list_verify_crt2", rc));
    }
    Ok(status | ocsp_status)
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
