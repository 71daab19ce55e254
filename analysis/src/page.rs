//! Page loads (`certbench page`): what verification costs one page load, a row per load, and
//! the tables over them — every load, and the first (cold) load apart from the later ones.
//!
//! A row belongs to one configuration (method, transport, cache, resumption, CT) and one page;
//! the summary never adds two configurations together. With `--ct` the tables add the SCT
//! signatures each load's verifications checked. `export::markdown::page` and
//! `export::csv::page` write them.

use serde::{Deserialize, Serialize};

use crate::stats::Spread;

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
    pub transport: String,
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

/// Whether any load checked CT (the tables then show the SCT signatures checked).
pub fn any_ct(loads: &[PageLoad]) -> bool {
    loads.iter().any(|l| l.ct.is_some())
}

/// The configuration of a load beyond its method: transport, cache, resumption, CT.
pub fn config(l: &PageLoad) -> String {
    format!(
        "{}, cache {}, {}{}{}",
        l.transport,
        l.verify_cache,
        if l.resumption {
            "resumption"
        } else {
            "full handshakes"
        },
        l.ct.as_ref()
            .map_or(String::new(), |logs| format!(", CT ({logs})")),
        l.revocation
            .as_ref()
            .map_or(String::new(), |r| format!(", revocation ({r})"))
    )
}

/// One (page, method, configuration): its cold load and its later loads.
pub struct ColdWarm<'a> {
    /// The page.
    pub page: &'a str,
    /// The method.
    pub method: &'a str,
    /// [`config`] of its loads.
    pub config: String,
    /// Load 1.
    pub cold: &'a PageLoad,
    /// Loads 2 and on.
    pub later: Vec<&'a PageLoad>,
}

impl ColdWarm<'_> {
    /// The median over the later loads of `f`, if there are any.
    pub fn later_median(&self, f: fn(&PageLoad) -> f64) -> Option<f64> {
        Spread::median_of(self.later.iter().map(|l| f(l)))
    }
}

/// The loads grouped by (page, method, configuration), in order of appearance; groups
/// without a load 1 are left out.
pub fn cold_warm(loads: &[PageLoad]) -> Vec<ColdWarm<'_>> {
    let mut keys: Vec<(usize, &str, &str, String)> = Vec::new();
    for l in loads {
        let k = (l.line, l.page.as_str(), l.method.as_str(), config(l));
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .filter_map(|(line, page, method, conf)| {
            let of = || {
                loads
                    .iter()
                    .filter(|l| l.line == line && l.method == method && config(l) == conf)
            };
            Some(ColdWarm {
                page,
                method,
                cold: of().find(|l| l.load == 1)?,
                later: of().filter(|l| l.load > 1).collect(),
                config: conf,
            })
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Load `n` of a.test with rustlsserial, Chrome's cache: `ran` verifications run, `hits`
    /// from the cache, `ns` of verification.
    pub(crate) fn load(n: u32, ran: u64, hits: u64, ns: u64) -> PageLoad {
        PageLoad {
            page: "a.test".into(),
            line: 1,
            method: "rustlsserial".into(),
            transport: "rustls".into(),
            verify_cache: "chrome".into(),
            ct: None,
            resumption: false,
            load: n,
            connections: 3,
            resumed: 0,
            failed: 0,
            errors: Vec::new(),
            verifications: ran + hits,
            ran,
            hits,
            coalesced: 0,
            verification_ns: ns,
            verifier_ns: ns,
            sct_checked: 0,
            revocation: None,
            revocation_checked: 0,
            revocation_ns: 0,
            revocation_load_ns: 0,
            connection_ns: 10 * ns,
            wall_ns: 20 * ns,
        }
    }

    #[test]
    fn share_is_verification_over_connection_and_older_files_read_as_no_ct() {
        let l = load(1, 3, 0, 300_000);
        assert!((l.share() - 0.1).abs() < 1e-9);
        assert!(!any_ct(std::slice::from_ref(&l)));
        // A file written before these fields existed reads as no CT.
        let mut json = serde_json::to_value(&l).unwrap();
        let obj = json.as_object_mut().unwrap();
        obj.remove("ct");
        obj.remove("sct_checked");
        let old: PageLoad = serde_json::from_value(json).unwrap();
        assert_eq!((old.ct, old.sct_checked), (None, 0));
    }
}
