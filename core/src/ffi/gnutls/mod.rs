//! Every `unsafe` GnuTLS call certbench makes, each with its SAFETY argument.
//!
//! GnuTLS (Debian's `libgnutls28-dev`, linked dynamically) is what WebKitGTK and Epiphany
//! verify with, through glib-networking. This module binds what the `gnutls` method
//! (`crate::methods::gnutls`) needs, in owned types that free what they own, and is used from
//! nowhere else; the method holds the flow (the order of the calls, after GnuTLS's
//! `gnutls_certificate_verify_peers3` and `check_ocsp_response`), this module none of it:
//!
//! - [`sys`]: the C declarations, constants, [`GnutlsError`], the version and the
//!   validation clock ([`with_time`]);
//! - [`x509`]: certificates ([`Cert`]), the peer list ([`Peers`]), trust lists ([`Trust`]),
//!   the verification call ([`trust_list_verify_crt2`]) and GnuTLS's words for its bits;
//! - [`ocsp`]: a stapled OCSP response ([`OcspResponse`]) and its `gnutls_ocsp_resp_*` calls.

pub mod ocsp;
pub mod sys;
pub mod x509;

pub use ocsp::OcspResponse;
pub use sys::{
    GNUTLS_CERT_INVALID, GNUTLS_CERT_INVALID_OCSP_STATUS, GNUTLS_CERT_MISSING_OCSP_STATUS,
    GNUTLS_CERT_REVOCATION_DATA_SUPERSEDED, GNUTLS_CERT_REVOKED, GNUTLS_CERT_UNEXPECTED_OWNER,
    GNUTLS_OCSP_CERT_GOOD, GNUTLS_OCSP_CERT_REVOKED, GNUTLS_OCSP_RESP_SUCCESSFUL,
    GNUTLS_OCSP_VERIFY_SIGNER_NOT_FOUND, GnutlsError, MAX_OCSP_VALIDITY_SECS, MAX_VERIFY_DEPTH,
    VERIFY_PEERS_FLAGS, strerror, version, with_time,
};
pub use x509::{Cert, Peers, Trust, import_peers, status_text, trust_list_verify_crt2};
