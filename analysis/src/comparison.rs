//! The comparison a run ends with, and its answer: per site, every method side by side in two
//! views.
//!
//! - **Own cost**: what the verifier itself spent ([`Sample::own_cost`](crate::Sample::own_cost)):
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

use crate::schema::Stage;
use crate::stats::Summary;
use crate::table::SeedTable;
use crate::units::human;

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
    let link = with[0].config.link.clone().filter(|l| {
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
    Some(Comparison {
        methods,
        rows,
        n_range,
        link,
    })
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 1.0 }
}

/// Median of `v` (not empty), by the middle element(s).
fn median_of(v: &mut [f64]) -> f64 {
    crate::stats::middle(v).expect("a median of no value")
}

/// On how many sites each column is fastest, most first: `[("rustlsserial", 9), …]`.
fn tally(rows: &[ComparisonRow], pick: fn(&ComparisonRow) -> &String) -> Vec<(String, usize)> {
    let mut t: Vec<(String, usize)> = Vec::new();
    for r in rows {
        match t.iter_mut().find(|(m, _)| m == pick(r)) {
            Some((_, c)) => *c += 1,
            None => t.push((pick(r).clone(), 1)),
        }
    }
    t.sort_by_key(|e| std::cmp::Reverse(e.1));
    t
}

fn tally_text(t: &[(String, usize)], of: usize) -> String {
    let mut parts = t.iter().map(|(m, c)| format!("{m} on {c}"));
    let first = parts
        .next()
        .map(|p| format!("{p} of {of} sites"))
        .unwrap_or_default();
    let rest: Vec<String> = parts.collect();
    if rest.is_empty() {
        first
    } else {
        format!("{first} ({})", rest.join(", "))
    }
}

/// The method fastest by own cost on the most sites (a column's method, without its
/// configuration).
pub fn fastest(cmp: &Comparison) -> String {
    let own = tally(&cmp.rows, |r| &r.fastest_own);
    let column = own.first().map_or(String::new(), |(m, _)| m.clone());
    column.split(' ').next().unwrap_or_default().to_owned()
}

/// The plain answer to the run's question, at most seven lines, every figure computed from
/// `cmp`: who is fastest by own cost, on how many sites and by what median ratio; who is
/// fastest in the 2017 view; what the callback hook adds (naming `openssl-verify`, and why
/// OpenSSL then looks fastest); verification's share of the connection; Servo's verifiers
/// against the other browsers' (when both are in the run); and `other_hook`,
/// the command that measures the other hook, when the caller knows it.
pub fn answer(cmp: &Comparison, other_hook: Option<&str>) -> Vec<String> {
    let sites = cmp.rows.len();
    let mut lines = Vec::new();
    let own = tally(&cmp.rows, |r| &r.fastest_own);
    let paid = tally(&cmp.rows, |r| &r.fastest_paid);
    let winner = own[0].0.clone();
    // The winner against OpenSSL (or, when OpenSSL wins, the best other method against it).
    let mut ratios: Vec<f64> = Vec::new();
    let mut against = String::new();
    for r in &cmp.rows {
        let w = r.cells.iter().find(|c| c.method == winner);
        let o = r.cells.iter().find(|c| c.is_openssl && c.method != winner);
        match (w, o) {
            (Some(w), Some(o)) => {
                against = o.method.clone();
                ratios.push(o.own.median / w.own.median.max(1.0));
            }
            (Some(w), None) if w.is_openssl => {
                if let Some(next) = r
                    .cells
                    .iter()
                    .filter(|c| c.method != winner)
                    .min_by(|a, b| a.own.median.total_cmp(&b.own.median))
                {
                    against = "the fastest other method".to_owned();
                    ratios.push(next.own.median / w.own.median.max(1.0));
                }
            }
            _ => {}
        }
    }
    let not_openssl = cmp
        .rows
        .iter()
        .filter(|r| {
            r.cells
                .iter()
                .any(|c| c.method == r.fastest_own && !c.is_openssl)
        })
        .count();
    let mut first = format!(
        "By own cost (what each verifier itself spent), the fastest is {}; a method other than openssl on {not_openssl} of {sites}",
        tally_text(&own, sites)
    );
    if !ratios.is_empty() {
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(0.0, f64::max);
        first.push_str(&format!(
            "; {against} needs ×{:.2} of {winner}'s time (median over {} sites, ×{lo:.2}–×{hi:.2})",
            median_of(&mut ratios),
            ratios.len()
        ));
    }
    lines.push(first + ".");

    let mut added: Vec<f64> = cmp
        .rows
        .iter()
        .flat_map(|r| r.cells.iter())
        .filter(|c| !c.is_openssl)
        .filter_map(|c| c.openssl_verify.as_ref().map(|s| s.median))
        .collect();
    let connected = cmp
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .any(|c| c.share.is_some());
    if added.is_empty() && connected {
        lines.push(format!(
            "No method paid OpenSSL's verification on top of its own, so the 2017 view is the own cost: {}.",
            tally_text(&paid, sites)
        ));
    } else if !added.is_empty() {
        lines.push(format!(
            "In the 2017 view (the verification the handshake paid, what the seed timed), the fastest is {}.",
            tally_text(&paid, sites)
        ));
        let lo = added.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = added.iter().copied().fold(0.0, f64::max);
        let mut why = format!(
            "The callback hook makes every webpki method wait for OpenSSL's own X509_verify_cert first (`openssl-verify`: median {} per connection, {}–{} over sites)",
            human(median_of(&mut added)),
            human(lo),
            human(hi)
        );
        let openssl_wins_2017 = cmp
            .rows
            .iter()
            .find(|r| r.fastest_paid == paid[0].0)
            .and_then(|r| r.cells.iter().find(|c| c.method == paid[0].0))
            .is_some_and(|c| c.is_openssl);
        if openssl_wins_2017 && paid[0].0 != winner {
            why.push_str(
                ": that is why OpenSSL looks fastest in the 2017 view, as it did to Servo in 2017",
            );
        }
        lines.push(why + ".");
    }

    let mut shares: Vec<f64> = cmp
        .rows
        .iter()
        .filter_map(|r| r.cells.iter().find(|c| c.method == winner)?.share)
        .collect();
    if !shares.is_empty() {
        let lo = shares.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = shares.iter().copied().fold(0.0, f64::max);
        lines.push(format!(
            "Verification is {} % of the connection time with {winner}{} (median over sites, {}–{} %; connection = TCP + TLS + HTTP to the first byte).",
            percent(median_of(&mut shares)),
            cmp.link
                .as_ref()
                .map_or(String::new(), |l| format!(" on the emulated link ({l})")),
            percent(lo),
            percent(hi)
        ));
    }
    let with_ct = cmp
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .any(|c| c.ct.is_some());
    if with_ct && let Some(line) = what_browsers_pay(cmp) {
        lines.push(line);
    }
    if let Some(line) = servo_against_browsers(cmp) {
        lines.push(line);
        lines.push(
            if with_ct {
                WHAT_BROWSERS_COMPARE_WITH_CT
            } else {
                WHAT_BROWSERS_COMPARE
            }
            .to_owned(),
        );
    }
    if with_ct && let Some(line) = what_ct_costs_servo(cmp) {
        lines.push(line);
    }
    if let Some(cmd) = other_hook {
        lines.push(format!("The other hook: `{cmd}`."));
    }
    lines
}

/// A share as a percentage: whole percents from 1 % on, one decimal below (a share on an
/// emulated link is a tenth of a percent, not 0).
fn percent(share: f64) -> String {
    let p = 100.0 * share;
    if p < 1.0 {
        format!("{p:.1}")
    } else {
        format!("{p:.0}")
    }
}

/// Servo's verifiers (its default, its webpki-roots path, the parallel one).
const SERVO: [&str; 3] = ["platform", "webpki", "rustlsparallel"];
/// The other browsers' verifiers.
const BROWSERS: [&str; 3] = ["chrome", "firefox", "gnutls"];

/// Whether column `column` is method `method` (a column may add its configuration).
fn is_method(column: &str, method: &str) -> bool {
    column == method || column.starts_with(&format!("{method} "))
}

/// The line under the browsers' comparison: what its figures hold and what they leave out,
/// until the methods check what the browsers check beyond the path.
const WHAT_BROWSERS_COMPARE: &str = "That compares path building alone (chains, signatures, validity, names, and Chrome's and Firefox's EV attempt): no method here checks Certificate Transparency (`--ct`) or revocation (CRLSets, CRLite, OCSP), which Chrome and Firefox do on every connection (docs/verifiers.md).";

/// The same line for a `--ct` run, whose CT methods all checked CT.
const WHAT_BROWSERS_COMPARE_WITH_CT: &str = "That compares path building and Certificate Transparency alike: Chrome and Firefox check their SCTs and apply their own CT policies, Servo's verifiers check theirs as a rustls user would add it (Chrome's policy); gnutls checks none, as WebKitGTK enforces none. No method here checks revocation (CRLSets, CRLite, OCSP), which Chrome and Firefox do on every connection (docs/verifiers.md).";

/// The line under the browsers' comparison in a `--revocation` run (without `--ct`).
const WHAT_BROWSERS_COMPARE_WITH_REVOCATION: &str = "That compares path building and revocation: Chrome checks its CRLSet, Firefox CRLite, gnutls the stapled OCSP response, Servo's verifiers the mechanism `--revocation` named (the revocation table below). No method here checks Certificate Transparency (`--ct`), which Chrome and Firefox do on every connection (docs/verifiers.md).";

/// The same line for a run with `--ct` and `--revocation`.
const WHAT_BROWSERS_COMPARE_WITH_CT_AND_REVOCATION: &str = "That compares path building, Certificate Transparency and revocation alike: Chrome and Firefox check their SCTs and apply their own CT policies, Servo's verifiers check theirs as a rustls user would add it (Chrome's policy), gnutls checks none; Chrome checks its CRLSet, Firefox CRLite, gnutls the stapled OCSP response, Servo's verifiers the mechanism `--revocation` named (the revocation table below).";

/// The answer's `lines` for a run whose methods checked revocation (`--revocation`): the
/// line under the browsers' comparison no longer says that no method checks it.
pub fn revocation_checked(lines: &mut [String]) {
    for line in lines {
        if line == WHAT_BROWSERS_COMPARE {
            *line = WHAT_BROWSERS_COMPARE_WITH_REVOCATION.to_owned();
        } else if line == WHAT_BROWSERS_COMPARE_WITH_CT {
            *line = WHAT_BROWSERS_COMPARE_WITH_CT_AND_REVOCATION.to_owned();
        }
    }
}

/// The median over sites of a column's medians.
fn median_over_sites(
    cmp: &Comparison,
    col: &str,
    f: fn(&ComparisonCell) -> Option<f64>,
) -> Option<(f64, usize)> {
    let mut v: Vec<f64> = cmp
        .rows
        .iter()
        .filter_map(|r| f(r.cells.iter().find(|c| c.method == col)?))
        .collect();
    (!v.is_empty()).then(|| (median_of(&mut v), v.len()))
}

/// In a `--ct` run: what each browser pays per cold connection (its own cost: path, CT and
/// host), and how much of it is CT.
fn what_browsers_pay(cmp: &Comparison) -> Option<String> {
    let parts: Vec<String> = BROWSERS
        .iter()
        .filter_map(|b| cmp.methods.iter().find(|c| is_method(c, b)))
        .filter_map(|col| {
            let (own, n) = median_over_sites(cmp, col, |c| Some(c.own.median))?;
            let ct = median_over_sites(cmp, col, |c| c.ct.as_ref().map(|s| s.median));
            Some(match ct {
                Some((ct, _)) => {
                    format!("{col} {} (CT {} of it; {n} sites)", human(own), human(ct))
                }
                None => format!("{col} {} (no CT check; {n} sites)", human(own)),
            })
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "What each browser's verifier pays per cold connection, path, CT and host name (median over sites of the per-site median): {}.",
            parts.join(", ")
        )
    })
}

/// In a `--ct` run: what checking CT as Chrome does would cost Servo's verifiers: per site the
/// own cost with CT ÷ the same samples' own cost without the `ct` stage, and the `ct` stage.
fn what_ct_costs_servo(cmp: &Comparison) -> Option<String> {
    let parts: Vec<String> = SERVO
        .iter()
        .filter_map(|m| cmp.methods.iter().find(|c| is_method(c, m)))
        .filter_map(|col| {
            let (ratio, n) = median_over_sites(cmp, col, |c| {
                Some(c.own.median / c.own_without_ct.as_ref()?.median.max(1.0))
            })?;
            let (ct, _) = median_over_sites(cmp, col, |c| c.ct.as_ref().map(|s| s.median))?;
            Some(format!(
                "{col} ×{ratio:.2} (+{} per cold connection; {n} sites)",
                human(ct)
            ))
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "Checking CT as Chrome does would cost Servo {} (median over sites: own cost with the CT check ÷ the same samples without its `ct` stage, and the `ct` stage's median).",
            parts.join("; ")
        )
    })
}

/// One line: each of Servo's verifiers against each other browser's by own cost, as the
/// median over sites of the per-site ratio of medians (below ×1: Servo's is cheaper); `None`
/// unless the comparison holds one of each.
fn servo_against_browsers(cmp: &Comparison) -> Option<String> {
    let column = |m: &str| cmp.methods.iter().find(|c| is_method(c, m)).cloned();
    let servo: Vec<String> = SERVO.iter().filter_map(|m| column(m)).collect();
    let browsers: Vec<String> = BROWSERS.iter().filter_map(|m| column(m)).collect();
    if servo.is_empty() || browsers.is_empty() {
        return None;
    }
    let own = |r: &ComparisonRow, col: &str| {
        r.cells
            .iter()
            .find(|c| c.method == col)
            .map(|c| c.own.median)
    };
    let mut parts = Vec::new();
    for s in &servo {
        let mut against = Vec::new();
        for b in &browsers {
            let mut ratios: Vec<f64> = cmp
                .rows
                .iter()
                .filter_map(|r| Some(own(r, s)? / own(r, b)?.max(1.0)))
                .collect();
            if !ratios.is_empty() {
                let n = ratios.len();
                against.push(format!("×{:.2} of {b}'s ({n})", median_of(&mut ratios)));
            }
        }
        if !against.is_empty() {
            parts.push(format!("{s} {}", against.join(", ")));
        }
    }
    Some(format!(
        "Servo's verifiers against the other browsers' by own cost (median over sites of the per-site ratio, sites in brackets; below ×1 Servo's is cheaper): {}.",
        parts.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Config, Sample, SampleMeta, Source, Verdict};
    use crate::table::build_seed_tables;

    fn s(method: &str, hook: &str, site: &str, ossl: Option<u64>, own: u64, conn: u64) -> Sample {
        let mut stages: std::collections::BTreeMap<Stage, u64> = [
            (Stage::TotalVerification, own + ossl.unwrap_or(0)),
            (Stage::Connection, conn),
        ]
        .into();
        if let Some(o) = ossl {
            stages.insert(Stage::OpenSslVerify, o);
        }
        Sample {
            schema: crate::schema::SCHEMA_VERSION,
            source: Source::Driver,
            method: method.into(),
            config: Config {
                transport: Some("openssl".into()),
                hook: Some(hook.into()),
                ..Config::default()
            },
            site: site.into(),
            port: Some(443),
            path: Some("/".into()),
            chain: None,
            run: 0,
            warmup: false,
            stages,
            verdict: Verdict::Ok,
            meta: SampleMeta::default(),
        }
    }

    /// The 2017 artifact in miniature: webpki's own work is cheaper on every site, but under
    /// the callback hook it also pays OpenSSL's, so OpenSSL wins the 2017 view.
    fn callback_run() -> Vec<Sample> {
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
    fn own_cost_and_the_2017_view_disagree_under_the_callback_hook_and_the_answer_says_why() {
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
        let lines = answer(&cmp, Some("certbench --hook replace"));
        crate::export::golden::check("comparison-answer.md", &lines.join("\n"));
        let report = crate::export::Report::from_samples(
            &callback_run(),
            &[],
            Some("certbench --hook replace"),
        );
        crate::export::golden::check(
            "report.md",
            &crate::export::render(&report, crate::export::Format::Markdown),
        );
        crate::export::golden::check(
            "report.csv",
            &crate::export::render(&report, crate::export::Format::Csv),
        );
        assert!(lines.len() <= 8, "{lines:#?}");
        let text = lines.join("\n");
        assert!(
            text.contains(
                "the fastest is rustlsserial on 3 of 3 sites; a method other than openssl on 3 of 3"
            ),
            "{text}"
        );
        assert!(text.contains("×2.00 of rustlsserial"), "{text}");
        assert!(text.contains("openssl on 3 of 3 sites"), "{text}");
        assert!(text.contains("`openssl-verify`: median 500 µs"), "{text}");
        assert!(text.contains("why OpenSSL looks fastest"), "{text}");
        assert!(
            text.contains("The other hook: `certbench --hook replace`"),
            "{text}"
        );
    }

    #[test]
    fn servos_verifiers_are_set_against_the_other_browsers_by_own_cost() {
        let mut v = Vec::new();
        for (site, base) in [
            ("a.test", 100_000),
            ("b.test", 200_000),
            ("c.test", 400_000),
        ] {
            for k in 0..3 {
                v.push(s("platform", "replace", site, None, base + k, 4_000_000));
                v.push(s("chrome", "replace", site, None, 2 * base + k, 4_000_000));
                v.push(s("gnutls", "replace", site, None, 4 * base + k, 4_000_000));
                v.push(s("openssl", "native", site, None, 3 * base + k, 4_000_000));
            }
        }
        let cmp = build_comparison(&build_seed_tables(&v)).unwrap();
        let text = answer(&cmp, None).join("\n");
        crate::export::golden::check("comparison-answer-browsers.md", &text);
        let line = text
            .lines()
            .find(|l| l.starts_with("Servo's verifiers"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            line.contains("platform ×0.50 of chrome's (3), ×0.25 of gnutls's (3)"),
            "{line}"
        );
        assert!(!line.contains("openssl"), "{line}");
        // Its own line says what it compares, and what it leaves out.
        let next = text
            .lines()
            .skip_while(|l| !l.starts_with("Servo's verifiers"))
            .nth(1)
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            next.starts_with("That compares path building alone"),
            "{next}"
        );
        assert!(
            next.contains("Certificate Transparency (`--ct`) or revocation"),
            "{next}"
        );
        // Without a browser's verifier, no such line.
        let only: Vec<Sample> = v
            .into_iter()
            .filter(|s| s.method != "chrome" && s.method != "gnutls")
            .collect();
        let text = answer(&build_comparison(&build_seed_tables(&only)).unwrap(), None).join("\n");
        assert!(!text.contains("Servo's verifiers"), "{text}");
        assert!(!text.contains("path building alone"), "{text}");
    }

    #[test]
    fn without_openssl_verify_the_two_views_are_one() {
        let samples: Vec<Sample> = callback_run()
            .into_iter()
            .map(|mut s| {
                if let Some(o) = s.stages.remove(&Stage::OpenSslVerify) {
                    *s.stages.get_mut(&Stage::TotalVerification).unwrap() -= o;
                    s.config.hook = Some("replace".into());
                }
                s
            })
            .collect();
        let cmp = build_comparison(&build_seed_tables(&samples)).unwrap();
        let text = answer(&cmp, None).join("\n");
        crate::export::golden::check("comparison-answer-replace.md", &text);
        assert!(text.contains("the 2017 view is the own cost"), "{text}");
        assert!(!text.contains("openssl-verify"), "{text}");
        assert!(
            text.contains("Verification is 6 % of the connection"),
            "{text}"
        );
        for r in &cmp.rows {
            assert_eq!(r.fastest_own, r.fastest_paid);
        }
    }

    /// A `--ct` run: each browser's price with its CT share, Servo's like for like (both with
    /// CT), and what CT costs Servo, from the same samples with and without their `ct` stage.
    #[test]
    fn a_ct_run_says_what_each_browser_pays_and_what_ct_would_cost_servo() {
        let with_ct = |mut x: Sample, ct: u64| {
            x.stages.insert(Stage::Ct, ct);
            x.config.ct = Some("3 logs of test".into());
            x
        };
        let mut v = Vec::new();
        for (site, base) in [
            ("a.test", 100_000),
            ("b.test", 200_000),
            ("c.test", 300_000),
        ] {
            for k in 0..3 {
                // platform: 100 µs of CT on top of its path; chrome: 50 µs of CT.
                v.push(with_ct(
                    s(
                        "platform",
                        "replace",
                        site,
                        None,
                        base + 100_000 + k,
                        4_000_000,
                    ),
                    100_000,
                ));
                v.push(with_ct(
                    s(
                        "chrome",
                        "replace",
                        site,
                        None,
                        2 * base + 50_000 + k,
                        4_000_000,
                    ),
                    50_000,
                ));
                v.push(s("gnutls", "replace", site, None, 4 * base + k, 4_000_000));
            }
        }
        let cmp = build_comparison(&build_seed_tables(&v)).unwrap();
        let text = answer(&cmp, None).join("\n");
        crate::export::golden::check("comparison-answer-ct.md", &text);
        let pays = text
            .lines()
            .find(|l| l.starts_with("What each browser's verifier pays"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            pays.contains("chrome 450 µs (CT 50.0 µs of it; 3 sites)"),
            "{pays}"
        );
        assert!(
            pays.contains("gnutls 800 µs (no CT check; 3 sites)"),
            "{pays}"
        );
        assert!(
            text.contains("That compares path building and Certificate Transparency alike"),
            "{text}"
        );
        let cost = text
            .lines()
            .find(|l| l.starts_with("Checking CT as Chrome does would cost Servo"))
            .unwrap_or_else(|| panic!("{text}"));
        // Per site 200/100, 300/200, 400/300: median ×1.50.
        assert!(
            cost.contains("platform ×1.50 (+100 µs per cold connection; 3 sites)"),
            "{cost}"
        );
    }
}
