//! The run header: what a run was, written beside its samples file
//! ([`crate::io::run_info_path`]) and read by reports for their header.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What a run was: written by the measuring side next to its JSONL file
/// ([`crate::io::run_info_path`]), read by reports for their header. Optional: a JSONL file without it
/// (a Servo build's, say) is reported all the same.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The command line, program first.
    pub command: Vec<String>,
    /// CPU model and count, e.g. `AMD EPYC, 2 cores`.
    pub machine: String,
    /// Operating system and kernel.
    pub os: String,
    /// Library → version (OpenSSL, rustls, rustls-webpki, …).
    pub versions: BTreeMap<String, String>,
    /// When the run started, Unix seconds.
    pub started: u64,
    /// For a driver run: the command that measures the same with the other hook (for the
    /// answer's last line), as the run itself wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_hook: Option<String>,
    /// For a driver run written by an older certbench: the options that decided what its
    /// samples measure, as (flag, value), in the run's own words (now `spec`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured_with: Vec<(String, String)>,
    /// For a driver run: what its samples measure, typed by certbench (its `RunSpec`, each
    /// value by name); `--resume` compares it with the resumed run's field by field. Headers
    /// written before it have `measured_with` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<serde_json::Value>,
}
