//! `rustlsserial`: rustls-webpki 0.103 on aws-lc-rs, the way rustls' `WebPkiServerVerifier`
//! calls it: `EndEntityCert::verify_for_usage` (server auth) then
//! `verify_is_valid_for_subject_name`.
//!
//! Roots: `TrustAnchor`s made with `anchor_from_trusted_cert(..).to_owned()`, as rustls'
//! `RootCertStore::add` does. Chain creation: parsing the end-entity DER into an
//! `EndEntityCert` (intermediates are parsed by webpki during path building, inside `verify`).

use std::sync::OnceLock;
use std::time::Duration;

use certbench_analysis::Stage;
use rustls_pki_types::{
    CertificateDer, ServerName, SignatureVerificationAlgorithm, TrustAnchor, UnixTime,
};
use webpki::{EndEntityCert, KeyUsage};

use super::{Rejection, Target, Verifier};
use crate::chain::Chain;
use crate::error::Error;
use crate::stages::Recorder;

/// Signature algorithms, as a static list.
pub type Algorithms = &'static [&'static dyn SignatureVerificationAlgorithm];

/// The signature algorithms rustls' aws-lc-rs provider gives `WebPkiServerVerifier`: what a
/// browser on rustls verifies certificates with.
pub fn signature_algorithms() -> Algorithms {
    static ALGS: OnceLock<Algorithms> = OnceLock::new();
    ALGS.get_or_init(|| {
        rustls::crypto::aws_lc_rs::default_provider()
            .signature_verification_algorithms
            .all
    })
}

/// rustls-webpki, one signature after the other.
#[derive(Clone, Copy, Debug)]
pub struct RustlsSerial {
    algs: Algorithms,
}

impl RustlsSerial {
    /// With rustls' aws-lc-rs algorithms ([`signature_algorithms`]).
    pub fn new() -> RustlsSerial {
        RustlsSerial::with_algorithms(signature_algorithms())
    }

    /// With another list of signature algorithms (e.g. an older library's).
    pub fn with_algorithms(algs: Algorithms) -> RustlsSerial {
        RustlsSerial { algs }
    }
}

impl Default for RustlsSerial {
    fn default() -> Self {
        RustlsSerial::new()
    }
}

/// webpki trust anchors.
pub struct WebpkiRoots(pub Vec<TrustAnchor<'static>>);

/// Builds owned trust anchors from DER roots, skipping roots webpki cannot use (as rustls'
/// `RootCertStore::add_parsable_certificates` does). An error only when none is usable.
pub fn trust_anchors(
    roots: &[CertificateDer<'static>],
) -> Result<Vec<TrustAnchor<'static>>, Error> {
    super::parsable_roots(roots, "webpki", |der| {
        webpki::anchor_from_trusted_cert(der).map(|a| a.to_owned())
    })
}

impl Verifier for RustlsSerial {
    type Roots = WebpkiRoots;

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<WebpkiRoots, Error> {
        Ok(WebpkiRoots(trust_anchors(roots)?))
    }

    fn verify(
        &self,
        roots: &WebpkiRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        verify_with(chain, target, rec, |ee, time| {
            ee.verify_for_usage(
                self.algs,
                &roots.0,
                &chain.intermediates,
                time,
                KeyUsage::server_auth(),
                None,
                None,
            )
            .map(|_| ())
        })
    }
}

/// The webpki verification both webpki methods share: they differ only in `algs`.
/// The webpki verification both webpki methods share. `verify_path` runs inside the `verify`
/// stage and does the path validation (`verify_for_usage`), however the method does it.
pub(crate) fn verify_with<'c>(
    chain: &'c Chain,
    target: Target<'_>,
    rec: &mut Recorder,
    verify_path: impl FnOnce(&EndEntityCert<'c>, UnixTime) -> Result<(), webpki::Error>,
) -> Result<(), Rejection> {
    let span = rec.start();
    let ee = EndEntityCert::try_from(&chain.leaf);
    rec.stop(Stage::ChainCreation, span);
    let ee = ee.map_err(reject)?;

    let span = rec.start();
    let path = verify_path(
        &ee,
        UnixTime::since_unix_epoch(Duration::from_secs(target.time)),
    );
    rec.stop(Stage::Verify, span);
    path.map_err(reject)?;

    let span = rec.start();
    let name_ok = match ServerName::try_from(target.host) {
        Ok(name) => ee.verify_is_valid_for_subject_name(&name).map_err(reject),
        Err(e) => Err(Rejection::new(format!(
            "invalid host name `{}`: {e}",
            target.host
        ))),
    };
    rec.stop(Stage::VerifyHostname, span);
    name_ok
}

fn reject(e: webpki::Error) -> Rejection {
    Rejection::new(format!("{e:?}"))
}
