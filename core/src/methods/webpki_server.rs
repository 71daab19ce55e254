//! `webpki`: rustls' own `WebPkiServerVerifier` (rustls 0.23, aws-lc-rs provider), called
//! through its `ServerCertVerifier::verify_server_cert` — what Servo uses with the
//! `network_use_webpki_roots` pref, and what `rustlsserial` reimplements call by call.
//!
//! Roots: a `RootCertStore` (`add_parsable_certificates`) and the verifier built on it.
//! Verify: the one call, which parses the end-entity certificate, builds the path and checks
//! the name inside; no finer stage can be seen from outside, so the whole call is `verify`.

use std::sync::Arc;

use certbench_schema::Stage;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::crypto::CryptoProvider;
use rustls_pki_types::{CertificateDer, ServerName, TrustAnchor, UnixTime};

use crate::chain::Chain;
use crate::error::Error;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, PeerName, Rejection, Target, Verifier};

/// The provider Servo's connector falls back to, and certbench's rustls transport uses.
pub fn provider() -> Arc<CryptoProvider> {
    static P: std::sync::OnceLock<Arc<CryptoProvider>> = std::sync::OnceLock::new();
    P.get_or_init(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
        .clone()
}

/// rustls' `WebPkiServerVerifier`.
#[derive(Clone, Copy, Debug, Default)]
pub struct WebpkiServer;

/// A built rustls server verifier, and the trust anchors it was given (which it keeps to
/// itself): what `--ct` and `--revocation` find the path's issuers among.
pub struct ServerVerifierRoots(
    pub Arc<dyn ServerCertVerifier>,
    pub Vec<TrustAnchor<'static>>,
);

/// Verifies `chain` for `target` with any rustls server verifier, timing the call as `verify`.
pub(crate) fn verify_with_server_verifier(
    roots: &ServerVerifierRoots,
    chain: &Chain,
    target: Target<'_>,
    rec: &mut Recorder,
) -> Result<(), Rejection> {
    let name = match target.peer {
        Some(PeerName::Dns(host)) => ServerName::try_from(host)
            .map_err(|e| Rejection::new(format!("invalid host name `{host}`: {e}")))?,
        Some(PeerName::Ip(ip)) => ServerName::IpAddress(ip.into()),
        // Unreachable through `DynVerifier` (the capabilities rule these out); fail closed.
        _ => {
            return Err(Rejection::new(
                "a rustls server verifier needs a DNS or IP name",
            ));
        }
    };
    let now = UnixTime::since_unix_epoch(std::time::Duration::from_secs(target.time_or_now()));
    let span = rec.start();
    let stapled = target.stapled_ocsp.unwrap_or_default();
    let result =
        (roots.0).verify_server_cert(&chain.leaf, &chain.intermediates, &name, stapled, now);
    rec.stop(Stage::Verify, span);
    result.map_err(|e| Rejection::new(e.to_string()))?;
    // `--ct`: the issuer is looked for among the certificates sent (every corpus leaf's
    // issuer is sent).
    let algs = crate::methods::rustls_serial::signature_algorithms();
    crate::ct::check::rustls_stage(algs, chain, &[], &target, &crate::ct::check::Serial, rec)?;
    crate::revocation::rustls_stage(algs, chain, &roots.1, &target, rec)
}

/// What the rustls server verifiers express: DNS and IP names, server auth, nothing more.
pub(crate) const CAPABILITIES: Capabilities = Capabilities {
    ip_names: true,
    email_names: false,
    no_name: false,
    client_auth: false,
    max_depth: false,
    crls: false,
    // The provider's algorithms (rustls' aws-lc-rs) include ML-DSA-44/65/87.
    ml_dsa: true,
    // `--ct`: certbench's SCT check on rustls' provider (`crate::ct::check`).
    ct: crate::checks::CtSupport::Added,
    // `--revocation`: the mechanism it names (`crate::revocation::rustls_stage`).
    revocation: crate::revocation::Support::Rustls,
    mtc: false,
};

impl Verifier for WebpkiServer {
    type Roots = ServerVerifierRoots;

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn library(&self) -> Library {
        Library {
            name: "rustls-webpki",
            version: crate::versions::locked("rustls-webpki").to_owned(),
            limbo_harness: Some("rustls-webpki"),
        }
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<ServerVerifierRoots, Error> {
        let mut store = rustls::RootCertStore::empty();
        let (added, _ignored) = store.add_parsable_certificates(roots.iter().cloned());
        if added == 0 && !roots.is_empty() {
            return Err(Error::Roots {
                origin: "rustls".into(),
                message: "no root usable as a trust anchor".into(),
            });
        }
        let v = WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider())
            .build()
            .map_err(|e| Error::Roots {
                origin: "rustls".into(),
                message: e.to_string(),
            })?;
        Ok(ServerVerifierRoots(
            v,
            crate::methods::rustls_serial::trust_anchors(roots).unwrap_or_default(),
        ))
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
