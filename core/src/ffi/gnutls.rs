//! Every `unsafe` GnuTLS call certbench makes, each with its SAFETY argument.
//!
//! GnuTLS (Debian's `libgnutls28-dev`, linked dynamically) is what WebKitGTK and Epiphany
//! verify with, through glib-networking. This module wraps what the `gnutls` method needs —
//! DER → `gnutls_x509_crt_t`, a trust list, the body of `gnutls_certificate_verify_peers3`
//! after its import (the must-staple rule, `gnutls_x509_trust_list_verify_crt2` with the host
//! as typed data), and its check of a stapled OCSP response (`check_ocsp_response`, with
//! GnuTLS's own `gnutls_ocsp_resp_*` calls) — in owned types that free what they own, and is
//! used from nowhere else.
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

use crate::revocation::{Mechanism, RevocationError, SoftFail, Status};

type Crt = *mut c_void;
type TrustList = *mut c_void;
type TlsFeatures = *mut c_void;
type OcspResp = *mut c_void;
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
/// `GNUTLS_CERT_REVOKED`: revoked by its authority (here: the stapled OCSP response).
pub const GNUTLS_CERT_REVOKED: c_uint = 1 << 5;
/// `GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED`: the stapled response is past its nextUpdate (or,
/// without one, older than `MAX_OCSP_VALIDITY_SECS`).
pub const GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED: c_uint = 1 << 12;
/// `GNUTLS_CERT_INVALID_OCSP_STATUS`: the stapled response is unusable (does not parse, is
/// for another certificate, or is not signed by the issuer or a responder it authorised).
pub const GNUTLS_CERT_INVALID_OCSP_STATUS: c_uint = 1 << 20;

/// `GNUTLS_OCSP_RESP_SUCCESSFUL` (`gnutls_ocsp_resp_status_t`).
const GNUTLS_OCSP_RESP_SUCCESSFUL: c_int = 0;
/// `gnutls_ocsp_cert_status_t`.
const GNUTLS_OCSP_CERT_GOOD: c_uint = 0;
const GNUTLS_OCSP_CERT_REVOKED: c_uint = 1;
/// `GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND` (`gnutls_ocsp_verify_reason_t`): what
/// `gnutls_ocsp_resp_verify` finds in an empty trust list.
const GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND: c_uint = 1;
/// `MAX_OCSP_VALIDITY_SECS` (`lib/x509/ocsp.h`): how old a response without nextUpdate may be.
pub const MAX_OCSP_VALIDITY_SECS: i64 = 15 * 60 * 60 * 24;

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
    fn gnutls_ocsp_resp_init(resp: *mut OcspResp) -> c_int;
    fn gnutls_ocsp_resp_deinit(resp: OcspResp);
    fn gnutls_ocsp_resp_import(resp: OcspResp, data: *const Datum) -> c_int;
    fn gnutls_ocsp_resp_get_status(resp: OcspResp) -> c_int;
    fn gnutls_ocsp_resp_check_crt(resp: OcspResp, indx: c_uint, crt: Crt) -> c_int;
    fn gnutls_ocsp_resp_verify(
        resp: OcspResp,
        trustlist: TrustList,
        verify: *mut c_uint,
        flags: c_uint,
    ) -> c_int;
    fn gnutls_ocsp_resp_verify_direct(
        resp: OcspResp,
        issuer: Crt,
        verify: *mut c_uint,
        flags: c_uint,
    ) -> c_int;
    fn gnutls_ocsp_resp_get_single(
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
/// What needs the session and is not here: a stapled response, whose check
/// (`check_ocsp_response`: parse, match, signature, revoked, freshness) is
/// [`check_ocsp_response`] (for the leaf, [`check_stapled_ocsp`]); its bits are ORed in as
/// step 3 ORs `ocsp_status`, in place of step 1's must-staple rule for that certificate.
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

/// A stapled OCSP response as GnuTLS holds it (`gnutls_ocsp_resp_t`), freed on drop.
struct OcspResponse(OcspResp);

impl Drop for OcspResponse {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from gnutls_ocsp_resp_init and is freed once, here.
        unsafe { gnutls_ocsp_resp_deinit(self.0) }
    }
}

impl OcspResponse {
    /// `gnutls_ocsp_resp_init`.
    fn new() -> Result<OcspResponse, GnutlsError> {
        let mut resp: OcspResp = ptr::null_mut();
        // SAFETY: `resp` is writable; on success it holds a new response, freed by Drop.
        let rc = unsafe { gnutls_ocsp_resp_init(&mut resp) };
        if rc < 0 {
            return Err(GnutlsError::code("gnutls_ocsp_resp_init", rc));
        }
        Ok(OcspResponse(resp))
    }

    /// `gnutls_ocsp_resp_import(resp, der)`: GnuTLS's code on failure.
    fn import(&self, der: &[u8]) -> Result<(), c_int> {
        // GNUTLS_E_MEMORY_ERROR for what the C interface cannot carry (never in TLS: a
        // CertificateStatus message is at most 2^24 bytes).
        const GNUTLS_E_MEMORY_ERROR: c_int = -25;
        let size = c_uint::try_from(der.len()).map_err(|_| GNUTLS_E_MEMORY_ERROR)?;
        let datum = Datum {
            data: der.as_ptr().cast_mut(),
            size,
        };
        // SAFETY: a live response; `datum` points at `size` readable bytes, which GnuTLS only
        // reads (it copies the DER it keeps).
        let rc = unsafe { gnutls_ocsp_resp_import(self.0, &datum) };
        if rc < 0 { Err(rc) } else { Ok(()) }
    }

    /// `gnutls_ocsp_resp_get_status`: the responseStatus (or a negative code).
    fn status(&self) -> c_int {
        // SAFETY: a live, imported response, only read.
        unsafe { gnutls_ocsp_resp_get_status(self.0) }
    }

    /// `gnutls_ocsp_resp_check_crt(resp, indx, cert)`: 0 when the `indx`th SingleResponse's
    /// CertID is `cert`'s (its serial, and the hash of its issuer's name).
    fn check_crt(&self, indx: c_uint, cert: &Cert) -> c_int {
        // SAFETY: a live response and a live certificate, both only read.
        unsafe { gnutls_ocsp_resp_check_crt(self.0, indx, cert.0) }
    }

    /// `gnutls_ocsp_resp_verify(resp, trust, &verify, flags)`: GnuTLS's return and its
    /// `gnutls_ocsp_verify_reason_t` bits (meaningful when the return is 0).
    fn verify(&self, trust: &Trust, flags: c_uint) -> (c_int, c_uint) {
        let mut verify: c_uint = 0;
        // SAFETY: a live response and a live trust list (only read: `Trust` is never changed
        // after it is built), `verify` writable.
        let rc = unsafe { gnutls_ocsp_resp_verify(self.0, trust.0, &mut verify, flags) };
        (rc, verify)
    }

    /// `gnutls_ocsp_resp_verify_direct(resp, issuer, &verify, flags)`, as [`Self::verify`].
    fn verify_direct(&self, issuer: &Cert, flags: c_uint) -> (c_int, c_uint) {
        let mut verify: c_uint = 0;
        // SAFETY: a live response and a live certificate (GnuTLS reads it; a signer certificate
        // it finds in the response is its own copy, which it frees), `verify` writable.
        let rc = unsafe { gnutls_ocsp_resp_verify_direct(self.0, issuer.0, &mut verify, flags) };
        (rc, verify)
    }

    /// `gnutls_ocsp_resp_get_single(resp, indx, NULL, NULL, NULL, NULL, &cert_status,
    /// &this_update, &next_update, &revocation_time, NULL)`: the certificate status
    /// (`gnutls_ocsp_cert_status_t`), thisUpdate and nextUpdate (-1 when absent), as
    /// `check_ocsp_response` reads them; GnuTLS's code on failure.
    fn single(&self, indx: c_uint) -> Result<(c_uint, TimeT, TimeT), c_int> {
        let (mut cert_status, mut this_update, mut next_update, mut revoked_at) = (0, 0, 0, 0);
        // SAFETY: a live response; the four outputs asked for are writable; the NULL ones
        // (digest, hashes, serial, reason) are optional in GnuTLS's interface and left unread,
        // so nothing is allocated for the caller to free.
        let rc = unsafe {
            gnutls_ocsp_resp_get_single(
                self.0,
                indx,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut cert_status,
                &mut this_update,
                &mut next_update,
                &mut revoked_at,
                ptr::null_mut(),
            )
        };
        if rc < 0 {
            return Err(rc);
        }
        Ok((cert_status, this_update, next_update))
    }
}

/// Where GnuTLS's `check_ocsp_response` ended with a stapled response, and why: each variant
/// is one of its exits, named by its audit-log line where it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OcspStep {
    /// `gnutls_ocsp_resp_import` failed (GnuTLS's code): "There was an error parsing the
    /// OCSP response" (`GNUTLS_CERT_INVALID_OCSP_STATUS`).
    Unparsable(c_int),
    /// The responseStatus is not successful (its value): the response is ignored, as if none
    /// had been stapled, unless the certificate demands one ("Missing basic OCSP response
    /// while required": `GNUTLS_CERT_MISSING_OCSP_STATUS`).
    NotSuccessful(c_int),
    /// "Got OCSP response with an unrelated certificate": the first SingleResponse is not for
    /// the certificate (GnuTLS 3.7.9 checks index 0 only; `GNUTLS_CERT_INVALID_OCSP_STATUS`).
    Unrelated,
    /// The signature check itself failed (GnuTLS's code: a key it cannot use, a response
    /// without a signature, …; `GNUTLS_CERT_INVALID_OCSP_STATUS`).
    VerifyFailed(c_int),
    /// The signature was checked and refused: the `gnutls_ocsp_verify_reason_t` bits ("OCSP
    /// rejection reason"; `GNUTLS_CERT_INVALID_OCSP_STATUS`).
    NotVerified(c_uint),
    /// The first SingleResponse cannot be read (GnuTLS's code; `GNUTLS_CERT_INVALID_OCSP_STATUS`).
    SingleUnreadable(c_int),
    /// "The certificate was revoked via OCSP" (`GNUTLS_CERT_REVOKED`), whatever the
    /// response's age: GnuTLS reads the status before the times.
    Revoked,
    /// "The OCSP response is old": no nextUpdate, and thisUpdate more than
    /// [`MAX_OCSP_VALIDITY_SECS`] ago (`GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED`).
    Old,
    /// "There is a newer OCSP response but was not provided by the server": nextUpdate
    /// before now (`GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED`).
    Superseded,
    /// Checked and current: the certificate status (`GNUTLS_OCSP_CERT_GOOD` 0, or
    /// `GNUTLS_OCSP_CERT_UNKNOWN` 2, which GnuTLS accepts alike: it refuses only revoked).
    Current(c_uint),
}

/// What `check_ocsp_response` made of one stapled response: the bits it ORs into
/// `gnutls_certificate_verify_peers3`'s status (0: nothing refused) and where it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OcspCheck {
    /// `GNUTLS_CERT_*` bits.
    pub status: c_uint,
    /// Its exit.
    pub step: OcspStep,
}

/// GnuTLS 3.7.9's `check_ocsp_response` (`lib/cert-session.c`), the check
/// `_gnutls_x509_cert_verify_peers` makes of the response stapled for peer certificate
/// `cert`, at `now` (GnuTLS's `gnutls_time`, here [`with_time`]), step for step:
///
/// 1. `gnutls_ocsp_resp_import`; a failure is `INVALID | INVALID_OCSP_STATUS`;
/// 2. a responseStatus other than successful: the must-staple rule
///    (`_gnutls_ocsp_verify_mandatory_stapling`, [`Cert::requires_stapling`]), else ignored;
/// 3. `gnutls_ocsp_resp_check_crt(resp, 0, cert)`: the first SingleResponse must be `cert`'s;
/// 4. the signature: `gnutls_ocsp_resp_verify` against the trust list (`trust`; `None` is
///    an empty list, where GnuTLS finds no signer), then, if that failed,
///    `gnutls_ocsp_resp_verify_direct` with `cand_issuers[0]` (the peer certificate sent after
///    `cert`), then with each later one until one verifies; a delegated responder's
///    certificate in the response must be issued by the candidate and carry
///    id-kp-OCSPSigning (GnuTLS checks that inside `verify_direct`);
/// 5. `gnutls_ocsp_resp_get_single(resp, 0, ..)`: revoked is `INVALID | REVOKED`;
/// 6. times: without nextUpdate, thisUpdate more than [`MAX_OCSP_VALIDITY_SECS`] before now,
///    or else nextUpdate before now, is `INVALID | REVOCATION_DATA_SUPERSEDED`. Nothing
///    checks that thisUpdate is not in the future: `GNUTLS_CERT_REVOCATION_DATA_ISSUED_IN_FUTURE`
///    is set for CRLs only (`lib/x509/verify.c`), never for a stapled response.
///
/// `flags` are the session's verify flags ([`VERIFY_PEERS_FLAGS`]). `Err` is a negative
/// return of `check_ocsp_response` (`gnutls_ocsp_resp_init` or the must-staple read failed),
/// which `verify_peers3` returns: a rejection.
pub fn check_ocsp_response(
    cert: &Cert,
    trust: Option<&Trust>,
    cand_issuers: &[&Cert],
    response: &[u8],
    flags: c_uint,
    now: i64,
) -> Result<OcspCheck, GnutlsError> {
    with_time(now, || {
        let invalid = GNUTLS_CERT_INVALID | GNUTLS_CERT_INVALID_OCSP_STATUS;
        let done = |status, step| Ok(OcspCheck { status, step });
        let resp = OcspResponse::new()?;
        if let Err(code) = resp.import(response) {
            return done(invalid, OcspStep::Unparsable(code));
        }
        let response_status = resp.status();
        if response_status != GNUTLS_OCSP_RESP_SUCCESSFUL {
            let status = if cert.requires_stapling()? {
                GNUTLS_CERT_INVALID | GNUTLS_CERT_MISSING_OCSP_STATUS
            } else {
                0
            };
            return done(status, OcspStep::NotSuccessful(response_status));
        }
        if resp.check_crt(0, cert) < 0 {
            return done(invalid, OcspStep::Unrelated);
        }
        let (mut rc, mut verify) = match trust {
            Some(trust) => resp.verify(trust, flags),
            None => (0, GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND),
        };
        if (rc < 0 || verify != 0)
            && let Some((first, others)) = cand_issuers.split_first()
        {
            (rc, verify) = resp.verify_direct(first, flags);
            if (rc < 0 || verify != 0)
                && let Some(found) = others
                    .iter()
                    .map(|issuer| resp.verify_direct(issuer, flags))
                    .find(|&(rc2, verify2)| rc2 >= 0 && verify2 == 0)
            {
                (rc, verify) = found;
            }
        }
        if rc < 0 {
            return done(invalid, OcspStep::VerifyFailed(rc));
        }
        if verify != 0 {
            return done(invalid, OcspStep::NotVerified(verify));
        }
        let (cert_status, this_update, next_update) = match resp.single(0) {
            Ok(single) => single,
            Err(code) => return done(invalid, OcspStep::SingleUnreadable(code)),
        };
        if cert_status == GNUTLS_OCSP_CERT_REVOKED {
            return done(GNUTLS_CERT_INVALID | GNUTLS_CERT_REVOKED, OcspStep::Revoked);
        }
        let superseded = GNUTLS_CERT_INVALID | GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED;
        if next_update == -1 {
            if now.saturating_sub(this_update) > MAX_OCSP_VALIDITY_SECS {
                return done(superseded, OcspStep::Old);
            }
        } else if next_update < now {
            return done(superseded, OcspStep::Superseded);
        }
        done(0, OcspStep::Current(cert_status))
    })
}

/// The names of `gnutls_ocsp_verify_reason_t` bits, as GnuTLS's header spells them.
fn ocsp_verify_reasons(bits: c_uint) -> String {
    const NAMES: [(c_uint, &str); 7] = [
        (1, "GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND"),
        (2, "GNUTLS_OCSP_VERIFY_SIGNER_KEYUSAGE_ERROR"),
        (4, "GNUTLS_OCSP_VERIFY_UNTRUSTED_SIGNER"),
        (8, "GNUTLS_OCSP_VERIFY_INSECURE_ALGORITHM"),
        (16, "GNUTLS_OCSP_VERIFY_SIGNATURE_FAILURE"),
        (32, "GNUTLS_OCSP_VERIFY_CERT_NOT_ACTIVATED"),
        (64, "GNUTLS_OCSP_VERIFY_CERT_EXPIRED"),
    ];
    let names: Vec<&str> = NAMES
        .iter()
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    if names.is_empty() {
        format!("0x{bits:x}")
    } else {
        names.join(" | ")
    }
}

/// `gnutls_strerror(code)`.
fn strerror(code: c_int) -> String {
    // SAFETY: gnutls_strerror returns a static NUL-terminated string for any code.
    unsafe { CStr::from_ptr(gnutls_strerror(code)) }
        .to_string_lossy()
        .into_owned()
}

/// The stapled OCSP response of a connection (`response`; `None`: none stapled) for the leaf
/// `leaf_der` issued by `issuer_der` (the certificate the server sent after it), checked at
/// `now_unix` as `gnutls_certificate_verify_peers3` checks it for WebKitGTK (glib-networking
/// calls it, and its `g_tls_certificate_gnutls_convert_flags` makes `GNUTLS_CERT_REVOKED`
/// `G_TLS_CERTIFICATE_REVOKED` and every other OCSP bit `G_TLS_CERTIFICATE_GENERIC_ERROR`:
/// both refuse the connection). The leaf's check only (GnuTLS checks a response per peer
/// certificate, and TLS 1.2 staples one, for the leaf); glib-networking's trust list is not
/// consulted for the response's signer (an empty list: GnuTLS then verifies with the issuer
/// sent, which is the signer, or issued the delegated responder, of every public CA's
/// response).
///
/// - no response: [`SoftFail::NoData`], unless the leaf carries the TLS feature
///   `status_request` (must-staple), which is [`RevocationError::Invalid`]
///   (`GNUTLS_CERT_MISSING_OCSP_STATUS`);
/// - a response GnuTLS ignores (responseStatus not successful): the same;
/// - revoked: [`Status::Revoked`] at depth 0, however old the response;
/// - good and current: [`Status::Good`]; unknown and current: [`SoftFail::NoData`] (GnuTLS
///   accepts it as it accepts good; only revoked is refused);
/// - a response that does not parse: [`RevocationError::Corrupt`]; for another certificate,
///   not signed by the issuer (or a responder it authorised), past its nextUpdate (or, with
///   none, older than 15 days): [`RevocationError::Invalid`], in GnuTLS's words and with its
///   status bit's name. A thisUpdate in the future is accepted, as GnuTLS accepts it.
///
/// A leaf or issuer GnuTLS cannot parse is [`RevocationError::BadPath`].
pub fn check_stapled_ocsp(
    response: Option<&[u8]>,
    leaf_der: &[u8],
    issuer_der: &[u8],
    now_unix: u64,
) -> Result<Status, RevocationError> {
    let invalid = |detail: String| RevocationError::Invalid {
        mechanism: Mechanism::Ocsp,
        detail,
    };
    let gnutls_failed = |e: GnutlsError| invalid(format!("GnuTLS failed: {e}"));
    let leaf =
        Cert::from_der(leaf_der).map_err(|e| RevocationError::BadPath(format!("the leaf: {e}")))?;
    let issuer = match response {
        Some(_) => Some(
            Cert::from_der(issuer_der)
                .map_err(|e| RevocationError::BadPath(format!("the issuer: {e}")))?,
        ),
        None => None,
    };
    check_stapled_ocsp_of(response, &leaf, issuer.as_ref(), None, now_unix).map_err(|e| match e {
        StapleError::Revocation(e) => e,
        StapleError::Gnutls(e) => gnutls_failed(e),
    })
}

/// [`check_stapled_ocsp`]'s failures before its verdict.
enum StapleError {
    Revocation(RevocationError),
    Gnutls(GnutlsError),
}

/// [`check_stapled_ocsp`] on the peer certificates already imported (as a session holds them),
/// the response's signer looked for in `trust` first, then in the peer at `issuer` (the leaf's
/// issuer among those sent, if any), as `check_ocsp_response` does.
pub fn check_stapled_ocsp_peer(
    response: Option<&[u8]>,
    peers: &Peers,
    issuer: Option<usize>,
    trust: Option<&Trust>,
    now_unix: u64,
) -> Result<Status, RevocationError> {
    let leaf = &peers.0[0];
    let issuer = issuer.filter(|&i| i > 0).and_then(|i| peers.0.get(i));
    check_stapled_ocsp_of(response, leaf, issuer, trust, now_unix).map_err(|e| match e {
        StapleError::Revocation(e) => e,
        StapleError::Gnutls(e) => RevocationError::Invalid {
            mechanism: Mechanism::Ocsp,
            detail: format!("GnuTLS failed: {e}"),
        },
    })
}

fn check_stapled_ocsp_of(
    response: Option<&[u8]>,
    leaf: &Cert,
    issuer: Option<&Cert>,
    trust: Option<&Trust>,
    now_unix: u64,
) -> Result<Status, StapleError> {
    let invalid = |detail: String| {
        StapleError::Revocation(RevocationError::Invalid {
            mechanism: Mechanism::Ocsp,
            detail,
        })
    };
    let missing = || {
        invalid(
            "the certificate requires a stapled OCSP response (TLS feature status_request) \
             and none was received (GNUTLS_CERT_MISSING_OCSP_STATUS)"
                .to_owned(),
        )
    };
    let gnutls_failed = StapleError::Gnutls;
    let Some(response) = response else {
        // `_gnutls_x509_cert_verify_peers`: no response for this certificate.
        return if leaf.requires_stapling().map_err(gnutls_failed)? {
            Err(missing())
        } else {
            Ok(Status::SoftFail(SoftFail::NoData))
        };
    };
    let now = i64::try_from(now_unix).map_err(|_| {
        StapleError::Revocation(RevocationError::BadPath(
            "validation time out of range".into(),
        ))
    })?;
    let issuers: Vec<&Cert> = issuer.into_iter().collect();
    let check = check_ocsp_response(leaf, trust, &issuers, response, VERIFY_PEERS_FLAGS, now)
        .map_err(gnutls_failed)?;
    const INVALID_OCSP: &str = "GNUTLS_CERT_INVALID_OCSP_STATUS";
    const SUPERSEDED: &str = "GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED";
    match check.step {
        OcspStep::Unparsable(code) => Err(StapleError::Revocation(RevocationError::Corrupt {
            mechanism: Mechanism::Ocsp,
            detail: format!(
                "There was an error parsing the OCSP response: {} ({INVALID_OCSP})",
                strerror(code)
            ),
        })),
        OcspStep::NotSuccessful(_) if check.status & GNUTLS_CERT_MISSING_OCSP_STATUS != 0 => {
            Err(missing())
        }
        OcspStep::NotSuccessful(_) => Ok(Status::SoftFail(SoftFail::NoData)),
        OcspStep::Unrelated => Err(invalid(format!(
            "Got OCSP response with an unrelated certificate ({INVALID_OCSP})"
        ))),
        OcspStep::VerifyFailed(code) => Err(invalid(format!(
            "the OCSP response's signature could not be checked: {} ({INVALID_OCSP})",
            strerror(code)
        ))),
        OcspStep::NotVerified(bits) => Err(invalid(format!(
            "OCSP rejection reason: {} ({INVALID_OCSP})",
            ocsp_verify_reasons(bits)
        ))),
        OcspStep::SingleUnreadable(code) => {
            Err(StapleError::Revocation(RevocationError::Corrupt {
                mechanism: Mechanism::Ocsp,
                detail: format!(
                    "There was an error parsing the OCSP response: {} ({INVALID_OCSP})",
                    strerror(code)
                ),
            }))
        }
        OcspStep::Revoked => Ok(Status::Revoked { depth: 0 }),
        OcspStep::Old => Err(invalid(format!("The OCSP response is old ({SUPERSEDED})"))),
        OcspStep::Superseded => Err(invalid(format!(
            "There is a newer OCSP response but was not provided by the server ({SUPERSEDED})"
        ))),
        OcspStep::Current(GNUTLS_OCSP_CERT_GOOD) => Ok(Status::Good),
        OcspStep::Current(_) => Ok(Status::SoftFail(SoftFail::NoData)),
    }
}
