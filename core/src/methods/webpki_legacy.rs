//! `webpkilegacy`: the original webpki 0.22.4 (on *ring*), the crate line of the 2017
//! experiment, as rustls 0.20 called it: `EndEntityCert::verify_is_valid_tls_server_cert`
//! then `verify_is_valid_for_dns_name`.
//!
//! Roots: webpki 0.22 trust anchors borrow their certificate, so the store keeps each
//! anchor's parts owned (subject, SPKI, name constraints), as rustls 0.20's `OwnedTrustAnchor`
//! did, and — also as rustls 0.20 did — the borrowed `TrustAnchor` list is rebuilt inside
//! every `verify` (a cheap vector of slices, counted in `verify`). Signature algorithms:
//! rustls 0.20's list. webpki 0.22 checks DNS names only, for server auth only, with no CRLs
//! and no depth limit: its [`Capabilities`] say so, and a runner skips such targets.

use certbench_schema::Stage;
use rustls_pki_types::CertificateDer;
use webpki_legacy as webpki;

use crate::chain::Chain;
use crate::error::Error;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, PeerName, Rejection, Target, Verifier};

/// rustls 0.20's `SUPPORTED_SIG_ALGS`.
static ALGS: &[&webpki::SignatureAlgorithm] = &[
    &webpki::ECDSA_P256_SHA256,
    &webpki::ECDSA_P256_SHA384,
    &webpki::ECDSA_P384_SHA256,
    &webpki::ECDSA_P384_SHA384,
    &webpki::ED25519,
    &webpki::RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
    &webpki::RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
    &webpki::RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
    &webpki::RSA_PKCS1_2048_8192_SHA256,
    &webpki::RSA_PKCS1_2048_8192_SHA384,
    &webpki::RSA_PKCS1_2048_8192_SHA512,
    &webpki::RSA_PKCS1_3072_8192_SHA384,
];

/// webpki 0.22.4.
#[derive(Clone, Copy, Debug, Default)]
pub struct WebpkiLegacy;

/// One trust anchor's parts, owned.
pub struct OwnedAnchor {
    subject: Vec<u8>,
    spki: Vec<u8>,
    name_constraints: Option<Vec<u8>>,
}

/// webpki 0.22 trust anchors, owned.
pub struct LegacyRoots(Vec<OwnedAnchor>);

impl Verifier for WebpkiLegacy {
    type Roots = LegacyRoots;

    fn library(&self) -> Library {
        Library {
            name: "webpki",
            version: crate::versions::locked("webpki").to_owned(),
            limbo_harness: Some("rust-webpki"),
        }
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }

    /// Skips roots webpki 0.22 cannot use, as rustls 0.20's `add_parsable_certificates` did;
    /// an error only when none is usable.
    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<LegacyRoots, Error> {
        crate::verifier::parsable_roots(roots, "webpki 0.22", |der| {
            webpki::TrustAnchor::try_from_cert_der(der).map(|a| OwnedAnchor {
                subject: a.subject.to_vec(),
                spki: a.spki.to_vec(),
                name_constraints: a.name_constraints.map(<[u8]>::to_vec),
            })
        })
        .map(LegacyRoots)
    }

    fn verify(
        &self,
        roots: &LegacyRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        let span = rec.start();
        let ee = webpki::EndEntityCert::try_from(chain.leaf.as_ref());
        rec.stop(Stage::ChainCreation, span);
        let ee = ee.map_err(reject)?;

        let span = rec.start();
        let anchors: Vec<webpki::TrustAnchor<'_>> = roots
            .0
            .iter()
            .map(|a| webpki::TrustAnchor {
                subject: &a.subject,
                spki: &a.spki,
                name_constraints: a.name_constraints.as_deref(),
            })
            .collect();
        let intermediates: Vec<&[u8]> = chain.intermediates.iter().map(|c| c.as_ref()).collect();
        let path = ee.verify_is_valid_tls_server_cert(
            ALGS,
            &webpki::TlsServerTrustAnchors(&anchors),
            &intermediates,
            webpki::Time::from_seconds_since_unix_epoch(target.time_or_now()),
        );
        rec.stop(Stage::Verify, span);
        path.map_err(reject)?;

        let span = rec.start();
        let name_ok = match target.peer {
            Some(PeerName::Dns(host)) => match webpki::DnsNameRef::try_from_ascii_str(host) {
                Ok(name) => ee.verify_is_valid_for_dns_name(name).map_err(reject),
                Err(e) => Err(Rejection::new(format!("invalid host name `{host}`: {e:?}"))),
            },
            // Unreachable through `DynVerifier` (the capabilities rule these out); fail closed.
            _ => Err(Rejection::new("webpki 0.22 checks DNS names only")),
        };
        rec.stop(Stage::VerifyHostname, span);
        name_ok
    }
}

fn reject(e: webpki::Error) -> Rejection {
    Rejection::new(format!("{e:?}"))
}
