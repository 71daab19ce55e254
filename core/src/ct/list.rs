//! The CT logs a browser knows, read from a log list in Chrome's v3 JSON format (the schema of
//! `https://www.gstatic.com/ct/log_list/v3/log_list.json`; the corpus's subset is
//! `corpus/ct-logs/log_list.json`, a mirror writes its own).
//!
//! Both browsers reduce a list to the same facts per log (Chromium's `CTLogVerifier`s and its
//! disqualified logs; Gecko's `CTLogVerifier` with `CTLogState`): the key, the operator, and
//! whether the log is admissible or retired since some time. certbench reads every state so:
//! `usable`, `qualified` and `readonly` are [`LogState::Admissible`]; `retired` and `rejected`
//! are [`LogState::Retired`] at the state's timestamp, so that SCTs issued before it still
//! count, and a check at a time before it sees the log as it was then (the corpus's chains
//! are verified at their own validation times with a list from later; see
//! corpus/ct-logs/PROVENANCE.md); `pending` logs are left out, as both browsers leave them out
//! (their SCTs are from an unknown log).
//!
//! Invariant: a log's id is the SHA-256 of its key; a listed id that is not is an error, as is
//! any malformed entry (a list is configuration: it fails whole, never silently thinner).

use std::any::Any;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

/// A log's standing at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogState {
    /// Qualified, usable or read-only: its SCTs count.
    Admissible,
    /// Retired (or rejected) at `at` (Unix seconds): its SCTs count only if issued before.
    Retired {
        /// When the log stopped being trusted for new SCTs.
        at: u64,
    },
}

/// One log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtLog {
    /// SHA-256 of `key`.
    pub id: [u8; 32],
    /// The public key, DER SubjectPublicKeyInfo.
    pub key: Vec<u8>,
    /// Its operator's name (the list's operator `name`).
    pub operator: String,
    /// Its description, e.g. `Google 'Argon2026h1' log`.
    pub description: String,
    /// Its state.
    pub state: LogState,
}

impl CtLog {
    /// Whether the log was retired at `time` (Unix seconds), as Chromium's
    /// `IsLogDisqualified` asks (a retirement later than the check is not one yet).
    pub fn retired_at(&self, time: u64) -> Option<u64> {
        match self.state {
            LogState::Retired { at } if at <= time => Some(at),
            _ => None,
        }
    }
}

/// Why a log list cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LogListError {
    /// Not JSON.
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A field missing or of another type.
    #[error("{0}")]
    Schema(String),
    /// A listed id that is not its key's SHA-256.
    #[error("log {description}: its log_id is not the SHA-256 of its key")]
    IdMismatch {
        /// The log's description.
        description: String,
    },
    /// The file could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
}

/// The logs of one list, and what each measured library made of them (built once per
/// library, before any timed stage: see [`CtLogs::prepared`]).
pub struct CtLogs {
    logs: Vec<CtLog>,
    /// Where the list came from, for samples and messages.
    pub origin: String,
    /// Whether a library that keeps a cache of SCT signature results keeps one for this set
    /// (Firefox does; off for runs that measure cold checks).
    pub cache_signatures: bool,
    prepared: Mutex<Vec<(usize, Arc<dyn Any + Send + Sync>)>>,
}

impl std::fmt::Debug for CtLogs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CtLogs")
            .field("origin", &self.origin)
            .field("logs", &self.logs.len())
            .field("cache_signatures", &self.cache_signatures)
            .finish()
    }
}

fn field<'a>(v: &'a Value, name: &str, what: &str) -> Result<&'a Value, LogListError> {
    v.get(name)
        .ok_or_else(|| LogListError::Schema(format!("{what}: no `{name}`")))
}

fn text<'a>(v: &'a Value, name: &str, what: &str) -> Result<&'a str, LogListError> {
    field(v, name, what)?
        .as_str()
        .ok_or_else(|| LogListError::Schema(format!("{what}: `{name}` is not a string")))
}

impl CtLogs {
    /// The logs of a Chrome v3 log list (`logs` and `tiled_logs` of every operator).
    pub fn from_v3_json(json: &str, origin: &str) -> Result<CtLogs, LogListError> {
        let root: Value = serde_json::from_str(json)?;
        let operators = field(&root, "operators", "log list")?
            .as_array()
            .ok_or_else(|| LogListError::Schema("`operators` is not an array".into()))?;
        let mut logs = Vec::new();
        for op in operators {
            let operator = text(op, "name", "operator")?;
            for kind in ["logs", "tiled_logs"] {
                let Some(list) = op.get(kind) else { continue };
                let list = list.as_array().ok_or_else(|| {
                    LogListError::Schema(format!("{operator}: `{kind}` is not an array"))
                })?;
                for log in list {
                    if let Some(log) = parse_log(log, operator)? {
                        logs.push(log);
                    }
                }
            }
        }
        Ok(CtLogs::new(logs, origin))
    }

    /// A list read from a file (Chrome's v3 JSON).
    pub fn load(path: &std::path::Path) -> Result<CtLogs, LogListError> {
        let json = std::fs::read_to_string(path).map_err(|e| LogListError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        CtLogs::from_v3_json(&json, &path.display().to_string())
    }

    /// A set of these logs (no signature cache).
    pub fn new(logs: Vec<CtLog>, origin: &str) -> CtLogs {
        CtLogs {
            logs,
            origin: origin.to_owned(),
            cache_signatures: false,
            prepared: Mutex::new(Vec::new()),
        }
    }

    /// The same logs, with a library's cache of SCT signature results kept across chains where
    /// the library keeps one (`page`'s Firefox model).
    pub fn with_signature_cache(mut self, on: bool) -> CtLogs {
        self.cache_signatures = on;
        self
    }

    /// How a sample's configuration names these logs, e.g. `28 logs of corpus/ct-logs`.
    pub fn label(&self) -> String {
        format!("{} logs of {}", self.logs.len(), self.origin)
    }

    /// The logs.
    pub fn logs(&self) -> &[CtLog] {
        &self.logs
    }

    /// The log with this id.
    pub fn get(&self, id: &[u8; 32]) -> Option<&CtLog> {
        self.logs.iter().find(|l| &l.id == id)
    }

    /// What `key` (one per library) made of these logs, made by `make` the first time: a
    /// library's parsed keys live as long as the set, as a browser's live as long as its
    /// list. Call it before a timed stage (it locks and may build).
    pub fn prepared<T: Any + Send + Sync, E>(
        &self,
        key: usize,
        make: impl FnOnce(&CtLogs) -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let mut slots = self.prepared.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, v)) = slots.iter().find(|(k, _)| *k == key)
            && let Ok(t) = Arc::clone(v).downcast::<T>()
        {
            return Ok(t);
        }
        let t = Arc::new(make(self)?);
        slots.push((key, t.clone() as Arc<dyn Any + Send + Sync>));
        Ok(t)
    }
}

fn parse_log(log: &Value, operator: &str) -> Result<Option<CtLog>, LogListError> {
    let description = text(log, "description", operator)?.to_owned();
    let what = format!("{operator}: {description}");
    let b64 = |name: &str| -> Result<Vec<u8>, LogListError> {
        STANDARD
            .decode(text(log, name, &what)?)
            .map_err(|e| LogListError::Schema(format!("{what}: `{name}` is not base64: {e}")))
    };
    let key = b64("key")?;
    let id: [u8; 32] = b64("log_id")?
        .try_into()
        .map_err(|_| LogListError::Schema(format!("{what}: `log_id` is not 32 bytes")))?;
    if super::digest::sha256(&key) != id {
        return Err(LogListError::IdMismatch { description });
    }
    let states = field(log, "state", &what)?
        .as_object()
        .ok_or_else(|| LogListError::Schema(format!("{what}: `state` is not an object")))?;
    let (name, body) = states
        .iter()
        .next()
        .ok_or_else(|| LogListError::Schema(format!("{what}: no state")))?;
    let since = || -> Result<u64, LogListError> {
        let t = text(body, "timestamp", &what)?;
        crate::der::rfc3339(t)
            .ok_or_else(|| LogListError::Schema(format!("{what}: timestamp {t:?} is not RFC 3339")))
    };
    let state = match name.as_str() {
        "usable" | "qualified" | "readonly" => LogState::Admissible,
        "retired" | "rejected" => LogState::Retired { at: since()? },
        "pending" => return Ok(None),
        other => {
            return Err(LogListError::Schema(format!(
                "{what}: unknown state {other:?}"
            )));
        }
    };
    Ok(Some(CtLog {
        id,
        key,
        operator: operator.to_owned(),
        description,
        state,
    }))
}
