//! `certbench page`'s record: one load of one page with one method ([`PageLoad`]).

use serde::{Deserialize, Serialize};

use super::{Kind, Record};
use crate::names::{Named, Transport};

/// One load of one page with one method.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PageLoad {
    /// The page: its document's host.
    pub page: String,
    /// Line of the page in the pages file.
    pub line: usize,
    /// The method.
    pub method: String,
    /// The TLS stack.
    pub transport: Named<Transport>,
    /// The cache above the verifier (`none`, `chrome`, `firefox`).
    pub verify_cache: String,
    /// Certificate Transparency was checked (`--ct`), against this log list (its size and
    /// origin); absent: no CT check (also for a method that has none, in a `--ct` run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ct: Option<String>,
    /// Revocation was checked (`--revocation`): the mechanism and its data; absent: no
    /// revocation check (also for a method that has none, in a `--revocation` run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation: Option<String>,
    /// TLS sessions were offered again.
    pub resumption: bool,
    /// 1-based load number; load 1 is cold (empty cache, no session).
    pub load: u32,
    /// Connections opened.
    pub connections: u32,
    /// Of them, resumed TLS sessions (no certificate, nothing to verify).
    pub resumed: u32,
    /// Of them, failed (see `errors`).
    pub failed: u32,
    /// Each failed connection's host and reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Verifications the handshakes asked for.
    pub verifications: u64,
    /// Of them, run by the verifier.
    pub ran: u64,
    /// Of them, answered from the cache.
    pub hits: u64,
    /// Of them, waits for an identical verification in flight.
    pub coalesced: u64,
    /// Nanoseconds the handshakes spent in verification (cache lookups and waits included).
    pub verification_ns: u64,
    /// Nanoseconds the verifier itself ran.
    pub verifier_ns: u64,
    /// SCT signatures the verifier checked (`--ct`): a result from the cache checks none, nor
    /// does an SCT whose signature the browser's own cache holds (Firefox's).
    #[serde(default)]
    pub sct_checked: u64,
    /// Revocation checks the verifier ran (`--revocation`): a result from Chrome's cache
    /// checks none.
    #[serde(default)]
    pub revocation_checked: u64,
    /// Nanoseconds of those checks (their `revocation` stages), inside `verifier_ns`.
    #[serde(default)]
    pub revocation_ns: u64,
    /// Nanoseconds of the revocation data's load (`revocation-load`), once per browser: in
    /// its first load's first check, inside that load's `verifier_ns`.
    #[serde(default)]
    pub revocation_load_ns: u64,
    /// Nanoseconds of all connections (connect to response head), summed.
    pub connection_ns: u64,
    /// Nanoseconds from the document's connection to the last subresource's, wall clock.
    pub wall_ns: u64,
}

impl PageLoad {
    /// The SCT signatures the load's verifications checked; `None` without a CT check.
    pub fn scts(&self) -> Option<u64> {
        self.ct.as_ref().map(|_| self.sct_checked)
    }

    /// Verification's share of the connection time.
    pub fn share(&self) -> f64 {
        if self.connection_ns == 0 {
            0.0
        } else {
            self.verification_ns as f64 / self.connection_ns as f64
        }
    }
}

impl Record for PageLoad {
    const KIND: Kind = Kind::Page;
}
