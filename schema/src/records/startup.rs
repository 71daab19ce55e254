//! Start-up's records: one fresh process's load of one mechanism's data ([`StartUpRun`]),
//! and a mechanism's loads over several processes ([`StartUp`]).

use serde::{Deserialize, Serialize};

/// The fewest fresh processes a start-up figure is made from.
pub const MIN_PROCESSES: usize = 5;

/// One fresh process's load of one mechanism's data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartUpRun {
    /// What was loaded: the mechanism (`crlset`, `crlite`, `upki`, `crl`).
    pub what: String,
    /// Wall time of the load, nanoseconds.
    pub wall_ns: u64,
    /// The process's CPU time over the load, nanoseconds.
    pub cpu_ns: u64,
    /// Resident memory added by the load, bytes (negative if the kernel reclaimed some).
    pub rss_added_bytes: i64,
    /// Bytes of the data read.
    pub data_bytes: u64,
}

/// One mechanism's start-up over several fresh processes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartUp {
    /// The mechanism.
    pub what: String,
    /// Each process's run, in the order they ran.
    pub runs: Vec<StartUpRun>,
}
