//! `mtc`: certbench's own verifier of Merkle Tree Certificates (draft-ietf-plants-merkle-tree-
//! certs-07; [`crate::mtc`]): the relying party's procedure of §7.2 (the log entry rebuilt
//! from the TBSCertificate, its inclusion proof hashed up to a subtree, the subtree one the
//! client holds, or one the CA's cosigner signed), then the X.509 checks the draft keeps
//! (validity, an end-entity for TLS servers), then the host name (rustls-webpki's matching).
//!
//! Roots: the MTC CA certificates among the roots (§5.5, with the trusted subtrees certbench
//! carries on them); the X.509 roots are ignored. Stages: `chain-creation` the certificate
//! read (and the log entry's hash computed), `verify` the proof and the X.509 checks,
//! `verify-hostname` the name. It verifies Merkle Tree Certificates only (no signed chain:
//! [`Capabilities::mtc`]); the intermediates a server might send are not read (an MTC needs
//! none).

use certbench_schema::Stage;
use rustls_pki_types::{CertificateDer, ServerName};

use crate::chain::Chain;
use crate::error::Error;
use crate::mtc::cert::MtcCert;
use crate::mtc::trust::MtcTrust;
use crate::mtc::verify::{check_end_entity, verify_proof};
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, PeerName, Rejection, Target, Verifier};

/// certbench's MTC verifier.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mtc;

/// What `mtc` expresses: DNS and IP names, server auth; Merkle Tree Certificates only.
pub(crate) const CAPABILITIES: Capabilities = Capabilities {
    ip_names: true,
    email_names: false,
    no_name: false,
    client_auth: false,
    max_depth: false,
    crls: false,
    // The leaf's key may be ML-DSA (the `mtc` profile's is ML-DSA-44): the proof has no
    // signature by it, and CertificateVerify is the TLS stack's.
    ml_dsa: true,
    ct: crate::checks::CtSupport::None,
    revocation: crate::revocation::Support::None,
    mtc: true,
};

impl Verifier for Mtc {
    type Roots = MtcTrust;

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn library(&self) -> Library {
        Library {
            name: "certbench-mtc",
            version: env!("CARGO_PKG_VERSION").to_owned(),
            limbo_harness: None,
        }
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<MtcTrust, Error> {
        Ok(MtcTrust::from_roots(roots))
    }

    /// The landmarks held, each by its trust anchor ID ([`crate::mtc::trust::landmark_id`]).
    fn trust_anchor_ids(&self, roots: &MtcTrust) -> Vec<Vec<u8>> {
        roots.landmark_ids()
    }

    fn verify(
        &self,
        roots: &MtcTrust,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        let der: &[u8] = chain.leaf.as_ref();
        let span = rec.start();
        let parsed = MtcCert::parse(der).map(|c| (c, webpki::EndEntityCert::try_from(&chain.leaf)));
        rec.stop(Stage::ChainCreation, span);
        let (cert, ee) = parsed.map_err(|e| Rejection::new(e.to_string()))?;
        let ee = ee.map_err(|e| Rejection::new(format!("end-entity certificate: {e}")))?;
        let span = rec.start();
        let algs = crate::methods::webpki_server::provider().signature_verification_algorithms;
        let checked = verify_proof(roots, &cert, &algs)
            .and_then(|_| check_end_entity(der, target.time_or_now()));
        rec.stop(Stage::Verify, span);
        checked.map_err(|e| Rejection::new(e.to_string()))?;
        let name = match target.peer {
            Some(PeerName::Dns(host)) => ServerName::try_from(host)
                .map_err(|e| Rejection::new(format!("invalid host name `{host}`: {e}")))?,
            Some(PeerName::Ip(ip)) => ServerName::IpAddress(ip.into()),
            _ => return Err(Rejection::new("`mtc` needs a DNS or IP name")),
        };
        let span = rec.start();
        let named = ee.verify_is_valid_for_subject_name(&name);
        rec.stop(Stage::VerifyHostname, span);
        named.map_err(|e| Rejection::new(e.to_string()))
    }
}
