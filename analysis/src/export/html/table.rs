//! The HTML report's tables: the generic one every section uses ([`html_table`]), the seed
//! table of each method and configuration, and the comparison with its answer. Every text
//! that goes into the page passes through [`esc`]; numbers are formatted by
//! [`crate::units::human`] as in the markdown tables.

use std::fmt::Write;

use crate::describe::Describe;
use crate::export::report::Report;
use crate::table::SeedTable;
use crate::units::human;

/// Appends an HTML table; columns from `numeric_from` on are right-aligned numbers.
pub(super) fn html_table(
    h: &mut String,
    headers: &[&str],
    rows: &[Vec<String>],
    numeric_from: usize,
) {
    h.push_str("<table><tr>");
    for c in headers {
        let _ = write!(h, "<th>{}</th>", esc(c));
    }
    h.push_str("</tr>\n");
    for row in rows {
        h.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            if i >= numeric_from {
                let _ = write!(h, "<td class=\"n\">{}</td>", esc(c));
            } else {
                let _ = write!(h, "<td>{}</td>", esc(c));
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

/// `s` with `&`, `<`, `>` and `"` escaped, for text and attribute values alike.
pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A seed table's heading: its name, then its method's configuration when it has one.
fn table_title(t: &SeedTable) -> String {
    match t.config.describe_method() {
        m if m.is_empty() => t.name(),
        m => format!("{} — {m}", t.name()),
    }
}

/// Appends the seed tables of `report`, then its comparison and answer when it has them.
pub(super) fn tables(h: &mut String, report: &Report) {
    h.push_str("<h2>Tables</h2>\n");
    for t in &report.tables {
        seed_table(h, t);
    }
    comparison(h, report);
}

/// One method's table: a row per site, a cell per stage (mean ± CI half-width, median / p90,
/// † when Tukey's fences found outliers), then the verdict.
fn seed_table(h: &mut String, t: &SeedTable) {
    let _ = writeln!(
        h,
        "<h3>{}</h3>\n<p class=\"note\">Cells: mean ± 95 % CI half-width (median / p90); outliers by Tukey's fences marked †.</p>",
        esc(&table_title(t))
    );
    h.push_str("<table><tr><th>site</th><th>n</th>");
    for st in &t.stages {
        let _ = write!(h, "<th>{st}</th>");
    }
    h.push_str("<th>verdict</th></tr>\n");
    for r in &t.rows {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td>",
            esc(&r.label),
            r.n
        );
        for st in &t.stages {
            match r.cells.get(st) {
                Some(s) => {
                    let _ = write!(
                        h,
                        "<td class=\"n\">{} ± {} ({} / {}){}</td>",
                        human(s.mean),
                        human((s.ci95_high - s.mean).max(0.0)),
                        human(s.median),
                        human(s.p90),
                        if s.outliers > 0 { " †" } else { "" }
                    );
                }
                None => h.push_str("<td>—</td>"),
            }
        }
        let _ = writeln!(h, "<td>{}</td></tr>", esc(&r.verdict));
    }
    h.push_str("</table>\n");
}

/// The comparison per site (own cost | 2017 view, × the site's fastest) and the answer, when
/// `report` has a comparison (two methods or more); nothing otherwise.
fn comparison(h: &mut String, report: &Report) {
    let Some(cmp) = &report.comparison else {
        return;
    };
    let _ = writeln!(
        h,
        "<h3>Comparison per site: own cost (what the verifier itself spent) | 2017 view (what the handshake paid), medians, × the site's fastest</h3>"
    );
    h.push_str("<table><tr><th>site</th>");
    for m in &cmp.methods {
        let _ = write!(h, "<th>{}</th>", esc(m));
    }
    h.push_str("<th>fastest (own)</th><th>fastest (2017 view)</th></tr>\n");
    for row in &cmp.rows {
        let _ = write!(h, "<tr><td>{}</td>", esc(&row.label));
        for m in &cmp.methods {
            match row.cells.iter().find(|c| &c.method == m) {
                Some(c) => {
                    let _ = write!(
                        h,
                        "<td class=\"n\">{} ×{:.2} | {} ×{:.2} (n={})</td>",
                        human(c.own.median),
                        c.own_ratio,
                        human(c.paid.median),
                        c.paid_ratio,
                        c.own.n
                    );
                }
                None => h.push_str("<td>—</td>"),
            }
        }
        let _ = writeln!(
            h,
            "<td>{}</td><td>{}</td></tr>",
            esc(&row.fastest_own),
            esc(&row.fastest_paid)
        );
    }
    h.push_str("</table>\n");
    let answer = crate::export::markdown::answer::lines(&report.answer);
    if !answer.is_empty() {
        h.push_str("<h3>Answer</h3>\n<ul>\n");
        for l in &answer {
            let _ = writeln!(h, "<li>{}</li>", esc(l));
        }
        h.push_str("</ul>\n");
    }
}
