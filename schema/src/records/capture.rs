//! `certbench capture`'s record: per site of a sites file, what was taken (its folder in the
//! corpus layout, the certificates the server sent and their keys) or why nothing was.

use serde::{Deserialize, Serialize};

use super::{Kind, Record};

/// What one site's capture took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Taken {
    /// Its folder in the corpus layout.
    pub folder: String,
    /// Certificates the server sent.
    pub certificates: usize,
    /// Their key types, leaf first.
    pub keys: Vec<String>,
}

/// One site's row: what was taken, or the error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaptureRow {
    /// The site (`host` or `host:port`).
    pub site: String,
    /// What was taken (`{"Ok": …}`), or why nothing was (`{"Err": "…"}`).
    pub outcome: Result<Taken, String>,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaptureRun {
    /// Sites captured.
    pub captured: usize,
    /// Sites in the file.
    pub sites: usize,
    /// The folder the captures went into.
    pub dir: String,
    /// One per site, in the file's order.
    pub rows: Vec<CaptureRow>,
}

impl Record for CaptureRun {
    const KIND: Kind = Kind::Capture;
}
