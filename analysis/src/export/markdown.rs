//! Markdown: the seed's per-method tables, then the comparison.

use comfy_table::{CellAlignment, Table, presets::ASCII_MARKDOWN};

use super::report::Report;
use crate::comparison::{Comparison, ComparisonCell, ComparisonRow};
use crate::describe::Describe;
use crate::pq::{INITIAL_WINDOW, MSS, PqSummary};
use crate::stats::Summary;
use crate::units::{Unit, human, in_unit};

/// `41.2 µs (40.9 / 45.1)`: mean (median / p90), all in the mean's unit.
fn cell(s: &Summary, cached: bool) -> String {
    if cached && s.max == 0.0 {
        return "0 (cached)".to_owned();
    }
    let unit = Unit::for_ns(s.mean);
    format!(
        "{} ({} / {})",
        human(s.mean),
        in_unit(s.median, unit),
        in_unit(s.p90, unit)
    )
}

fn new_table(header: Vec<String>) -> Table {
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN).set_header(header);
    t
}

pub(super) fn render(report: &Report) -> String {
    let mut out = String::new();
    for c in &report.configs {
        out.push_str(&format!("Configuration: {c}.\n"));
    }
    out.push_str(
        "Cells: mean (median / p90), in the mean's unit; n = samples per row (warm-up excluded).\n",
    );
    for table in &report.tables {
        let method_part = table.config.describe_method();
        let title = if method_part.is_empty() {
            table.name()
        } else {
            format!("{} — {method_part}", table.name())
        };
        out.push_str(&format!("\n### {title}\n\n"));
        let mut header = vec!["site".to_owned(), "n".to_owned()];
        header.extend(table.stages.iter().map(|s| s.name().to_owned()));
        header.push("verdict".to_owned());
        let mut t = new_table(header);
        for row in &table.rows {
            let mut cells = vec![row.label.clone(), row.n.to_string()];
            for stage in &table.stages {
                cells.push(match row.cells.get(stage) {
                    Some(s) => cell(s, row.roots_cached),
                    None => "—".to_owned(),
                });
            }
            cells.push(row.verdict.replace('|', "\\|"));
            t.add_row(cells);
        }
        for i in 1..=table.stages.len() + 1 {
            if let Some(c) = t.column_mut(i) {
                c.set_cell_alignment(CellAlignment::Right);
            }
        }
        out.push_str(&t.to_string());
        out.push('\n');
        out.push_str(&outlier_note(table));
    }
    if let Some(pq) = &report.pq {
        out.push_str(&pq_tables(pq));
    }
    if let Some(cmp) = &report.comparison {
        out.push_str(&comparison(cmp));
    }
    if !report.answer.is_empty() {
        out.push_str("\n### answer\n\n");
        for l in &report.answer {
            out.push_str(&format!("- {l}\n"));
        }
    }
    if !report.revocation.is_empty() {
        // `--revocation`: each method and mechanism cold and warm, and what each costs.
        out.push('\n');
        out.push_str(&crate::revocation::markdown(&report.revocation));
        for line in crate::revocation::answer(&report.revocation) {
            out.push_str(&format!("\n{line}\n"));
        }
    }
    out
}

/// A `--pq` run's tables: the bytes on the wire per site and profile, then each method on
/// the twins against today's chains.
fn pq_tables(pq: &PqSummary) -> String {
    let kb =
        |b: Option<u64>| b.map_or("—".to_owned(), |b| format!("{:.1} KB", b as f64 / 1000.0));
    let rows: Vec<Vec<String>> = (pq.flights.iter())
        .map(|f| {
            vec![
                f.site.clone(),
                f.profile.clone(),
                kb(f.chain_bytes),
                kb(f.cert_message_bytes),
                kb(f.first_flight_bytes),
                f.segments().map_or("—".into(), |s| s.to_string()),
                f.extra_round_trips()
                    .map_or("—".into(), |r| format!("+{r}")),
            ]
        })
        .collect();
    let mut out = format!(
        "\n### post-quantum twins: bytes on the wire (first flight: the server's bytes from ServerHello to Finished, as the client's TCP stream counted them; segments of {MSS} B against TCP's initial window of {INITIAL_WINDOW})\n\n"
    );
    out.push_str(&plain_table(
        &[
            "site",
            "chains",
            "certificates",
            "Certificate message",
            "first flight",
            "segments",
            "extra RTT",
        ],
        rows,
        2,
    ));
    out.push('\n');
    let time = |ns: Option<f64>| ns.map_or("—".to_owned(), human);
    let rows: Vec<Vec<String>> = (pq.costs.iter())
        .map(|c| match (&c.unsupported, c.ratio) {
            (Some(why), None) => {
                let mut r = vec![c.method.clone(), c.profile.clone(), why.clone()];
                r.extend(std::iter::repeat_n("—".to_owned(), 4));
                r
            }
            _ => vec![
                c.method.clone(),
                c.profile.clone(),
                c.ratio.map_or("—".into(), |r| {
                    format!(
                        "×{r:.2} (×{:.2}–×{:.2}, {} sites)",
                        c.range.0, c.range.1, c.sites
                    )
                }),
                time(c.classical_own_ns),
                time(c.own_ns),
                time(c.connection_ns.1),
                time(c.connection_ns.0),
            ],
        })
        .collect();
    out.push_str(&format!(
        "\n### post-quantum twins against today's chains: own cost ratio (median over sites of the per-site ratio of medians, with its range), own cost and connection (medians over sites){}\n\n",
        pq.link.as_ref().map_or(String::new(), |l| format!(", link {l}"))
    ));
    out.push_str(&plain_table(
        &[
            "method",
            "chains",
            "own cost ÷ today's",
            "own cost today",
            "own cost",
            "connection today",
            "connection",
        ],
        rows,
        2,
    ));
    out.push('\n');
    out
}

/// The comparison's tables (own cost; the 2017 view when it differs; the share of the
/// connection when there was one).
fn comparison(cmp: &Comparison) -> String {
    let mut out = String::new();
    let n = match cmp.n_range {
        (a, b) if a == b => format!("n = {a} per cell"),
        (a, b) => format!("n = {a}–{b} per cell"),
    };
    let views: [(&str, ViewFn, Option<FastestFn>); 3] = [
        (
            "own cost per site: what each verifier itself spent (total-verification − openssl-verify); median ×ratio to the site's fastest",
            |c| Some(format!("{} ×{:.2}", human(c.own.median), c.own_ratio)),
            Some(|r| &r.fastest_own),
        ),
        (
            "2017 view per site: total-verification as the handshake paid it (under the callback hook: OpenSSL's X509_verify_cert + the method), what the seed timed; median ×ratio to the site's fastest",
            |c| Some(format!("{} ×{:.2}", human(c.paid.median), c.paid_ratio)),
            Some(|r| &r.fastest_paid),
        ),
        (
            "verification's share of the connection: total-verification ÷ connection (medians)",
            |c| c.share.map(|s| format!("{:.1} %", 100.0 * s)),
            None,
        ),
    ];
    let two_views = cmp
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .any(|c| !c.is_openssl && c.openssl_verify.is_some());
    let has_share = cmp
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .any(|c| c.share.is_some());
    for (i, (title, show, fastest)) in views.iter().enumerate() {
        if (i == 1 && !two_views) || (i == 2 && !has_share) {
            continue;
        }
        out.push_str(&format!("\n### {title} ({n})\n\n"));
        let mut header = vec!["site".to_owned()];
        header.extend(cmp.methods.iter().cloned());
        if fastest.is_some() {
            header.push("fastest".to_owned());
        }
        let mut t = new_table(header);
        for row in &cmp.rows {
            let mut cells = vec![row.label.clone()];
            for m in &cmp.methods {
                let c = row.cells.iter().find(|c| &c.method == m);
                cells.push(c.and_then(show).unwrap_or_else(|| "—".to_owned()));
            }
            if let Some(f) = fastest {
                cells.push(f(row).clone());
            }
            t.add_row(cells);
        }
        for i in 1..=cmp.methods.len() {
            if let Some(c) = t.column_mut(i) {
                c.set_cell_alignment(CellAlignment::Right);
            }
        }
        out.push_str(&t.to_string());
        out.push('\n');
    }
    out
}

type ViewFn = fn(&ComparisonCell) -> Option<String>;
type FastestFn = fn(&ComparisonRow) -> &String;

/// Outliers (Tukey's fences) in a table's cells, hyperfine-style: one line naming up to five
/// cells, or nothing.
fn outlier_note(table: &crate::table::SeedTable) -> String {
    let flagged: Vec<String> = table
        .rows
        .iter()
        .flat_map(|r| {
            r.cells
                .iter()
                .filter(|(_, s)| s.outliers > 0)
                .map(move |(st, s)| format!("{} {} ({} of {})", r.label, st, s.outliers, s.n))
        })
        .collect();
    if flagged.is_empty() {
        return String::new();
    }
    let shown: Vec<&String> = flagged.iter().take(5).collect();
    let more = flagged.len().saturating_sub(shown.len());
    format!(
        "\nOutliers (beyond Tukey's fences) in {} cell(s): {}{}. Interference from other processes or a cold cache can cause them; more runs, or a quieter machine, help.\n",
        flagged.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    )
}

/// The A/B comparison: one row per site × method × stage, baseline and candidate means with
/// their n, the ratio with its 95 % interval, and the verdict; then a one-line tally.
pub fn render_ab(rows: &[crate::compare::AbRow], min_change: f64) -> String {
    let mut t = new_table(
        [
            "site",
            "method",
            "stage",
            "baseline",
            "candidate",
            "ratio [95 % CI]",
            "change",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect(),
    );
    for r in rows {
        t.add_row(vec![
            r.site.clone(),
            r.method.clone(),
            r.stage.name().to_owned(),
            format!("{} (n={})", human(r.baseline.mean), r.baseline.n),
            format!("{} (n={})", human(r.candidate.mean), r.candidate.n),
            format!("×{:.3} [{:.3}, {:.3}]", r.ratio, r.ratio_low, r.ratio_high),
            r.change.label().to_owned(),
        ]);
    }
    for i in 3..=5 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let count = |c: crate::compare::Change| rows.iter().filter(|r| r.change == c).count();
    use crate::compare::Change::*;
    format!(
        "### A/B: candidate vs baseline (ratio = candidate ÷ baseline mean; Welch 95 % interval; changes under {:.0} % are noise)\n\n{t}\n\n{} slower, {} faster, {} within noise, {} with too few samples.\n",
        min_change * 100.0,
        count(Slower),
        count(Faster),
        count(Noise),
        count(TooFew)
    )
}

/// A plain markdown table (`header`, then `rows`), columns from `right_from` on
/// right-aligned: for tables that are not sample tables (instruction counts, …).
pub fn plain_table(header: &[&str], rows: Vec<Vec<String>>, right_from: usize) -> String {
    let mut t = new_table(header.iter().map(|h| h.to_string()).collect());
    for r in rows {
        t.add_row(r);
    }
    for i in right_from..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t.to_string()
}
