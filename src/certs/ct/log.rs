//! One CT log of certbench's own: a key (ECDSA P-256 as every real log's, or ML-DSA-44 for the
//! `pq-scts` scenario: [`LogAlgorithm`]), its LogID and its names ([`MirrorLog`]), and what goes
//! wrong reading or minting SCTs ([`CtError`]). The mirror's set of logs is
//! [`super::logs::CtLogs`]; the SCTs they sign are minted in [`super::sct`].
//!
//! Invariants: a log's LogID is SHA-256 of its SubjectPublicKeyInfo DER (RFC 6962 §3.2), fixed
//! when the log is made from its key ([`MirrorLog::generate`], or a cached key); an SCT's
//! `SignatureAndHashAlgorithm` bytes are its log's [`LogAlgorithm::tls_code`]: (4, 3), SHA-256
//! and ECDSA (RFC 5246), or (0x09, 0x04), TLS's SignatureScheme code point for ML-DSA-44
//! (draft-ietf-tls-mldsa), since RFC 6962 has no code for ML-DSA.

use std::sync::Arc;

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::signature::{KeyPair as _, ML_DSA_44_SIGNING, PqdsaKeyPair};
use rcgen::{KeyPair, PublicKeyData, SigningKey};
use sha2::{Digest, Sha256};

/// Appended to a real log's description and operator.
pub const MIRROR_SUFFIX: &str = " (certbench mirror)";
/// Why SCTs could not be read or minted.
#[derive(Debug, thiserror::Error)]
pub enum CtError {
    /// A real SCT the mirror cannot reproduce: not v1, or not ECDSA P-256 with SHA-256.
    #[error(
        "SCT from log {log_id}: version {version}, hash {hash}, signature {signature}: the mirror's logs mint only v1 ECDSA P-256 SHA-256 SCTs"
    )]
    Unsupported {
        /// The real log (base64).
        log_id: String,
        /// SCT version (0 is v1).
        version: u8,
        /// TLS hash algorithm (4 is SHA-256).
        hash: u8,
        /// TLS signature algorithm (3 is ECDSA).
        signature: u8,
    },
    /// An SCT list extension or certificate that does not parse.
    #[error("unreadable {0}")]
    Parse(&'static str),
    /// A shifted SCT timestamp outside 0..2^64 ms.
    #[error("SCT timestamp {timestamp_ms} ms shifted by {shift_secs} s is out of range")]
    Timestamp {
        /// The real timestamp.
        timestamp_ms: u64,
        /// The shift.
        shift_secs: i64,
    },
    /// A field longer than its TLS length prefix allows.
    #[error("{0} too long for its TLS length")]
    TooLong(&'static str),
    /// A certificate to issue with no SCT (an SCT list holds one at least).
    #[error("no SCT to embed")]
    NoScts,
    /// The invariant of [`super::sct::issue_with_scts`] did not hold.
    #[error("the issued tbsCertificate without its SCT list is not the precertificate's")]
    PrecertMismatch,
    /// The real log list does not parse.
    #[error("real CT log list: {0}")]
    LogList(String),
    /// rcgen failed.
    #[error("rcgen: {0}")]
    Rcgen(#[from] rcgen::Error),
    /// A log's ML-DSA key could not be made, encoded or used.
    #[error("CT log key: {0} failed")]
    Key(&'static str),
}

/// The signature algorithm of a log's key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LogAlgorithm {
    /// ECDSA P-256 with SHA-256 (every log of Chrome's list today; SCT signatures ~71 B).
    #[default]
    EcdsaP256,
    /// ML-DSA-44 (FIPS 204): SCT signatures of 2,420 B.
    MlDsa44,
}

impl LogAlgorithm {
    /// The SCT's `SignatureAndHashAlgorithm` bytes: (hash, signature) for ECDSA as RFC 5246
    /// numbers them; for ML-DSA-44 the two bytes of TLS's SignatureScheme 0x0904.
    pub fn tls_code(self) -> (u8, u8) {
        match self {
            LogAlgorithm::EcdsaP256 => (4, 3),
            LogAlgorithm::MlDsa44 => (0x09, 0x04),
        }
    }
}

/// A log's private key.
pub(super) enum LogKey {
    Ecdsa(KeyPair),
    MlDsa44(PqdsaKeyPair),
}

impl LogKey {
    fn generate(algorithm: LogAlgorithm) -> Result<LogKey, CtError> {
        Ok(match algorithm {
            LogAlgorithm::EcdsaP256 => {
                LogKey::Ecdsa(KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)?)
            }
            LogAlgorithm::MlDsa44 => LogKey::MlDsa44(
                PqdsaKeyPair::generate(&ML_DSA_44_SIGNING)
                    .map_err(|_| CtError::Key("ML-DSA-44 key generation"))?,
            ),
        })
    }

    /// The key in `pkcs8` (ECDSA P-256 or ML-DSA-44, whichever it is).
    pub(super) fn from_pkcs8(pkcs8: &[u8]) -> Option<LogKey> {
        let der = rustls_pki_types::PrivatePkcs8KeyDer::from(pkcs8);
        match KeyPair::from_pkcs8_der_and_sign_algo(&der, &rcgen::PKCS_ECDSA_P256_SHA256) {
            Ok(k) => Some(LogKey::Ecdsa(k)),
            Err(_) => {
                (PqdsaKeyPair::from_pkcs8(&ML_DSA_44_SIGNING, pkcs8).ok()).map(LogKey::MlDsa44)
            }
        }
    }

    fn algorithm(&self) -> LogAlgorithm {
        match self {
            LogKey::Ecdsa(_) => LogAlgorithm::EcdsaP256,
            LogKey::MlDsa44(_) => LogAlgorithm::MlDsa44,
        }
    }

    fn spki_and_pkcs8(&self) -> Result<(Vec<u8>, Vec<u8>), CtError> {
        Ok(match self {
            LogKey::Ecdsa(k) => (k.subject_public_key_info(), k.serialize_der()),
            LogKey::MlDsa44(k) => {
                let bad = |_| CtError::Key("ML-DSA-44 key encoding");
                let spki = k.public_key().as_der().map_err(bad)?;
                let pkcs8 = k.to_pkcs8v1().map_err(bad)?;
                (spki.as_ref().to_vec(), pkcs8.as_ref().to_vec())
            }
        })
    }

    /// `message` signed (ECDSA: a DER signature; ML-DSA-44: 2,420 bytes).
    pub(super) fn sign(&self, message: &[u8]) -> Result<Vec<u8>, CtError> {
        match self {
            LogKey::Ecdsa(k) => Ok(k.sign(message)?),
            LogKey::MlDsa44(k) => {
                let mut sig = vec![0; ML_DSA_44_SIGNING.signature_len()];
                let n =
                    (k.sign(message, &mut sig)).map_err(|_| CtError::Key("ML-DSA-44 signing"))?;
                sig.truncate(n);
                Ok(sig)
            }
        }
    }
}

/// One of the mirror's CT logs: a key, its LogID, a description and an operator.
#[derive(Clone)]
pub struct MirrorLog {
    /// `<real description> (certbench mirror)`, or what [`MirrorLog::generate`] was given.
    pub description: String,
    /// The operator's name (logs with the same operator count as one for a CT policy).
    pub operator: String,
    /// The real log this log stands in for, if any.
    pub real_log_id: Option<[u8; 32]>,
    pub(super) key: Arc<LogKey>,
    spki: Vec<u8>,
    pkcs8: Vec<u8>,
    pub(super) log_id: [u8; 32],
}

impl std::fmt::Debug for MirrorLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (f.debug_struct("MirrorLog"))
            .field("description", &self.description)
            .field("operator", &self.operator)
            .field("log_id", &base64(&self.log_id))
            .finish_non_exhaustive()
    }
}

impl MirrorLog {
    /// The log as a browser's log set holds it (`--ct`): its id, key and operator, admissible.
    pub fn ct_log(&self) -> certbench_core::ct::CtLog {
        certbench_core::ct::CtLog {
            id: *self.log_id(),
            key: self.spki_der().to_vec(),
            operator: self.operator.clone(),
            description: self.description.clone(),
            state: certbench_core::ct::LogState::Admissible,
        }
    }

    /// A log with a fresh P-256 key; in no [`super::logs::CtLogs`] (say, a log a client does not know).
    pub fn generate(description: &str, operator: &str) -> Result<MirrorLog, CtError> {
        Self::generate_with(LogAlgorithm::EcdsaP256, description, operator)
    }

    /// A log with a fresh key of `algorithm`.
    pub fn generate_with(
        algorithm: LogAlgorithm,
        description: &str,
        operator: &str,
    ) -> Result<MirrorLog, CtError> {
        Self::with_key(LogKey::generate(algorithm)?, description, operator)
    }

    /// A log of `key` (a cached one's).
    pub(super) fn with_key(
        key: LogKey,
        description: &str,
        operator: &str,
    ) -> Result<MirrorLog, CtError> {
        let (spki, pkcs8) = key.spki_and_pkcs8()?;
        Ok(MirrorLog {
            description: description.to_owned(),
            operator: operator.to_owned(),
            real_log_id: None,
            key: Arc::new(key),
            log_id: Sha256::digest(&spki).into(),
            spki,
            pkcs8,
        })
    }

    /// Its key's algorithm.
    pub fn algorithm(&self) -> LogAlgorithm {
        self.key.algorithm()
    }

    /// LogID: SHA-256 of [`Self::spki_der`] (RFC 6962 §3.2).
    pub fn log_id(&self) -> &[u8; 32] {
        &self.log_id
    }

    /// The log's public key, a DER SubjectPublicKeyInfo (the log list's `key`).
    pub fn spki_der(&self) -> &[u8] {
        &self.spki
    }

    /// The log's private key (PKCS#8 DER).
    pub fn key_pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }
}

/// Standard base64 with padding (the log list's `log_id` and `key`).
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
