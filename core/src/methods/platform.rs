//! `platform`: rustls-platform-verifier, Servo's default verifier. On Linux it is rustls'
//! `WebPkiServerVerifier` over the operating system's roots (read with rustls-native-certs
//! every time the verifier is built) plus the given roots as extras.
//!
//! Roots: the platform verifier built with the given roots as extra roots (so
//! `roots-creation` includes reading the system store). Verify: its `verify_server_cert`.

use std::sync::Arc;

use rustls::client::danger::ServerCertVerifier;
use rustls_pki_types::CertificateDer;

use super::webpki_server::{
    CAPABILITIES, ServerVerifierRoots, provider, verify_with_server_verifier,
};
use crate::chain::Chain;
use crate::error::Error;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, Rejection, Target, Verifier};

/// rustls-platform-verifier.
#[derive(Clone, Copy, Debug, Default)]
pub struct Platform;

impl Verifier for Platform {
    type Roots = ServerVerifierRoots;

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn library(&self) -> Library {
        Library {
            name: "rustls-platform-verifier",
            version: crate::versions::locked("rustls-platform-verifier").to_owned(),
            limbo_harness: None,
        }
    }

    /// Roots the platform verifier refuses as extras are left out (as the webpki methods skip
    /// unusable roots); an error only when it cannot be built at all.
    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<ServerVerifierRoots, Error> {
        let usable: Vec<_> = roots
            .iter()
            .filter(|r| webpki::anchor_from_trusted_cert(r).is_ok())
            .cloned()
            .collect();
        let anchors = super::rustls_serial::trust_anchors(&usable).unwrap_or_default();
        let v = rustls_platform_verifier::Verifier::new_with_extra_roots(usable, provider())
            .map_err(|e| Error::Roots {
                origin: "platform".into(),
                message: e.to_string(),
            })?;
        // `--revocation` finds the path's anchor among the roots given (the system's, which
        // the verifier adds, are not kept: a chain to one of those alone is not checked).
        Ok(ServerVerifierRoots(Arc::new(v), anchors))
    }

    fn verify(
        &self,
        roots: &ServerVerifierRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        verify_with_server_verifier(roots, chain, target, rec)
    }

    fn rustls_verifier(&self, roots: &ServerVerifierRoots) -> Option<Arc<dyn ServerCertVerifier>> {
        Some(roots.0.clone())
    }
}
