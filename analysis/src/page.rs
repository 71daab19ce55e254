//! Page loads (`certbench page`): what verification costs one page load, a row per load, and
//! the tables over them — every load, and the first (cold) load apart from the later ones.
//!
//! A row belongs to one configuration (method, transport, cache, resumption, CT) and one page;
//! the summary never adds two configurations together. With `--ct` the tables add the SCT
//! signatures each load's verifications checked. `export::markdown::page` and
//! `export::csv::page` write them.

pub use certbench_schema::records::page::PageLoad;

use crate::stats::Spread;

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
