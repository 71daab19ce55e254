//! The samples' report in markdown: the configurations, the per-method tables of the seed
//! (each cell mean, median and p90 in the mean's unit) with their outliers, then the `--pq`
//! tables, the comparison's views, the answer and the revocation rows, in that order.

use super::table::{new_table, right_align};
use crate::describe::Describe;
use crate::export::report::Report;
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

/// The whole report.
pub(crate) fn render(report: &Report) -> String {
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
        right_align(&mut t, 1..=table.stages.len() + 1);
        out.push_str(&t.to_string());
        out.push('\n');
        out.push_str(&outlier_note(table));
    }
    if let Some(pq) = &report.pq {
        out.push_str(&super::pq::tables(pq));
    }
    if let Some(cmp) = &report.comparison {
        out.push_str(&super::comparison::views(cmp));
    }
    let answer = super::answer_list::list(&report.answer);
    if !answer.is_empty() {
        out.push_str("\n### answer\n\n");
        out.push_str(&answer);
    }
    if !report.revocation.is_empty() {
        // `--revocation`: each method and mechanism cold and warm, and what each costs.
        out.push('\n');
        out.push_str(&super::revocation::table(&report.revocation));
        let answer = crate::revocation::answer(&report.revocation);
        for line in super::revocation::answer(&answer) {
            out.push_str(&format!("\n{line}\n"));
        }
    }
    out
}

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
