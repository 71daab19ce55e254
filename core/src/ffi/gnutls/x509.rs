//! Certificates and trust lists as GnuTLS holds them, in owned types that free what they own:
//! [`Cert`] (`gnutls_x509_crt_t`, with its must-staple read), [`Peers`] (the peer list as
//! `_gnutls_x509_cert_verify_peers` imports it), [`Trust`] (`gnutls_x509_trust_list_t`),
//! the one verification call ([`trust_list_verify_crt2`]) and GnuTLS's words for its bits
//! ([`status_text`]).
//!
//! Invariant: a [`Peers`] holds 1 to [`MAX_VERIFY_DEPTH`] certificates, which makes
//! [`trust_list_verify_crt2`] sound on GnuTLS 3.7.9 (see [`Peers`]). Every `unsafe` block
//! carries its `SAFETY:` argument.

use std::ffi::{CStr, c_uint};
use std::ptr;

use super::sys::{
    Crt, Datum, GNUTLS_CRT_X509, GNUTLS_DT_DNS_HOSTNAME, GNUTLS_E_CONSTRAINT_ERROR,
    GNUTLS_E_NO_CERTIFICATE_FOUND, GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE, GNUTLS_X509_FMT_DER,
    GnutlsError, MAX_VERIFY_DEPTH, TLS_FEATURE_STATUS_REQUEST, TlsFeatures, TrustList, TypedVdata,
    VERIFY_PEERS_FLAGS, gnutls_certificate_verification_status_print, gnutls_free,
    gnutls_x509_crt_deinit, gnutls_x509_crt_get_tlsfeatures, gnutls_x509_crt_import,
    gnutls_x509_crt_init, gnutls_x509_tlsfeatures_deinit, gnutls_x509_tlsfeatures_get,
    gnutls_x509_tlsfeatures_init, gnutls_x509_trust_list_add_cas, gnutls_x509_trust_list_deinit,
    gnutls_x509_trust_list_init, gnutls_x509_trust_list_verify_crt2,
};

/// A parsed certificate (`gnutls_x509_crt_t`), freed on drop.
pub struct Cert(pub(super) Crt);

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
/// dropped or reordered (GnuTLS sorts inside the verification, [`trust_list_verify_crt2`]).
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
/// The bound is a safety invariant of [`trust_list_verify_crt2`]: GnuTLS 3.7.9's
/// `gnutls_x509_trust_list_verify_crt2` copies the list into a stack array of
/// DEFAULT_MAX_VERIFY_DEPTH entries before any length check (lifted in 3.8.4, commit e369e67a,
/// CVE-2024-0567); `_gnutls_x509_cert_verify_peers` never gives it more, and neither does this.
pub struct Peers(Vec<Cert>);

impl Peers {
    /// The certificates in the order the server sent them (the leaf first).
    pub fn iter(&self) -> std::slice::Iter<'_, Cert> {
        self.0.iter()
    }

    /// The end-entity certificate (there is always one).
    pub fn leaf(&self) -> &Cert {
        &self.0[0]
    }

    /// The `i`th certificate sent, if there is one.
    pub fn get(&self, i: usize) -> Option<&Cert> {
        self.0.get(i)
    }
}

/// A trust list (`gnutls_x509_trust_list_t`) that owns its anchors, freed on drop.
pub struct Trust(pub(super) TrustList);

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

/// `gnutls_x509_trust_list_verify_crt2(tlist, peers, n, &data, 1, flags, &status, NULL)` with
/// `data = { GNUTLS_DT_DNS_HOSTNAME, hostname, 0 }` (NULL `hostname`: no name check) and
/// `flags` = [`VERIFY_PEERS_FLAGS`], as `_gnutls_x509_cert_verify_peers` calls it: GnuTLS
/// sorts the list (`_gnutls_sort_clist`), drops duplicates, completes it from the trust list,
/// verifies it under the LOW profile, then checks the leaf against `hostname`
/// (`gnutls_x509_crt_check_hostname2`: an IPv4 or IPv6 literal is matched against iPAddress
/// names, `GNUTLS_CERT_UNEXPECTED_OWNER` when nothing matches). No key purpose is given.
///
/// `Ok(0)`: trusted; `Ok(bits)`: GnuTLS's refusal bits; `Err`: the call failed.
pub fn trust_list_verify_crt2(
    trust: &Trust,
    peers: &Peers,
    hostname: Option<&CStr>,
) -> Result<c_uint, GnutlsError> {
    let peers = &peers.0;
    let n = peers.len() as c_uint; // 1..=16: Peers' invariant
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
    Ok(status)
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
