//! Page loads (`certbench page`): what verification costs one page load, a row per load, and
//! the tables over them — every load, and the first (cold) load apart from the later ones.
//!
//! A row belongs to one configuration (method, transport, cache, resumption, CT) and one page;
//! the summary never adds two configurations together. With `--ct` the tables add the SCT
//! signatures each load's verifications checked.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::export::markdown::table::plain_table;
use crate::units::human;

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
    /// Verification's share of the connection time.
    pub fn share(&self) -> f64 {
        if self.connection_ns == 0 {
            0.0
        } else {
            self.verification_ns as f64 / self.connection_ns as f64
        }
    }
}

fn percent(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

/// Whether any load checked CT (the tables then show the SCT signatures checked).
pub fn any_ct(loads: &[PageLoad]) -> bool {
    loads.iter().any(|l| l.ct.is_some())
}

/// A load's SCT signatures checked, or `—` without a CT check.
pub fn sct_checked(l: &PageLoad) -> String {
    match l.ct {
        Some(_) => l.sct_checked.to_string(),
        None => "—".to_owned(),
    }
}

/// Markdown: every load, then per (page, method) the cold load beside the median of the
/// later ones.
pub fn render_markdown(loads: &[PageLoad]) -> String {
    let ct = any_ct(loads);
    // Several configurations in one run (`--verify-cache chrome,firefox`): each row says its.
    let mixed = loads.iter().any(|l| config(l) != config(&loads[0]));
    let rows = loads
        .iter()
        .map(|l| {
            let mut row = vec![
                l.page.clone(),
                if mixed {
                    format!("{} ({})", l.method, config(l))
                } else {
                    l.method.clone()
                },
                if l.load == 1 {
                    "1 (cold)".to_owned()
                } else {
                    l.load.to_string()
                },
                l.connections.to_string(),
                l.resumed.to_string(),
                l.ran.to_string(),
                l.hits.to_string(),
                l.coalesced.to_string(),
                human(l.verification_ns as f64),
                human(l.connection_ns as f64),
                percent(l.share()),
                human(l.wall_ns as f64),
                l.failed.to_string(),
            ];
            if ct {
                row.insert(8, sct_checked(l));
            }
            row
        })
        .collect();
    let mut headers = vec![
        "page",
        "method",
        "load",
        "connections",
        "resumed",
        "verifications run",
        "cache hits",
        "coalesced",
        "verification time",
        "connection time",
        "share",
        "load wall time",
        "failed",
    ];
    if ct {
        headers.insert(8, "SCT signatures checked");
    }
    let mut out = plain_table(&headers, rows, 3);
    out.push('\n');
    let summary = summary_rows(loads, ct);
    if !summary.is_empty() {
        let mut headers = vec![
            "page",
            "method",
            "cold: run",
            "cold: verification",
            "later: run",
            "later: hits",
            "later: verification",
            "later ÷ cold",
            "n later",
        ];
        if ct {
            headers.insert(4, "cold: SCT signatures checked");
            headers.insert(8, "later: SCT signatures checked");
        }
        let _ = write!(
            out,
            "\n### Cold load against later loads (median of loads 2 and on)\n\n{}\n",
            plain_table(&headers, summary, 2)
        );
    }
    let errors: Vec<&String> = loads.iter().flat_map(|l| &l.errors).collect();
    if !errors.is_empty() {
        let _ = writeln!(out, "\nFailed connections:\n");
        for e in errors {
            let _ = writeln!(out, "- {e}");
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    crate::stats::middle(&mut v)
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
        median(self.later.iter().map(|l| f(l)).collect())
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

fn summary_rows(loads: &[PageLoad], ct: bool) -> Vec<Vec<String>> {
    let groups = cold_warm(loads);
    let mixed = groups.iter().any(|g| g.config != groups[0].config);
    groups
        .into_iter()
        .map(|g| {
            let (page, method, cold) = (g.page, g.method, g.cold);
            let later = &g.later;
            let m = |f: fn(&PageLoad) -> f64| median(later.iter().map(|l| f(l)).collect());
            let later_ns = m(|l| l.verification_ns as f64);
            let later_sct = match cold.ct {
                Some(_) => m(|l| l.sct_checked as f64).map_or("—".into(), |v| format!("{v}")),
                None => "—".to_owned(),
            };
            let mut row = vec![
                page.to_owned(),
                if mixed {
                    format!("{method} ({})", g.config)
                } else {
                    method.to_owned()
                },
                cold.ran.to_string(),
                human(cold.verification_ns as f64),
                m(|l| l.ran as f64).map_or("—".into(), |v| format!("{v}")),
                m(|l| l.hits as f64).map_or("—".into(), |v| format!("{v}")),
                later_ns.map_or("—".into(), human),
                later_ns
                    .filter(|_| cold.verification_ns > 0)
                    .map_or("—".into(), |v| {
                        format!("×{:.2}", v / cold.verification_ns as f64)
                    }),
                later.len().to_string(),
            ];
            if ct {
                row.insert(4, sct_checked(cold));
                row.insert(8, later_sct);
            }
            row
        })
        .collect()
}

/// CSV: one row per load, every field (the errors in one cell, `; `-separated).
pub fn render_csv(loads: &[PageLoad]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "page",
        "line",
        "method",
        "transport",
        "verify_cache",
        "resumption",
        "load",
        "connections",
        "resumed",
        "failed",
        "verifications",
        "ran",
        "hits",
        "coalesced",
        "verification_ns",
        "verifier_ns",
        "connection_ns",
        "wall_ns",
        "share",
        "ct",
        "sct_checked",
        "errors",
    ]);
    for l in loads {
        let _ = w.write_record([
            l.page.clone(),
            l.line.to_string(),
            l.method.clone(),
            l.transport.clone(),
            l.verify_cache.clone(),
            l.resumption.to_string(),
            l.load.to_string(),
            l.connections.to_string(),
            l.resumed.to_string(),
            l.failed.to_string(),
            l.verifications.to_string(),
            l.ran.to_string(),
            l.hits.to_string(),
            l.coalesced.to_string(),
            l.verification_ns.to_string(),
            l.verifier_ns.to_string(),
            l.connection_ns.to_string(),
            l.wall_ns.to_string(),
            format!("{:.6}", l.share()),
            l.ct.clone().unwrap_or_default(),
            l.sct_checked.to_string(),
            l.errors.join("; "),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(n: u32, ran: u64, hits: u64, ns: u64) -> PageLoad {
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
    fn the_summary_sets_the_cold_load_beside_the_median_of_later_ones() {
        let loads = [
            load(1, 3, 0, 300_000),
            load(2, 0, 3, 10_000),
            load(3, 0, 3, 20_000),
        ];
        let md = render_markdown(&loads);
        assert!(md.contains("| 1 (cold) "), "{md}");
        let row = md
            .lines()
            .rev()
            .find(|l| l.starts_with("| a.test"))
            .unwrap();
        // cold: 3 run, 300 µs; later: 0 run, 3 hits, median 15 µs = ×0.05 of cold, n 2.
        let cells: Vec<&str> = row
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(
            cells,
            [
                "a.test",
                "rustlsserial",
                "3",
                "300 µs",
                "0",
                "3",
                "15.0 µs",
                "×0.05",
                "2"
            ]
        );
        assert!((loads[0].share() - 0.1).abs() < 1e-9);
        let csv = render_csv(&loads);
        assert_eq!(csv.lines().count(), 4, "{csv}");
        assert!(csv.lines().next().unwrap().contains("verification_ns"));
        crate::export::golden::check("page.md", &md);
        crate::export::golden::check("page.csv", &csv);
        // Without CT, no SCT column.
        assert!(!md.contains("SCT"), "{md}");
    }

    #[test]
    fn with_ct_the_tables_show_the_sct_signatures_checked_and_older_files_still_read() {
        let mut loads = [load(1, 3, 0, 300_000), load(2, 3, 0, 200_000)];
        for (l, checked) in loads.iter_mut().zip([6, 2]) {
            l.verify_cache = "firefox".into();
            l.ct = Some("5 logs of mirror".into());
            l.sct_checked = checked;
        }
        let md = render_markdown(&loads);
        assert!(md.contains("| SCT signatures checked |"), "{md}");
        assert!(md.contains("cold: SCT signatures checked"), "{md}");
        let row = |load: &str| -> Vec<String> {
            let line = md.lines().find(|l| l.contains(load)).unwrap();
            line.split('|').map(|c| c.trim().to_owned()).collect()
        };
        let header = row("| page ");
        let at = header
            .iter()
            .position(|c| c == "SCT signatures checked")
            .unwrap();
        assert_eq!(row("| 1 (cold) ")[at], "6", "{md}");
        assert!(config(&loads[0]).ends_with(", CT (5 logs of mirror)"));
        let csv = render_csv(&loads);
        assert!(
            csv.lines().nth(1).unwrap().contains(",5 logs of mirror,6,"),
            "{csv}"
        );
        crate::export::golden::check("page-ct.md", &md);
        crate::export::golden::check("page-ct.csv", &csv);
        // A file written before these fields existed reads as no CT.
        let mut json = serde_json::to_value(&loads[0]).unwrap();
        let obj = json.as_object_mut().unwrap();
        obj.remove("ct");
        obj.remove("sct_checked");
        let old: PageLoad = serde_json::from_value(json).unwrap();
        assert_eq!((old.ct, old.sct_checked), (None, 0));
    }
}
