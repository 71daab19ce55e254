//! The comparison a run ends with: per site, every method side by side in two views (the
//! answer drawn from it is [`crate::answer`]).
//!
//! - **Own cost**: what the verifier itself spent ([`Sample::own_cost`](certbench_schema::Sample::own_cost)):
//!   `total-verification` without `openssl-verify`. For `openssl` that is `X509_verify_cert`;
//!   for a webpki method under the callback hook, its chain conversion, verify and hostname
//!   check, without the OpenSSL verification the hook makes it wait for.
//! - **The 2017 view**: `total-verification` as the handshake paid it, which is what the
//!   Servo experiment's connection times held: under the callback hook a webpki method pays
//!   OpenSSL's own verification *and* its own.
//!
//! Every figure is a median over the row's samples; columns are tables (method and, when a
//! report holds several, configuration), so two configurations are never merged.

use serde::Serialize;

use crate::stats::Summary;
use crate::table::SeedTable;
use certbench_schema::Stage;

/// One method's figures for one site.
#[derive(Clone, Debug, Serialize)]
pub struct ComparisonCell {
    /// The column: the table's name ([`SeedTable::name`]).
    pub method: String,
    /// The method itself is `openssl`.
    pub is_openssl: bool,
    /// Own cost.
    pub own: Summary,
    /// The 2017 view (`total-verification`).
    pub paid: Summary,
    /// `openssl-verify`, where OpenSSL verified around the method (callback hook).
    pub openssl_verify: Option<Summary>,
    /// Median `total-verification` ÷ median `connection`, where the sample connected.
    pub share: Option<f64>,
    /// The `ct` stage (`--ct`), where the method checked CT.
    pub ct: Option<Summary>,
    /// The own cost less the `ct` stage, sample by sample, where the method checked CT.
    pub own_without_ct: Option<Summary>,
    /// The own cost less the `ct` and `revocation` stages, where the method checked either.
    pub own_path: Option<Summary>,
    /// What the method checked beyond the path (`CT + crlset`), where it checked anything.
    pub checks: Option<String>,
    /// The verdict, when a sample of the cell was not accepted.
    pub rejected: Option<String>,
    /// Own-cost median ÷ the site's fastest own-cost median (1.0 for the fastest).
    pub own_ratio: f64,
    /// 2017-view median ÷ the site's fastest 2017-view median.
    pub paid_ratio: f64,
}

/// One site.
#[derive(Clone, Debug, Serialize)]
pub struct ComparisonRow {
    /// Row label, as in the first table that has the site.
    pub label: String,
    /// Cells in column order; a method without `total-verification` for the site is absent.
    pub cells: Vec<ComparisonCell>,
    /// The column with the lowest own-cost median.
    pub fastest_own: String,
    /// The column with the lowest 2017-view median.
    pub fastest_paid: String,
}

/// Per site, every column's own cost and 2017 view.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// Columns, in table order.
    pub methods: Vec<String>,
    /// Rows, in order of first appearance.
    pub rows: Vec<ComparisonRow>,
    /// Smallest and largest n of a cell.
    pub n_range: (usize, usize),
    /// The emulated link every compared table's samples crossed (`config.link`), if they
    /// all crossed one.
    pub link: Option<String>,
    /// Every compared table's samples went over QUIC (`config.transport` `quic`).
    pub over_quic: bool,
}

/// Compares the tables that have `total-verification`; `None` when fewer than two do.
pub fn build_comparison(tables: &[SeedTable]) -> Option<Comparison> {
    let with: Vec<&SeedTable> = tables
        .iter()
        .filter(|t| t.rows.iter().any(|r| r.own_cost.is_some()))
        .collect();
    if with.len() < 2 {
        return None;
    }
    let methods: Vec<String> = with.iter().map(|t| t.name()).collect();
    let link = with[0].config.link.clone().map(String::from).filter(|l| {
        with.iter()
            .all(|t| t.config.link.as_deref() == Some(l.as_str()))
    });
    // Rows are sites (and chains): keyed by (site, chain), labelled as the first table does.
    let mut keys: Vec<(String, Option<String>, String)> = Vec::new();
    for t in &with {
        for r in &t.rows {
            if !keys.iter().any(|(s, c, _)| *s == r.site && *c == r.chain) {
                keys.push((r.site.clone(), r.chain.clone(), r.label.clone()));
            }
        }
    }
    let mut n_range = (usize::MAX, 0);
    let rows: Vec<ComparisonRow> = keys
        .into_iter()
        .filter_map(|(site, chain, label)| {
            let mut cells: Vec<ComparisonCell> = with
                .iter()
                .filter_map(|t| {
                    let row = t.rows.iter().find(|r| r.site == site && r.chain == chain)?;
                    let own = row.own_cost.clone()?;
                    let paid = row.cells.get(&Stage::TotalVerification)?.clone();
                    let share = row
                        .cells
                        .get(&Stage::Connection)
                        .filter(|c| c.median > 0.0)
                        .map(|c| paid.median / c.median);
                    Some(ComparisonCell {
                        method: t.name(),
                        is_openssl: t.method == "openssl",
                        openssl_verify: row.cells.get(&Stage::OpenSslVerify).cloned(),
                        own,
                        paid,
                        share,
                        ct: row.cells.get(&Stage::Ct).cloned(),
                        own_without_ct: row.own_without_ct.clone(),
                        own_path: row.own_path.clone(),
                        checks: row.checks.clone(),
                        rejected: (!row.all_ok).then(|| row.verdict.clone()),
                        own_ratio: 0.0,
                        paid_ratio: 0.0,
                    })
                })
                .collect();
            let best = |f: fn(&ComparisonCell) -> f64| {
                cells
                    .iter()
                    .min_by(|a, b| f(a).total_cmp(&f(b)))
                    .map(|c| (c.method.clone(), f(c)))
            };
            let (fastest_own, best_own) = best(|c| c.own.median)?;
            let (fastest_paid, best_paid) = best(|c| c.paid.median)?;
            for c in &mut cells {
                c.own_ratio = ratio(c.own.median, best_own);
                c.paid_ratio = ratio(c.paid.median, best_paid);
                n_range = (n_range.0.min(c.own.n), n_range.1.max(c.own.n));
            }
            Some(ComparisonRow {
                label,
                cells,
                fastest_own,
                fastest_paid,
            })
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let over_quic = (with.iter()).all(|t| {
        (t.config.transport.as_ref()).and_then(|n| n.known())
            == Some(certbench_schema::Transport::Quic)
    });
    Some(Comparison {
        methods,
        rows,
        n_range,
        link,
        over_quic,
    })
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 1.0 }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::table::build_seed_tables;
    use certbench_schema::{Config, Sample};

    /// A driver sample: `own` of its own, plus `ossl` of `openssl-verify` when given.
    pub(crate) fn s(
        method: &str,
        hook: &str,
        site: &str,
        ossl: Option<u64>,
        own: u64,
        conn: u64,
    ) -> Sample {
        let mut stages: std::collections::BTreeMap<Stage, u64> = [
            (Stage::TotalVerification, own + ossl.unwrap_or(0)),
            (Stage::Connection, conn),
        ]
        .into();
        if let Some(o) = ossl {
            stages.insert(Stage::OpenSslVerify, o);
        }
        Sample {
            config: Config {
                transport: Some("openssl".into()),
                hook: Some(hook.into()),
                ..Config::default()
            },
            stages,
            ..crate::test_sample::driver(method, site)
        }
    }

    /// The 2017 artifact in miniature: webpki's own work is cheaper on every site, but under
    /// the callback hook it also pays OpenSSL's, so OpenSSL wins the 2017 view.
    pub(crate) fn callback_run() -> Vec<Sample> {
        let mut v = Vec::new();
        for (site, ossl) in [
            ("a.test", 300_000),
            ("b.test", 500_000),
            ("c.test", 1_000_000),
        ] {
            for k in 0..3 {
                v.push(s("openssl", "native", site, None, ossl + k, 4_000_000));
                v.push(s(
                    "rustlsserial",
                    "callback",
                    site,
                    Some(ossl),
                    ossl / 2 + k,
                    4_000_000,
                ));
            }
        }
        v
    }

    #[test]
    fn own_cost_and_the_2017_view_disagree_under_the_callback_hook() {
        let tables = build_seed_tables(&callback_run());
        let cmp = build_comparison(&tables).unwrap();
        assert_eq!(cmp.rows.len(), 3);
        assert_eq!(cmp.n_range, (3, 3));
        for r in &cmp.rows {
            assert!(r.fastest_own.starts_with("rustlsserial"), "{r:?}");
            assert!(r.fastest_paid.starts_with("openssl"), "{r:?}");
            let webpki = r.cells.iter().find(|c| !c.is_openssl).unwrap();
            assert!((webpki.own_ratio - 1.0).abs() < 1e-9);
            assert!((webpki.paid_ratio - 1.5).abs() < 1e-3, "{webpki:?}");
        }
    }
}
