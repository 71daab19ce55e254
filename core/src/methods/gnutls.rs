//! `gnutls`: WebKitGTK's (and Epiphany's) certificate verifier, GnuTLS, called the way
//! glib-networking calls it. glib-networking's `g_tls_database_gnutls_verify_chain`
//! (`tls/gnutls/gtlsdatabase-gnutls.c`) verifies the chain with
//! `gnutls_x509_trust_list_verify_crt(trust_list, chain, n, 0, &status, NULL)` (no flags, no
//! purpose given to GnuTLS) and then checks the identity apart
//! (`g_tls_certificate_gnutls_verify_identity`: `gnutls_x509_crt_check_hostname` for a host,
//! `gnutls_x509_crt_check_ip` for an address).
//!
//! Roots: a `gnutls_x509_trust_list_t` of the given roots (`gnutls_x509_trust_list_add_cas`;
//! glib-networking fills it from the system trust, `gnutls_x509_trust_list_add_system_trust`).
//! Chain creation: DER → `gnutls_x509_crt_t` per certificate sent, then the chain linked as
//! glib-networking links the peer's certificates (`g_tls_certificate_gnutls_build_chain`:
//! from the leaf, each certificate's issuer among those sent, by
//! `gnutls_x509_crt_check_issuer`, up to a self-issued one; certificates off that path are not
//! given to GnuTLS). Verify: the trust-list
//! verification at the target's validation time (GnuTLS's clock, see `crate::ffi::gnutls`).
//! Verify-hostname: the identity check. Like glib-networking, no EKU is asked of GnuTLS.

use std::net::IpAddr;

use certbench_analysis::Stage;
use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::error::Error;
use crate::ffi::gnutls::{self, Cert, Trust};
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
        "gnutls_x509_trust_list_verify_crt flags 0, then gnutls_x509_crt_check_hostname (glib-networking)".to_owned()
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
        let span = rec.start();
        let parsed = std::iter::once(&chain.leaf)
            .chain(&chain.intermediates)
            .map(|der| Cert::from_der(der))
            .collect::<Result<Vec<_>, _>>()
            .map(linked);
        rec.stop(Stage::ChainCreation, span);
        let mut parsed = parsed.map_err(|e| Rejection::new(format!("bad chain: {e}")))?;

        let span = rec.start();
        let status = gnutls::with_time(time, || roots.0.verify(&mut parsed));
        rec.stop(Stage::Verify, span);
        match status {
            Ok(0) => {}
            Ok(bits) => return Err(Rejection::new(gnutls::status_text(bits))),
            Err(e) => return Err(Rejection::new(format!("GnuTLS error: {e}"))),
        }

        let Some(peer) = target.peer else {
            return Ok(());
        };
        let leaf = &parsed[0];
        let span = rec.start();
        let matches = match peer {
            PeerName::Dns(host) => leaf.matches_host(host),
            PeerName::Ip(IpAddr::V4(a)) => leaf.matches_ip(&a.octets()),
            PeerName::Ip(IpAddr::V6(a)) => leaf.matches_ip(&a.octets()),
            PeerName::Email(_) => false,
        };
        rec.stop(Stage::VerifyHostname, span);
        if matches {
            Ok(())
        } else {
            Err(Rejection::new(format!(
                "The certificate's owner does not match the name {peer}"
            )))
        }
    }
}

/// The peer's certificates as glib-networking links them: the leaf, then its issuer among the
/// others, that one's issuer, and so on, until a self-issued certificate or one whose issuer
/// was not sent (each certificate used once, so the walk ends).
fn linked(mut sent: Vec<Cert>) -> Vec<Cert> {
    let mut rest = sent.split_off(1);
    let mut path = sent;
    loop {
        let last = path.last().expect("the leaf is there");
        if last.issued_by(last) {
            break;
        }
        match rest.iter().position(|c| last.issued_by(c)) {
            Some(i) => path.push(rest.swap_remove(i)),
            None => break,
        }
    }
    path
}
