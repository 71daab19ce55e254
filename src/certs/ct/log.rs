//! One CT log of certbench's own: a P-256 key, its LogID and its names ([`MirrorLog`]), and
//! what goes wrong reading or minting SCTs ([`CtError`]). The mirror's set of logs is
//! [`super::logs::CtLogs`]; the SCTs they sign are minted in [`super::sct`].
//!
//! Invariant: a log's LogID is SHA-256 of its SubjectPublicKeyInfo DER (RFC 6962 §3.2), fixed
//! when the log is made from its key ([`MirrorLog::generate`], or a cached key).

use std::sync::Arc;

use rcgen::{KeyPair, PublicKeyData};
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
}

/// One of the mirror's CT logs: a P-256 key, its LogID, a description and an operator.
#[derive(Clone)]
pub struct MirrorLog {
    /// `<real description> (certbench mirror)`, or what [`MirrorLog::generate`] was given.
    pub description: String,
    /// The operator's name (logs with the same operator count as one for a CT policy).
    pub operator: String,
    /// The real log this log stands in for, if any.
    pub real_log_id: Option<[u8; 32]>,
    pub(super) key: Arc<KeyPair>,
    spki: Vec<u8>,
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
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)?;
        Ok(Self::with_key(key, description, operator))
    }

    /// A log of `key` (a cached one's).
    pub(super) fn with_key(key: KeyPair, description: &str, operator: &str) -> MirrorLog {
        let spki = key.subject_public_key_info();
        MirrorLog {
            description: description.to_owned(),
            operator: operator.to_owned(),
            real_log_id: None,
            key: Arc::new(key),
            log_id: Sha256::digest(&spki).into(),
            spki,
        }
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
        self.key.serialized_der()
    }
}

/// Standard base64 with padding (the log list's `log_id` and `key`).
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
