//! Tables built from samples: the seed's shape (rows = sites, columns = stages, one table per
//! method) and a per-site comparison of methods.
//!
//! Warm-up samples never enter a table. Rows and tables keep the order in which their first
//! sample appears, so a run's own order (sites file, corpus order) is the table order.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::describe::Describe;
use crate::stats::Summary;
use certbench_schema::{Config, Sample, Stage};

/// One row of a [`SeedTable`]: one site (one stored chain) under one method.
#[derive(Clone, Debug, Serialize)]
pub struct SeedRow {
    /// Row label: the site id ([`Sample::site_id`]), with the chain's source added when a
    /// site has several chains.
    pub label: String,
    /// The site id: host, with the port and path when not the default.
    pub site: String,
    /// Stored chain identifier, when there is one.
    pub chain: Option<String>,
    /// Number of (non-warm-up) samples measured in the row: error and unsupported samples are
    /// not counted.
    pub n: usize,
    /// `ok`, the rejection or error reason, or a mix with counts.
    pub verdict: String,
    /// True when every sample in the row had all its verdicts `ok`.
    pub all_ok: bool,
    /// True when `roots-creation` came from a cached store.
    pub roots_cached: bool,
    /// Statistics per stage the samples recorded.
    pub cells: BTreeMap<Stage, Summary>,
    /// Statistics of the verifier's own cost ([`Sample::own_cost`]), where the samples have
    /// `total-verification`.
    pub own_cost: Option<Summary>,
    /// With `--ct`: the own cost less the `ct` stage, sample by sample (what the same
    /// verification costs without its CT check), where the samples have a `ct` stage.
    pub own_without_ct: Option<Summary>,
    /// The own cost less the `ct` and `revocation` stages, sample by sample (what the path
    /// alone cost), where the samples have either.
    pub own_path: Option<Summary>,
    /// What the samples checked beyond the path, in words (`CT + crlite`), where they checked
    /// anything: the `ct` stage and the revocation mechanism the samples name.
    pub checks: Option<String>,
}

/// The seed's table for one method under one configuration: rows = sites, columns = stages.
#[derive(Clone, Debug, Serialize)]
pub struct SeedTable {
    /// Method name.
    pub method: String,
    /// The configuration every sample of the table was measured under.
    pub config: Config,
    /// What tells this table's configuration apart from the others' of the same report
    /// ([`Config::distinguishing`]); empty when the report has one configuration.
    pub config_label: String,
    /// Stages present in at least one row, in [`Stage::ALL`] order.
    pub stages: Vec<Stage>,
    /// Rows, in order of first appearance.
    pub rows: Vec<SeedRow>,
}

impl SeedTable {
    /// The table's name: the method, with what tells its configuration apart in brackets.
    pub fn name(&self) -> String {
        if self.config_label.is_empty() {
            self.method.clone()
        } else {
            format!("{} [{}]", self.method, self.config_label)
        }
    }
}

type RowKey = (String, Option<String>);
/// (method, configuration, rows with their samples), while grouping.
type Grouping<'a> = (String, &'a Config, Vec<(RowKey, Vec<&'a Sample>)>);

/// Groups samples into one [`SeedTable`] per (method, configuration); rows per (site id,
/// chain).
pub fn build_seed_tables(samples: &[Sample]) -> Vec<SeedTable> {
    let mut tables: Vec<Grouping<'_>> = Vec::new();
    for s in samples.iter().filter(|s| !s.warmup) {
        let t = match tables
            .iter()
            .position(|(m, c, _)| *m == s.method && **c == s.config)
        {
            Some(i) => i,
            None => {
                tables.push((s.method.clone(), &s.config, Vec::new()));
                tables.len() - 1
            }
        };
        let rows = &mut tables[t].2;
        let key = (s.site_id(), s.chain.clone());
        match rows.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(s),
            None => rows.push((key, vec![s])),
        }
    }
    let configs: Vec<(&str, &Config)> = tables.iter().map(|(m, c, _)| (m.as_str(), *c)).collect();
    tables
        .iter()
        .map(|(method, config, rows)| {
            let rows: Vec<SeedRow> = rows
                .iter()
                .map(|((site, chain), group)| {
                    let label = row_label(site, chain, rows.iter().map(|(k, _)| k));
                    seed_row(label, site, chain, group)
                })
                .collect();
            let stages = Stage::ALL
                .iter()
                .copied()
                .filter(|st| rows.iter().any(|r| r.cells.contains_key(st)))
                .collect();
            SeedTable {
                method: method.clone(),
                config: (*config).clone(),
                config_label: config.distinguishing(method, &configs),
                stages,
                rows,
            }
        })
        .collect()
}

fn row_label<'a>(
    site: &str,
    chain: &Option<String>,
    keys: impl Iterator<Item = &'a RowKey>,
) -> String {
    let same_site = keys.filter(|(s, _)| s == site).count();
    match chain {
        Some(c) if same_site > 1 => {
            let source = c.split_once("__").map_or(c.as_str(), |(_, src)| src);
            format!("{site} [{source}]")
        }
        _ => site.to_owned(),
    }
}

fn seed_row(label: String, site: &str, chain: &Option<String>, group: &[&Sample]) -> SeedRow {
    let mut cells = BTreeMap::new();
    // Failed samples (errors) do not enter the statistics: what they timed did not complete;
    // nor do unsupported ones, which timed nothing. Rejections do: the verifier ran and
    // answered.
    let measured: Vec<&&Sample> = group.iter().filter(|s| s.verdict.measured()).collect();
    for &stage in Stage::ALL {
        let values: Vec<u64> = measured.iter().filter_map(|s| s.stage(stage)).collect();
        if let Some(summary) = Summary::of(&values) {
            cells.insert(stage, summary);
        }
    }
    let own: Vec<u64> = measured.iter().filter_map(|s| s.own_cost()).collect();
    let without_ct: Vec<u64> = measured
        .iter()
        .filter_map(|s| Some(s.own_cost()?.saturating_sub(s.stage(Stage::Ct)?)))
        .collect();
    let path: Vec<u64> = measured
        .iter()
        .filter(|s| s.stage(Stage::Ct).is_some() || s.stage(Stage::Revocation).is_some())
        .filter_map(|s| {
            let beyond = s.stage(Stage::Ct).unwrap_or(0) + s.stage(Stage::Revocation).unwrap_or(0);
            Some(s.own_cost()?.saturating_sub(beyond))
        })
        .collect();
    SeedRow {
        own_path: Summary::of(&path),
        checks: checks_of(&measured),
        own_cost: Summary::of(&own),
        own_without_ct: Summary::of(&without_ct),
        label,
        site: site.to_owned(),
        chain: chain.clone(),
        n: measured.len(),
        verdict: verdict_label(group),
        all_ok: group.iter().all(|s| s.verdict.is_ok()),
        roots_cached: group.iter().any(|s| s.meta.roots_cached),
        cells,
    }
}

/// What `samples` checked beyond the path: `CT` when one has a `ct` stage, then each
/// revocation mechanism they name, joined by ` + `; `None` when nothing.
fn checks_of(samples: &[&&Sample]) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if samples.iter().any(|s| s.stage(Stage::Ct).is_some()) {
        parts.push("CT".to_owned());
    }
    for s in samples {
        if let Some(r) = &s.meta.revocation
            && !parts.contains(&r.mechanism.to_string())
        {
            parts.push(r.mechanism.to_string());
        }
    }
    (!parts.is_empty()).then(|| parts.join(" + "))
}

/// One verdict when all samples agree, otherwise each distinct verdict with its count.
fn verdict_label(group: &[&Sample]) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for s in group {
        let l = s.verdict.label();
        match counts.iter_mut().find(|(k, _)| *k == l) {
            Some((_, c)) => *c += 1,
            None => counts.push((l, 1)),
        }
    }
    if counts.len() == 1 {
        return counts.remove(0).0;
    }
    let parts: Vec<String> = counts.iter().map(|(l, c)| format!("{l} ×{c}")).collect();
    format!("mixed: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use certbench_schema::{SampleMeta, Source, Verdict};

    fn s(method: &str, site: &str, chain: &str, warmup: bool, verify: u64, ok: bool) -> Sample {
        Sample {
            schema: 1,
            source: Source::Verify,
            method: method.into(),
            config: Default::default(),
            port: None,
            path: None,
            site: site.into(),
            chain: Some(chain.into()),
            run: 0,
            warmup,
            stages: [
                (Stage::Verify, verify),
                (Stage::TotalVerification, verify + 10),
            ]
            .into(),
            verdict: if ok {
                Verdict::Ok
            } else {
                Verdict::Rejected("UnknownIssuer".into())
            },
            meta: SampleMeta::default(),
        }
    }

    #[test]
    fn groups_by_method_and_site_and_leaves_out_warmup() {
        let samples = vec![
            s("a", "x.com", "x.com__one", true, 1_000_000, true),
            s("a", "x.com", "x.com__one", false, 100, true),
            s("b", "x.com", "x.com__one", false, 50, true),
            s("a", "x.com", "x.com__one", false, 300, true),
            s("a", "x.com", "x.com__two", false, 7, false),
            s("b", "x.com", "x.com__one", false, 70, true),
        ];
        let tables = build_seed_tables(&samples);
        assert_eq!(tables.len(), 2);
        let a = &tables[0];
        assert_eq!(a.method, "a");
        assert_eq!(a.stages, vec![Stage::Verify, Stage::TotalVerification]);
        assert_eq!(a.rows.len(), 2);
        assert_eq!(a.rows[0].label, "x.com [one]");
        assert_eq!(a.rows[0].n, 2);
        assert_eq!(a.rows[0].cells[&Stage::Verify].mean, 200.0);
        assert_eq!(a.rows[1].verdict, "rejected: UnknownIssuer");
        assert!(!a.rows[1].all_ok);
        assert_eq!(
            tables[1].rows[0].label, "x.com",
            "one chain for the site: plain label"
        );

        // The comparison joins rows by site and chain, whatever their labels.
        let cmp = crate::comparison::build_comparison(&tables).unwrap();
        assert_eq!(cmp.methods, vec!["a", "b"]);
        let row = cmp.rows.iter().find(|r| r.label == "x.com [one]").unwrap();
        assert_eq!(row.cells.len(), 2, "{row:?}");
        assert_eq!(row.fastest_own, "b");
    }

    #[test]
    fn configurations_are_tables_of_their_own_and_sites_differ_by_port_and_path() {
        let mut samples = Vec::new();
        for (hook, ns) in [("callback", 100), ("replace", 10_000)] {
            for port in [443, 8443] {
                let mut x = s(
                    "rustlsserial",
                    "x.com",
                    "",
                    false,
                    ns + u64::from(port),
                    true,
                );
                x.chain = None;
                x.port = Some(port);
                x.path = Some("/".into());
                x.config.transport = Some("openssl".into());
                x.config.hook = Some(hook.into());
                samples.push(x);
            }
        }
        let mut o = samples[0].clone();
        o.method = "openssl".into();
        o.config.hook = Some("native".into());
        samples.push(o);
        let tables = build_seed_tables(&samples);
        let names: Vec<String> = tables.iter().map(|t| t.name()).collect();
        assert_eq!(
            names,
            [
                "rustlsserial [hook callback]",
                "rustlsserial [hook replace]",
                "openssl"
            ],
            "hooks apart; openssl's own hook is not a difference to name"
        );
        let labels: Vec<&str> = tables[0].rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["x.com", "x.com:8443"]);
        assert_eq!(tables[0].rows[0].cells[&Stage::Verify].mean, 543.0);
        assert_eq!(tables[1].rows[1].cells[&Stage::Verify].mean, 18_443.0);
        // A different run-level configuration (roots) is named even across methods.
        samples[4].config.roots = Some("system (140)".into());
        let tables = build_seed_tables(&samples);
        assert_eq!(tables[2].name(), "openssl [roots system (140)]");
        assert_eq!(tables[0].name(), "rustlsserial [hook callback, roots —]");
    }

    #[test]
    fn mixed_verdicts_are_counted() {
        let samples = vec![
            s("a", "z", "z__c", false, 1, true),
            s("a", "z", "z__c", false, 1, false),
            s("a", "z", "z__c", false, 1, true),
        ];
        let t = build_seed_tables(&samples);
        assert_eq!(
            t[0].rows[0].verdict,
            "mixed: ok ×2, rejected: UnknownIssuer ×1"
        );
    }
}
