//! The mirror's Certificate Transparency logs, and leaves issued with their SCTs (RFC 6962).
//!
//! The mirror has one log of its own per real log that signed an SCT embedded in a corpus leaf
//! (a [`MirrorLog`]: a fresh ECDSA P-256 key, LogID = SHA-256 of its SubjectPublicKeyInfo DER,
//! RFC 6962 §3.2). A clone's leaf carries as many SCTs as the real leaf, the i-th signed by the
//! mirror of the real leaf's i-th log, over the clone's own precertificate entry, with the real
//! timestamp shifted by the clone's validity shift and the real SCT's extensions. A mirror log
//! is named `<real description> (certbench mirror)` and run by `<real operator> (certbench
//! mirror)` when the real log list names the log, else (named by the real LogID in base64) by
//! an operator of its own: a clone's SCTs come from as many operators as the real leaf's.
//!
//! Only ECDSA P-256 with SHA-256 (hash 4, signature 3: every log of the corpus) is minted; a
//! real SCT of any other algorithm or version is a [`CtError`] for its chain, never a panic.
//!
//! The logs' list, Chrome's log list v3 JSON ([`CtLogs::log_list_json`]), is what a client of
//! the mirror trusts; the same logs and creation time always give the same text, which is how
//! a cached list is checked against its cached keys ([`CtLogs::list_made`]).
//!
//! Minting ([`issue_with_scts`], with [`SctSpec`] for test chains: any log, any timestamp, a
//! corrupted signature) is in [`sct`]; its invariant: the certificate it returns, with its SCT
//! list extension taken out of the tbsCertificate, is byte for byte the tbsCertificate every
//! SCT was signed over (RFC 6962 §3.2's `PreCert.tbs_certificate`), checked on every issue.

use std::collections::BTreeMap;
use std::sync::Arc;

use rcgen::{KeyPair, PublicKeyData};
use rustls_pki_types::PrivatePkcs8KeyDer;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::corpus::Corpus;

pub mod sct;
pub(in crate::mirror) use sct::is_sct_list;
pub use sct::{RealSct, SCT_LIST_OID, SctSpec, issue_with_scts, real_scts, shifted};

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
    /// The invariant of [`issue_with_scts`] did not hold.
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
    key: Arc<KeyPair>,
    spki: Vec<u8>,
    log_id: [u8; 32],
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

    /// A log with a fresh P-256 key; in no [`CtLogs`] (say, a log a client does not know).
    pub fn generate(description: &str, operator: &str) -> Result<MirrorLog, CtError> {
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)?;
        Ok(Self::with_key(key, description, operator))
    }

    fn with_key(key: KeyPair, description: &str, operator: &str) -> MirrorLog {
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

/// What the real log list says of a log.
#[derive(Clone, Debug)]
struct RealLog {
    description: String,
    operator: String,
}

/// The mirror's logs, in the order they were made, and the real log list that named them.
#[derive(Clone, Debug, Default)]
pub struct CtLogs {
    logs: Vec<MirrorLog>,
    /// Real LogID (base64) → description and operator, from the real log list.
    real: BTreeMap<String, RealLog>,
}

/// Chrome's log list v3 JSON, the fields the mirror reads and writes.
#[derive(Serialize, Deserialize)]
struct LogList {
    #[serde(default)]
    version: String,
    #[serde(default)]
    log_list_timestamp: String,
    operators: Vec<Operator>,
}
#[derive(Serialize, Deserialize)]
struct Operator {
    name: String,
    #[serde(default)]
    email: Vec<String>,
    #[serde(default)]
    logs: Vec<Log>,
    /// Static-CT-API logs (Let's Encrypt's Sycamore, Geomys's Tuscolo, …): the same fields
    /// that matter here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tiled_logs: Vec<Log>,
}
#[derive(Serialize, Deserialize)]
struct Log {
    #[serde(default)]
    description: String,
    log_id: String,
    #[serde(default)]
    key: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    mmd: u64,
    #[serde(default)]
    state: serde_json::Value,
}

impl CtLogs {
    /// No log yet; real logs are named by their LogID, each with an operator of its own.
    pub fn new() -> CtLogs {
        CtLogs::default()
    }

    /// No log yet; real logs are named as `real_list` (Chrome's log list v3 JSON) names them.
    pub fn with_real_list(real_list: &str) -> Result<CtLogs, CtError> {
        let list: LogList =
            serde_json::from_str(real_list).map_err(|e| CtError::LogList(e.to_string()))?;
        let real = (list.operators.iter())
            .flat_map(|o| o.logs.iter().chain(&o.tiled_logs).map(move |l| (o, l)))
            .map(|(o, l)| {
                let (description, operator) = (l.description.clone(), o.name.clone());
                (
                    l.log_id.clone(),
                    RealLog {
                        description,
                        operator,
                    },
                )
            })
            .collect();
        Ok(CtLogs {
            logs: Vec::new(),
            real,
        })
    }

    /// A mirror log for every real log that signed an SCT of a `corpus` leaf, named after
    /// `ct-logs/log_list.json` beside the corpus folder when there is one. An SCT the mirror
    /// cannot reproduce is left out here (its chain's clone reports it).
    pub fn for_corpus(corpus: &Corpus) -> Result<CtLogs, CtError> {
        let mut logs = match std::fs::read_to_string(real_list_path(corpus)) {
            Ok(text) => CtLogs::with_real_list(&text)?,
            Err(_) => CtLogs::new(),
        };
        for c in &corpus.chains {
            let Ok((_, x)) = x509_parser::parse_x509_certificate(&c.chain.leaf) else {
                continue;
            };
            for sct in real_scts(&x).ok().flatten().unwrap_or_default() {
                logs.mirror_for(&sct.log_id)?;
            }
        }
        Ok(logs)
    }

    /// Every log, in the order they were made.
    pub fn logs(&self) -> &[MirrorLog] {
        &self.logs
    }

    /// The mirror of the real log `real_log_id`, if there is one.
    pub fn mirror_of(&self, real_log_id: &[u8; 32]) -> Option<&MirrorLog> {
        (self.logs.iter()).find(|l| l.real_log_id.as_ref() == Some(real_log_id))
    }

    /// The mirror of the real log `real_log_id`, made (fresh key) if there is none yet.
    pub fn mirror_for(&mut self, real_log_id: &[u8; 32]) -> Result<&MirrorLog, CtError> {
        let i = self.index_for(real_log_id)?;
        Ok(&self.logs[i])
    }

    /// A clone's SCTs: per real SCT, its log's mirror (made if need be), its timestamp
    /// shifted by `shift_secs`, its extensions.
    pub fn specs_for(
        &mut self,
        real: &[RealSct],
        shift_secs: i64,
    ) -> Result<Vec<SctSpec<'_>>, CtError> {
        let mut made = Vec::with_capacity(real.len());
        for s in real {
            made.push((
                self.index_for(&s.log_id)?,
                shifted(s.timestamp_ms, shift_secs)?,
            ));
        }
        Ok((real.iter().zip(made))
            .map(|(s, (i, timestamp_ms))| SctSpec {
                log: &self.logs[i],
                timestamp_ms,
                extensions: s.extensions.clone(),
                corrupt_signature: false,
            })
            .collect())
    }

    /// The position of `real_log_id`'s mirror, made (fresh key) if there is none yet.
    fn index_for(&mut self, real_log_id: &[u8; 32]) -> Result<usize, CtError> {
        let mirrors = |l: &MirrorLog| l.real_log_id.as_ref() == Some(real_log_id);
        if let Some(i) = self.logs.iter().position(mirrors) {
            return Ok(i);
        }
        let id = base64(real_log_id);
        let (description, operator) = match self.real.get(&id) {
            Some(r) => (r.description.as_str(), r.operator.as_str()),
            None => (id.as_str(), id.as_str()),
        };
        let mut log = MirrorLog::generate(
            &format!("{description}{MIRROR_SUFFIX}"),
            &format!("{operator}{MIRROR_SUFFIX}"),
        )?;
        log.real_log_id = Some(*real_log_id);
        self.logs.push(log);
        Ok(self.logs.len() - 1)
    }

    /// The logs as Chrome's log list v3 JSON: operators in the order their first log was
    /// made, every log `usable` since ten years before `made` (Unix seconds), which is also
    /// the list's timestamp. The same logs and `made` give the same text.
    pub fn log_list_json(&self, made: i64) -> String {
        let rfc3339 = |secs: i64| {
            (time::OffsetDateTime::from_unix_timestamp(secs).ok())
                .and_then(|t| {
                    t.format(&time::format_description::well_known::Rfc3339)
                        .ok()
                })
                .unwrap_or_default()
        };
        let usable = serde_json::json!({ "usable": { "timestamp": rfc3339(made - 3650 * 86400) } });
        let mut operators: Vec<Operator> = Vec::new();
        for l in &self.logs {
            let log = Log {
                description: l.description.clone(),
                log_id: base64(&l.log_id),
                key: base64(&l.spki),
                url: format!("https://ct.mirror.test/{}/", hex(&l.log_id[..8])),
                mmd: 86400,
                state: usable.clone(),
            };
            match operators.iter_mut().find(|o| o.name == l.operator) {
                Some(o) => o.logs.push(log),
                None => operators.push(Operator {
                    name: l.operator.clone(),
                    email: Vec::new(),
                    logs: vec![log],
                    tiled_logs: Vec::new(),
                }),
            }
        }
        let list = LogList {
            version: "1.0".to_owned(),
            log_list_timestamp: rfc3339(made),
            operators,
        };
        serde_json::to_string_pretty(&list).expect("a log list serializes")
    }

    /// When `json` was made (Unix seconds), if it is exactly these logs' list
    /// ([`Self::log_list_json`] at its `log_list_timestamp`); `None` otherwise.
    pub fn list_made(&self, json: &str) -> Option<i64> {
        let list: LogList = serde_json::from_str(json).ok()?;
        let rfc3339 = time::format_description::well_known::Rfc3339;
        let made = time::OffsetDateTime::parse(&list.log_list_timestamp, &rfc3339).ok()?;
        let made = made.unix_timestamp();
        (self.log_list_json(made) == json).then_some(made)
    }

    /// What a cache keeps: each log's description, operator and real LogID (hex), and the
    /// keys as PEM `PRIVATE KEY` blocks in the same order.
    pub(super) fn to_cache(&self) -> (Vec<CachedLog>, String) {
        let logs = (self.logs.iter())
            .map(|l| CachedLog {
                description: l.description.clone(),
                operator: l.operator.clone(),
                real_log_id: l.real_log_id.map(|id| hex(&id)),
            })
            .collect();
        let keys: Vec<pem::Pem> = (self.logs.iter())
            .map(|l| pem::Pem::new("PRIVATE KEY", l.key_pkcs8().to_vec()))
            .collect();
        (logs, pem::encode_many(&keys))
    }

    /// The logs [`Self::to_cache`] kept, or `None` if they do not match or a key does not load.
    pub(super) fn from_cache(cached: &[CachedLog], keys_pem: &str) -> Option<CtLogs> {
        let keys = pem::parse_many(keys_pem).ok()?;
        if keys.len() != cached.len() {
            return None;
        }
        let logs = (cached.iter().zip(keys))
            .map(|(c, k)| {
                let der = PrivatePkcs8KeyDer::from(k.contents());
                let key =
                    KeyPair::from_pkcs8_der_and_sign_algo(&der, &rcgen::PKCS_ECDSA_P256_SHA256)
                        .ok()?;
                let mut log = MirrorLog::with_key(key, &c.description, &c.operator);
                log.real_log_id = match &c.real_log_id {
                    Some(h) => Some(unhex(h)?),
                    None => None,
                };
                Some(log)
            })
            .collect::<Option<_>>()?;
        Some(CtLogs {
            logs,
            real: BTreeMap::new(),
        })
    }
}

/// A log as the mirror's cache index keeps it (its key is in a PEM file beside).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct CachedLog {
    description: String,
    operator: String,
    real_log_id: Option<String>,
}

/// The real log list beside the corpus folder: `<corpus>/../ct-logs/log_list.json`.
pub fn real_list_path(corpus: &Corpus) -> std::path::PathBuf {
    let parent = corpus.dir.parent().unwrap_or(&corpus.dir);
    parent.join("ct-logs").join("log_list.json")
}

/// Standard base64 with padding (the log list's `log_id` and `key`).
pub fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    (s.len() == 64).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_hex() {
        assert_eq!(unhex(&hex(&[7; 32])), Some([7; 32]));
        assert_eq!(unhex("00"), None);
    }
}
