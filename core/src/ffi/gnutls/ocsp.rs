//! A stapled OCSP response as GnuTLS holds it ([`OcspResponse`], `gnutls_ocsp_resp_t`), with
//! one safe method per `gnutls_ocsp_resp_*` call that GnuTLS's `check_ocsp_response` makes.
//! The order of those calls and what their results mean is the `gnutls` method's
//! (`crate::methods::gnutls`); this module only binds them. Every `unsafe` block carries its
//! `SAFETY:` argument.

use std::ffi::{c_int, c_uint};
use std::ptr;

use super::sys::{
    Datum, GnutlsError, OcspResp, TimeT, gnutls_ocsp_resp_check_crt, gnutls_ocsp_resp_deinit,
    gnutls_ocsp_resp_get_single, gnutls_ocsp_resp_get_status, gnutls_ocsp_resp_import,
    gnutls_ocsp_resp_init, gnutls_ocsp_resp_verify, gnutls_ocsp_resp_verify_direct,
};
use super::x509::{Cert, Trust};

/// A stapled OCSP response as GnuTLS holds it (`gnutls_ocsp_resp_t`), freed on drop.
pub struct OcspResponse(OcspResp);

impl Drop for OcspResponse {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from gnutls_ocsp_resp_init and is freed once, here.
        unsafe { gnutls_ocsp_resp_deinit(self.0) }
    }
}

impl OcspResponse {
    /// `gnutls_ocsp_resp_init`.
    pub fn new() -> Result<OcspResponse, GnutlsError> {
        let mut resp: OcspResp = ptr::null_mut();
        // SAFETY: `resp` is writable; on success it holds a new response, freed by Drop.
        let rc = unsafe { gnutls_ocsp_resp_init(&mut resp) };
        if rc < 0 {
            return Err(GnutlsError::code("gnutls_ocsp_resp_init", rc));
        }
        Ok(OcspResponse(resp))
    }

    /// `gnutls_ocsp_resp_import(resp, der)`: GnuTLS's code on failure.
    pub fn import(&self, der: &[u8]) -> Result<(), c_int> {
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
    pub fn status(&self) -> c_int {
        // SAFETY: a live, imported response, only read.
        unsafe { gnutls_ocsp_resp_get_status(self.0) }
    }

    /// `gnutls_ocsp_resp_check_crt(resp, indx, cert)`: 0 when the `indx`th SingleResponse's
    /// CertID is `cert`'s (its serial, and the hash of its issuer's name).
    pub fn check_crt(&self, indx: c_uint, cert: &Cert) -> c_int {
        // SAFETY: a live response and a live certificate, both only read.
        unsafe { gnutls_ocsp_resp_check_crt(self.0, indx, cert.0) }
    }

    /// `gnutls_ocsp_resp_verify(resp, trust, &verify, flags)`: GnuTLS's return and its
    /// `gnutls_ocsp_verify_reason_t` bits (meaningful when the return is 0).
    pub fn verify(&self, trust: &Trust, flags: c_uint) -> (c_int, c_uint) {
        let mut verify: c_uint = 0;
        // SAFETY: a live response and a live trust list (only read: `Trust` is never changed
        // after it is built), `verify` writable.
        let rc = unsafe { gnutls_ocsp_resp_verify(self.0, trust.0, &mut verify, flags) };
        (rc, verify)
    }

    /// `gnutls_ocsp_resp_verify_direct(resp, issuer, &verify, flags)`, as [`Self::verify`].
    pub fn verify_direct(&self, issuer: &Cert, flags: c_uint) -> (c_int, c_uint) {
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
    pub fn single(&self, indx: c_uint) -> Result<(c_uint, TimeT, TimeT), c_int> {
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
