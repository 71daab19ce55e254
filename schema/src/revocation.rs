//! What a revocation check found ([`Status`]) and a sample's record of it
//! ([`RevocationOutcome`]); the mechanisms and the soft-fail reasons are named in
//! [`crate::names`].
//!
//! Invariant: an outcome is written as it was when its fields were strings: `"status"` is
//! `good`, `revoked` or `soft-fail`, with `"depth"` beside a revoked one and `"soft_fail"`
//! beside a soft-failed one; the tests hold literal lines of those files.

use serde::{Deserialize, Serialize};

use crate::names::{Mechanism, Named, SoftFail};

/// What a revocation check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "StatusFields", try_from = "StatusFields")]
pub enum Status {
    /// Every certificate the mechanism covers was checked and none is revoked.
    Good,
    /// The certificate at `depth` (0: the leaf) is revoked.
    Revoked {
        /// Its position in the verified path, leaf first.
        depth: usize,
    },
    /// The mechanism could not say, and the browser (or the rustls user's policy) accepts
    /// the connection anyway: why, in the words of the browser's source.
    SoftFail(SoftFail),
}

impl Status {
    /// How samples spell it: `good`, `revoked` or `soft-fail`.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Good => "good",
            Status::Revoked { .. } => "revoked",
            Status::SoftFail(_) => "soft-fail",
        }
    }
}

/// `good`, `revoked: 0` (the depth), `soft-fail: not-covered`: a status as tables tell it.
impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::SoftFail(why) => write!(f, "soft-fail: {why}"),
            other => f.write_str(other.name()),
        }
    }
}

/// A status as a sample's fields hold it.
#[derive(Serialize, Deserialize)]
struct StatusFields {
    status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    soft_fail: Option<SoftFail>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    depth: Option<u32>,
}

impl From<Status> for StatusFields {
    fn from(status: Status) -> StatusFields {
        StatusFields {
            status: status.name().to_owned(),
            soft_fail: match status {
                Status::SoftFail(why) => Some(why),
                _ => None,
            },
            depth: match status {
                Status::Revoked { depth } => Some(depth as u32),
                _ => None,
            },
        }
    }
}

impl TryFrom<StatusFields> for Status {
    type Error = String;
    fn try_from(f: StatusFields) -> Result<Status, String> {
        match (f.status.as_str(), f.soft_fail) {
            ("good", _) => Ok(Status::Good),
            ("revoked", _) => Ok(Status::Revoked {
                depth: f.depth.unwrap_or(0) as usize,
            }),
            ("soft-fail", Some(why)) => Ok(Status::SoftFail(why)),
            ("soft-fail", None) => Err("a soft-fail status without its reason".into()),
            (other, _) => Err(format!(
                "unknown revocation status `{other}` (expected good, revoked, soft-fail)"
            )),
        }
    }
}

/// What a revocation check (`revocation`) found, and the data it used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevocationOutcome {
    /// The mechanism (`crlset`, `crlite`, `upki`, `crl`, `ocsp`).
    pub mechanism: Named<Mechanism>,
    /// What it found: `status`, with `soft_fail` (why) or `depth` (which certificate).
    #[serde(flatten)]
    pub status: Status,
    /// Bytes of the data the mechanism read (the CRLSet, the filter files, the CRLs, the
    /// stapled response).
    pub data_bytes: u64,
    /// Bytes the mechanism keeps in memory between checks (its parsed data; 0 for `upki`,
    /// which reads its files per check, and for a stapled response).
    pub resident_bytes: u64,
    /// This sample paid the data's load (`revocation-load`): the process's first check (a
    /// file of an earlier certbench; data is now loaded before the first sample).
    #[serde(default)]
    pub cold: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_read_and_write_as_the_string_fields_did() {
        for line in [
            r#"{"mechanism":"crlset","status":"good","data_bytes":10,"resident_bytes":5,"cold":false}"#,
            r#"{"mechanism":"crlite","status":"revoked","depth":0,"data_bytes":1,"resident_bytes":2,"cold":false}"#,
            r#"{"mechanism":"ocsp","status":"soft-fail","soft_fail":"no-data","data_bytes":0,"resident_bytes":0,"cold":true}"#,
        ] {
            let read: RevocationOutcome = serde_json::from_str(line).unwrap();
            assert_eq!(serde_json::to_string(&read).unwrap(), line);
        }
        let read: RevocationOutcome = serde_json::from_str(
            r#"{"mechanism":"crlite","status":"soft-fail","soft_fail":"not-covered","data_bytes":1,"resident_bytes":2}"#,
        )
        .unwrap();
        assert_eq!(read.status, Status::SoftFail(SoftFail::NotCovered));
        assert_eq!(read.mechanism, Mechanism::Crlite);
        assert_eq!(read.status.to_string(), "soft-fail: not-covered");
        let bad = r#"{"mechanism":"crl","status":"maybe","data_bytes":1,"resident_bytes":2}"#;
        assert!(serde_json::from_str::<RevocationOutcome>(bad).is_err());
    }
}
