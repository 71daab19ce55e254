//! `gnutls`: WebKitGTK's (and Epiphany's) certificate verifier, GnuTLS, called the way
//! glib-networking (2.70 and later; Debian 12 ships 2.74) calls it. Since GNOME/glib-networking
//! commit d94c3313 ("perform certificate verification in TLS session context") a connection
//! whose database is GnuTLS's own verifies the peer in `verify_certificate_cb` →
//! `g_tls_connection_gnutls_verify_chain` (`tls/gnutls/gtlsconnection-gnutls.c`) with one
//! call, `gnutls_certificate_verify_peers3(session, hostname, &status)`; since commit ffb66818
//! there is no identity check of its own (`g_tls_certificate_gnutls_verify_identity` is gone),
//! for a host name or an IP address alike: `hostname` is the server identity's host as text
//! (`g_network_address_get_hostname`, or `g_inet_address_to_string` for a socket address),
//! and GnuTLS matches an IP literal against the leaf's iPAddress names itself.
//!
//! That call needs a handshake's session (it reads the peer's raw certificates from it), so
//! certbench makes the calls it makes, in its order and with its flags and data
//! ([`peers3::verify_peers3`], after GnuTLS 3.7.9's `lib/cert-session.c`):
//!
//! - `chain-creation`: the raw peer list as sent (leaf, then the rest in the order the server
//!   sent them), each certificate `gnutls_x509_crt_init` + `gnutls_x509_crt_import(DER)` as
//!   `_gnutls_x509_cert_verify_peers` imports it; none dropped or reordered (GnuTLS sorts
//!   inside the verification). More than 16 certificates (the credentials' verify depth) is
//!   GnuTLS's `GNUTLS_E_CONSTRAINT_ERROR`: a rejection.
//! - `verify`, one stage with the host inside: the must-staple rule for every peer certificate
//!   (no OCSP response was stapled, the client asked for one, so a certificate with the TLS
//!   feature `status_request` sets `GNUTLS_CERT_MISSING_OCSP_STATUS`), then
//!   `gnutls_x509_trust_list_verify_crt2(list, peers, n, {GNUTLS_DT_DNS_HOSTNAME, host}, 1,
//!   GNUTLS_PROFILE_TO_VFLAGS(GNUTLS_PROFILE_LOW), &status, NULL)` at the target's time
//!   (GnuTLS's clock, see `crate::ffi::gnutls`). The flags are the session's: none from the
//!   credentials, the LOW profile from the priority string (`NORMAL` with `%COMPAT`). Inside,
//!   GnuTLS sorts and completes the list, verifies it, and checks the host
//!   (`gnutls_x509_crt_check_hostname2`; `GNUTLS_CERT_UNEXPECTED_OWNER` on a mismatch). No
//!   key purpose is given (`verify_peers3` passes none), as before. There is no
//!   `verify-hostname` stage: the host is checked in the same call.
//!
//! Roots: a `gnutls_x509_trust_list_t` of the given roots (`gnutls_x509_trust_list_add_cas`;
//! glib-networking fills it from the system trust, `gnutls_x509_trust_list_add_system_trust`).
//! - `revocation` (`--revocation`): the stapled OCSP response, if the target carries one
//!   ([`ocsp::check_stapled_ocsp`], GnuTLS's own OCSP calls in the order of
//!   `check_ocsp_response`), after the verification (GnuTLS makes it just before, in the same
//!   call); without a response, the must-staple rule as above and no revocation answer.
//!
//! Files: this one, the [`Verifier`] (roots, the peer list, the host, the stages, the refusal
//! text); [`peers3`], the body of `gnutls_certificate_verify_peers3`; [`ocsp`], GnuTLS's
//! `check_ocsp_response` and its verdict. The `unsafe` calls they make are all in
//! `crate::ffi::gnutls`, through safe functions.

pub mod ocsp;
pub mod peers3;

pub use ocsp::{
    OcspCheck, OcspStep, check_ocsp_response, check_stapled_ocsp, check_stapled_ocsp_peer,
};
pub use peers3::verify_peers3;

use certbench_schema::Stage;
use rustls_pki_types::CertificateDer;
use std::ffi::{CString, c_uint};

use crate::chain::Chain;
use crate::error::Error;
use crate::ffi::gnutls::{self, Cert, GNUTLS_CERT_INVALID, GNUTLS_CERT_UNEXPECTED_OWNER, Trust};
use crate::revocation::Mechanism;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, PeerName, Rejection, Target, Verifier};

/// GnuTLS as glib-networking calls it.
#[derive(Clone, Debug, Default)]
pub struct GnutlsVerifier;

/// A GnuTLS trust list.
pub struct GnutlsRoots(pub Trust);

impl GnutlsVerifier {
    /// The verification policy, as samples record it (see the module docs).
    pub fn policy(&self) -> String {
        "gnutls_certificate_verify_peers3(session, host) as glib-networking >= 2.70 calls it: \
         the raw peer list imported as sent, must-staple (TLS feature status_request, no \
         stapled response), gnutls_x509_trust_list_verify_crt2 with GNUTLS_DT_DNS_HOSTNAME \
         host and flags GNUTLS_PROFILE_TO_VFLAGS(GNUTLS_PROFILE_LOW) (priority NORMAL:%COMPAT), \
         host (and IP literal) checked inside, no key purpose"
            .to_owned()
    }
}

impl Verifier for GnutlsVerifier {
    type Roots = GnutlsRoots;

    fn library(&self) -> Library {
        Library {
            name: "GnuTLS",
            version: gnutls::version(),
            limbo_harness: None,
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            ip_names: true,
            no_name: true,
            // `--revocation`: the stapled OCSP response, as GnuTLS checks it.
            revocation: crate::revocation::Support::Own(crate::revocation::Mechanism::Ocsp),
            ..Capabilities::default()
        }
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<GnutlsRoots, Error> {
        let certs = crate::verifier::parsable_roots(roots, "gnutls", |der| Cert::from_der(der))?;
        Trust::new(certs)
            .map(GnutlsRoots)
            .map_err(|e| Error::Roots {
                origin: "gnutls".into(),
                message: e.to_string(),
            })
    }

    fn verify(
        &self,
        roots: &GnutlsRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        let time = i64::try_from(target.time_or_now())
            .map_err(|_| Rejection::new("validation time out of range"))?;
        // The `hostname` glib-networking passes: the identity's host as text (an IP address
        // in its canonical text form, IPv6 without brackets), or NULL without one.
        let hostname = match target.peer {
            None => None,
            Some(PeerName::Dns(host)) => Some(
                CString::new(host)
                    .map_err(|_| Rejection::new("host name with a NUL byte: no name matches"))?,
            ),
            Some(PeerName::Ip(ip)) => {
                Some(CString::new(ip.to_string()).expect("an IP address's text has no NUL"))
            }
            Some(PeerName::Email(_)) => {
                return Err(Rejection::new(
                    "glib-networking gives GnuTLS no e-mail name to check",
                ));
            }
        };

        let span = rec.start();
        let raw: Vec<&[u8]> = chain.iter().map(|der| der.as_ref()).collect();
        let peers = gnutls::import_peers(&raw);
        rec.stop(Stage::ChainCreation, span);
        let peers = peers.map_err(|e| Rejection::new(format!("bad chain: {e}")))?;

        let span = rec.start();
        let status = gnutls::with_time(time, || {
            verify_peers3(&roots.0, &peers, hostname.as_deref())
        });
        rec.stop(Stage::Verify, span);
        match status {
            Ok(0) => {}
            Ok(bits) => return Err(Rejection::new(refusal(bits, target.peer))),
            Err(e) => return Err(Rejection::new(format!("GnuTLS error: {e}"))),
        }
        let Some((_, data)) = target.revocation else {
            return Ok(());
        };
        // `revocation`: the stapled response, as `check_ocsp_response` checks it for the
        // leaf, on the peers already imported, its signer looked for in the trust list, then
        // in the leaf's issuer as sent (by name). Without one, the must-staple rule was
        // applied inside `verify_peers3`: nothing is left to check.
        let staple = target.stapled_ocsp;
        let now = target.time_or_now();
        let issuer = crate::der::issuer(&chain.leaf).and_then(|name| {
            chain
                .iter()
                .skip(1)
                .position(|c| crate::der::SignedParts::parse(c).is_ok_and(|p| p.subject == name))
        });
        let checked = data.run(Mechanism::Ocsp, staple, rec, |_| match staple {
            None => crate::revocation::no_data(),
            Some(_) => {
                check_stapled_ocsp_peer(staple, &peers, issuer.map(|i| i + 1), Some(&roots.0), now)
            }
        });
        Ok(checked?)
    }
}

/// The reason for refusal bits `bits`: GnuTLS's own words
/// (`gnutls_certificate_verification_status_print`), led by the name when the host is the only
/// fault (`GNUTLS_CERT_UNEXPECTED_OWNER` alone), and naming the bit and the name besides
/// GnuTLS's words when the host is one fault among others.
fn refusal(bits: c_uint, peer: Option<PeerName<'_>>) -> String {
    let text = gnutls::status_text(bits);
    if bits & GNUTLS_CERT_UNEXPECTED_OWNER == 0 {
        return text;
    }
    let name = peer.map(|p| p.to_string()).unwrap_or_default();
    if bits & !(GNUTLS_CERT_UNEXPECTED_OWNER | GNUTLS_CERT_INVALID) == 0 {
        format!(
            "The certificate's owner does not match the name {name} \
             (GNUTLS_CERT_UNEXPECTED_OWNER): {text}"
        )
    } else {
        format!("{text} (GNUTLS_CERT_UNEXPECTED_OWNER: the name {name} is not the certificate's)")
    }
}
