//! Which certificate an MTC host sends (draft-ietf-plants-merkle-tree-certs with
//! draft-ietf-tls-trust-anchor-ids): the landmark-relative certificate when the client names,
//! among the trust anchors it holds, the landmark that certificate's subtree ends at, and the
//! standalone one (cosigned by the CA and a mirror) otherwise: a client whose landmarks are
//! stale, or that names none, falls back to the larger certificate.
//!
//! The client's names arrive in the ClientHello's `certificate_authorities` extension (RFC 8446
//! §4.2.4), each trust anchor ID as one opaque name: rustls neither sends nor reads the draft's
//! own `trust_anchors` extension. On the wire that costs 2 bytes more per ID (a 16-bit length
//! instead of the draft's 8-bit one) and a different extension code point; what the server
//! decides from it is the draft's.

use std::sync::Arc;

use certbench_core::mtc::cert::MtcCert;
use certbench_core::mtc::trust::landmark_id;
use rustls::DistinguishedName;
use rustls::sign::CertifiedKey;

/// An MTC host's two certificates and the landmark the first needs.
#[derive(Debug)]
pub struct MtcChoice {
    /// The landmark's trust anchor ID (binary).
    pub landmark: Vec<u8>,
    /// The landmark-relative certificate with its key.
    pub landmark_relative: Arc<CertifiedKey>,
    /// The standalone certificate with the same key.
    pub standalone: Arc<CertifiedKey>,
}

impl MtcChoice {
    /// The choice for `landmark_relative` (whose proof names its landmark) and `standalone`;
    /// `None` when the first is no Merkle Tree Certificate.
    pub fn new(
        landmark_relative: Arc<CertifiedKey>,
        standalone: Arc<CertifiedKey>,
    ) -> Option<MtcChoice> {
        let cert = MtcCert::parse(landmark_relative.end_entity_cert().ok()?).ok()?;
        let landmark = landmark_id(cert.ca_id, cert.log_number, cert.proof.end);
        Some(MtcChoice {
            landmark,
            landmark_relative,
            standalone,
        })
    }

    /// What to send a client naming `names` (`None`: no `certificate_authorities`).
    pub fn choose(&self, names: Option<&[DistinguishedName]>) -> Arc<CertifiedKey> {
        let named = names.is_some_and(|n| n.iter().any(|d| d.as_ref() == self.landmark));
        match named {
            true => self.landmark_relative.clone(),
            false => self.standalone.clone(),
        }
    }
}
