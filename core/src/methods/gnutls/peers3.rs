//! The `gnutls` method's verification: the body of GnuTLS 3.7.9's
//! `gnutls_certificate_verify_peers3` past its import ([`verify_peers3`]): the must-staple
//! rule for every peer certificate, then the one trust-list verification with the host as
//! typed data, through the safe binding of `crate::ffi::gnutls`.
//!
//! Why not `gnutls_certificate_verify_peers3` itself: it reads the peer's certificates from a
//! session's handshake state (`cert_auth_info_t`), which only a handshake fills; GnuTLS has no
//! public call that sets them. [`verify_peers3`] makes the calls it makes
//! (`lib/cert-session.c`, `_gnutls_x509_cert_verify_peers`), in its order and with its flags
//! and data; what needs a session (a stapled OCSP response) is [`super::ocsp`].

use std::ffi::{CStr, c_uint};

use crate::ffi::gnutls::{
    GNUTLS_CERT_INVALID, GNUTLS_CERT_MISSING_OCSP_STATUS, GnutlsError, Peers, Trust,
    trust_list_verify_crt2,
};

/// `gnutls_certificate_verify_peers3(session, hostname, &status)` past its import
/// (`crate::ffi::gnutls::import_peers`), as GnuTLS 3.7.9's `_gnutls_x509_cert_verify_peers` goes on, for a
/// client session whose peer stapled no OCSP response:
///
/// 1. OCSP (flags lack `GNUTLS_VERIFY_DISABLE_CRL_CHECKS`): for each peer certificate,
///    `gnutls_ocsp_status_request_get2(session, i, ..)` finds no response, so
///    `_gnutls_ocsp_verify_mandatory_stapling`: the client asked for a status (GnuTLS sends
///    `status_request` in every client hello, `gnutls_init` enables it, glib-networking does
///    not pass `GNUTLS_NO_STATUS_REQUEST`), so a certificate whose TLS features include
///    `status_request` sets `GNUTLS_CERT_INVALID | GNUTLS_CERT_MISSING_OCSP_STATUS`
///    (`Cert::requires_stapling`). Every peer certificate is checked, not only the leaf.
/// 2. `gnutls_x509_trust_list_verify_crt2(tlist, peers, n, &data, 1, flags, &status, NULL)`
///    with `data = { GNUTLS_DT_DNS_HOSTNAME, hostname, 0 }` (NULL `hostname`: no name check)
///    and `flags` = `VERIFY_PEERS_FLAGS` (`trust_list_verify_crt2`): GnuTLS sorts the list (`_gnutls_sort_clist`),
///    drops duplicates, completes it from the trust list, verifies it under the LOW profile,
///    then checks the leaf against `hostname` (`gnutls_x509_crt_check_hostname2(leaf,
///    hostname, flags)`: an IPv4 or IPv6 literal is matched against iPAddress names,
///    `GNUTLS_CERT_UNEXPECTED_OWNER` when nothing matches). No key purpose is given.
/// 3. `status |= ocsp_status`.
///
/// `Ok(0)`: trusted; `Ok(bits)`: GnuTLS's refusal bits; `Err`: a call failed (a rejection).
/// What needs the session and is not here: a stapled response, whose check
/// (`check_ocsp_response`: parse, match, signature, revoked, freshness) is
/// [`super::ocsp::check_ocsp_response`] (for the leaf, [`super::ocsp::check_stapled_ocsp`]); its bits are ORed in as
/// step 3 ORs `ocsp_status`, in place of step 1's must-staple rule for that certificate.
pub fn verify_peers3(
    trust: &Trust,
    peers: &Peers,
    hostname: Option<&CStr>,
) -> Result<c_uint, GnutlsError> {
    let mut ocsp_status: c_uint = 0;
    for cert in peers.iter() {
        if cert.requires_stapling()? {
            ocsp_status |= GNUTLS_CERT_INVALID | GNUTLS_CERT_MISSING_OCSP_STATUS;
        }
    }
    let status = trust_list_verify_crt2(trust, peers, hostname)?;
    Ok(status | ocsp_status)
}
