//! Tables built from samples: the seed's shape (rows = sites, columns = stages, one table per
//! method) and a per-site comparison of methods.
//!
//! Warm-up samples never enter a table. Rows and tables keep the order in which their first
//! sample appears, so a run's own order (sites file, corpus order) is the table order.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::schema::{Sample, Stage, Verdict};
use crate::stats::Summary;

/// One row of a [`SeedTable`]: one site (one stored chain) under one method.
#[derive(Clone, Debug, Serialize)]
pub struct SeedRow {
    /// Row label: the site, with the chain's source added when a site has several chains.
    pub label: String,
    /// Host name.
    pub site: String,
    /// Stored chain identifier, when there is one.
    pub chain: Option<String>,
    /// Number of (non-warm-up) samples measured in the row: error samples are not counted.
    pub n: usize,
    /// `ok`, the rejection or error reason, or a mix with counts.
    pub verdict: String,
    /// True when every sample in the row had all its verdicts `ok`.
    pub all_ok: bool,
    /// True when `roots-creation` came from a cached store.
    pub roots_cached: bool,
    /// Statistics per stage the samples recorded.
    pub cells: BTreeMap<Stage, Summary>,
}

/// The seed's table for one method (and transport): rows = sites, columns = stages.
#[derive(Clone, Debug, Serialize)]
pub struct SeedTable {
    /// Method name.
    pub method: String,
    /// Transport, where the samples name one.
    pub transport: Option<String>,
    /// Stages present in at least one row, in [`Stage::ALL`] order.
    pub stages: Vec<Stage>,
    /// Rows, in order of first appearance.
    pub rows: Vec<SeedRow>,
}

type RowKey = (String, Option<String>);
/// (method, transport, rows with their samples), while grouping.
type Grouping<'a> = (String, Option<String>, Vec<(RowKey, Vec<&'a Sample>)>);

/// Groups samples into one [`SeedTable`] per (method, transport).
pub fn build_seed_tables(samples: &[Sample]) -> Vec<SeedTable> {
    let mut tables: Vec<Grouping<'_>> = Vec::new();
    for s in samples.iter().filter(|s| !s.warmup) {
        let t = match tables
            .iter()
            .position(|(m, tr, _)| *m == s.method && *tr == s.transport)
        {
            Some(i) => i,
            None => {
                tables.push((s.method.clone(), s.transport.clone(), Vec::new()));
                tables.len() - 1
            }
        };
        let rows = &mut tables[t].2;
        let key = (s.site.clone(), s.chain.clone());
        match rows.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(s),
            None => rows.push((key, vec![s])),
        }
    }
    tables
        .into_iter()
        .map(|(method, transport, rows)| {
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
                method,
                transport,
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
    // Failed samples (errors) do not enter the statistics: what they timed did not complete.
    // Rejections do: the verifier ran and answered.
    let measured: Vec<&&Sample> = group
        .iter()
        .filter(|s| !matches!(s.verdict, Verdict::Error(_)))
        .collect();
    for &stage in Stage::ALL {
        let values: Vec<u64> = measured.iter().filter_map(|s| s.stage(stage)).collect();
        if let Some(summary) = Summary::of(&values) {
            cells.insert(stage, summary);
        }
    }
    SeedRow {
        label,
        site: site.to_owned(),
        chain: chain.clone(),
        n: group
            .iter()
            .filter(|s| !matches!(s.verdict, Verdict::Error(_)))
            .count(),
        verdict: verdict_label(group),
        all_ok: group.iter().all(|s| s.verdict.is_ok()),
        roots_cached: group.iter().any(|s| s.meta.roots_cached),
        cells,
    }
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

/// One cell of a [`Comparison`]: one method's figure for one site.
#[derive(Clone, Debug, Serialize)]
pub struct ComparisonCell {
    /// Method name.
    pub method: String,
    /// Statistics of the compared stage.
    pub summary: Summary,
    /// Mean divided by the fastest method's mean for this site (1.0 for the fastest).
    pub ratio_to_fastest: f64,
    /// Mean divided by the baseline method's mean for this site, when the baseline has one.
    pub ratio_to_baseline: Option<f64>,
}

/// One site of a [`Comparison`].
#[derive(Clone, Debug, Serialize)]
pub struct ComparisonRow {
    /// Row label, as in the seed tables.
    pub label: String,
    /// Cells in method order; methods without the stage for this site are absent.
    pub cells: Vec<ComparisonCell>,
    /// Method with the lowest mean.
    pub fastest: String,
}

/// Per site, one stage (by default `total-verification`) across methods.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The compared stage.
    pub stage: Stage,
    /// The method the others are divided by (`openssl` when present, else the first).
    pub baseline: String,
    /// Methods, in table order.
    pub methods: Vec<String>,
    /// Rows, in table order.
    pub rows: Vec<ComparisonRow>,
}

/// Compares methods per site on `stage`, with ratios to the fastest method and to a baseline
/// (the method named `openssl` when present, else the first). `None` when fewer than two
/// methods have the stage.
pub fn build_comparison(tables: &[SeedTable], stage: Stage) -> Option<Comparison> {
    let with_stage: Vec<&SeedTable> = tables
        .iter()
        .filter(|t| t.stages.contains(&stage))
        .collect();
    if with_stage.len() < 2 {
        return None;
    }
    // Name columns `transport/method` only when the tables differ in transport.
    let one_transport = with_stage
        .iter()
        .all(|t| t.transport == with_stage[0].transport);
    let method_name = |t: &SeedTable| match &t.transport {
        Some(tr) if !one_transport => format!("{}/{}", tr, t.method),
        _ => t.method.clone(),
    };
    let methods: Vec<String> = with_stage.iter().map(|t| method_name(t)).collect();
    let baseline = methods
        .iter()
        .find(|m| *m == "openssl" || m.ends_with("/openssl"))
        .unwrap_or(&methods[0])
        .clone();
    let mut labels: Vec<String> = Vec::new();
    for t in &with_stage {
        for r in &t.rows {
            if !labels.contains(&r.label) {
                labels.push(r.label.clone());
            }
        }
    }
    let rows = labels
        .into_iter()
        .filter_map(|label| {
            let mut cells: Vec<ComparisonCell> = with_stage
                .iter()
                .filter_map(|t| {
                    let row = t.rows.iter().find(|r| r.label == label)?;
                    Some(ComparisonCell {
                        method: method_name(t),
                        summary: row.cells.get(&stage)?.clone(),
                        ratio_to_fastest: 0.0,
                        ratio_to_baseline: None,
                    })
                })
                .collect();
            let fastest = cells
                .iter()
                .min_by(|a, b| a.summary.mean.total_cmp(&b.summary.mean))?;
            let (fastest_name, best) = (fastest.method.clone(), fastest.summary.mean);
            let base = cells
                .iter()
                .find(|c| c.method == baseline)
                .map(|c| c.summary.mean);
            for c in &mut cells {
                c.ratio_to_fastest = c.summary.mean / best;
                c.ratio_to_baseline = base.map(|b| c.summary.mean / b);
            }
            Some(ComparisonRow {
                label,
                cells,
                fastest: fastest_name,
            })
        })
        .collect();
    Some(Comparison {
        stage,
        baseline,
        methods,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{SampleMeta, Source};

    fn s(method: &str, site: &str, chain: &str, warmup: bool, verify: u64, ok: bool) -> Sample {
        Sample {
            schema: 1,
            source: Source::Verify,
            method: method.into(),
            transport: None,
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

        // Comparison across tables only uses labels both methods have.
        let cmp = build_comparison(&tables, Stage::Verify).unwrap();
        assert_eq!(cmp.methods, vec!["a", "b"]);
        let row = cmp.rows.iter().find(|r| r.label == "x.com [one]").unwrap();
        assert_eq!(row.cells.len(), 1, "table b labels its row `x.com`");
    }

    #[test]
    fn comparison_picks_fastest_and_ratios() {
        let samples = vec![
            s("slow", "y.org", "y.org__c", false, 400, true),
            s("fast", "y.org", "y.org__c", false, 100, true),
        ];
        let tables = build_seed_tables(&samples);
        let cmp = build_comparison(&tables, Stage::Verify).unwrap();
        assert_eq!(cmp.rows[0].fastest, "fast");
        assert_eq!(cmp.rows[0].cells[0].ratio_to_fastest, 4.0);
        assert_eq!(cmp.rows[0].cells[1].ratio_to_fastest, 1.0);
        assert_eq!(cmp.baseline, "slow", "no openssl: the first method");
        assert_eq!(cmp.rows[0].cells[1].ratio_to_baseline, Some(0.25));
        assert!(build_comparison(&tables[..1], Stage::Verify).is_none());
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
