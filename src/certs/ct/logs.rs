//! The mirror's set of CT logs ([`CtLogs`]): one per real log that signed an SCT of a corpus
//! leaf, named after the real log list, and that set as Chrome's log list v3 JSON (what a
//! client of the mirror trusts) and as the mirror's cache keeps it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::log::{CtError, LogAlgorithm, LogKey, MIRROR_SUFFIX, MirrorLog, base64};
use super::sct::{RealSct, SctSpec, real_scts, shifted};
use certbench_core::corpus::Corpus;
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
    /// The algorithm of the logs it makes (ECDSA P-256 unless [`CtLogs::with_algorithm`]).
    algorithm: LogAlgorithm,
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
            algorithm: LogAlgorithm::default(),
        })
    }

    /// The same, the logs it makes from now on signing with `algorithm` (ML-DSA-44 logs for
    /// the twins' `pq-scts` scenario).
    pub fn with_algorithm(self, algorithm: LogAlgorithm) -> CtLogs {
        CtLogs { algorithm, ..self }
    }

    /// A mirror log (of `algorithm`) for every real log that signed an SCT of a `corpus` leaf,
    /// named after `ct-logs/log_list.json` beside the corpus folder when there is one. An SCT
    /// the mirror cannot reproduce is left out here (its chain's clone reports it).
    pub fn for_corpus(corpus: &Corpus, algorithm: LogAlgorithm) -> Result<CtLogs, CtError> {
        let mut logs = match std::fs::read_to_string(real_list_path(corpus)) {
            Ok(text) => CtLogs::with_real_list(&text)?,
            Err(_) => CtLogs::new(),
        }
        .with_algorithm(algorithm);
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
        let mut log = MirrorLog::generate_with(
            self.algorithm,
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
                key: base64(l.spki_der()),
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
    pub fn to_cache(&self) -> (Vec<CachedLog>, String) {
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
    pub fn from_cache(cached: &[CachedLog], keys_pem: &str) -> Option<CtLogs> {
        let keys = pem::parse_many(keys_pem).ok()?;
        if keys.len() != cached.len() {
            return None;
        }
        let logs = (cached.iter().zip(keys))
            .map(|(c, k)| {
                let key = LogKey::from_pkcs8(k.contents())?;
                let mut log = MirrorLog::with_key(key, &c.description, &c.operator).ok()?;
                log.real_log_id = match &c.real_log_id {
                    Some(h) => Some(unhex(h)?),
                    None => None,
                };
                Some(log)
            })
            .collect::<Option<Vec<MirrorLog>>>()?;
        Some(CtLogs {
            algorithm: logs.first().map(|l| l.algorithm()).unwrap_or_default(),
            logs,
            real: BTreeMap::new(),
        })
    }
}

/// A log as the mirror's cache index keeps it (its key is in a PEM file beside).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedLog {
    description: String,
    operator: String,
    real_log_id: Option<String>,
}

/// The real log list beside the corpus folder: `<corpus>/../ct-logs/log_list.json`.
pub fn real_list_path(corpus: &Corpus) -> std::path::PathBuf {
    let parent = corpus.dir.parent().unwrap_or(&corpus.dir);
    parent.join("ct-logs").join("log_list.json")
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
