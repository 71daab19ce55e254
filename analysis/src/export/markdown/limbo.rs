//! `certbench limbo`'s summary in markdown: the tallies per harness and per family, the time
//! in verify calls, the verdicts that differ (between methods, and against each library's
//! upstream harness), the slowest testcases.

use std::fmt::Write as _;

use comfy_table::Table;

use super::table::{new_table, plain_table, right_align};
use crate::limbo::report::{LimboReport, SlowCase};
use crate::limbo::{ActualResult, Agreement, LimboResult, Summary, Tally, family};
use crate::units::human;

/// The markdown summary: the tallies, the time in verify calls, the differing verdicts
/// (at most [`LimboReport::show`] per pair), the slowest testcases.
pub(crate) fn report(r: &LimboReport) -> String {
    let mut out = format!(
        "## x509-limbo: {} ({} testcases)\n\n",
        r.file.display(),
        r.testcases
    );
    out.push_str(&summaries(&r.summaries));
    out.push_str(&format!(
        "\nWall time {:.1} s; in verify calls: {}.\n",
        r.wall_seconds,
        (r.verify.iter())
            .map(|v| format!(
                "{} {:.2} s over {} testcases",
                v.method,
                v.verify_ns as f64 / 1e9,
                v.ran
            ))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if !r.bad.is_empty() {
        out.push_str(&format!(
            "\n{} testcase(s) could not be read (SKIPPED by every method; see standard error).\n",
            r.bad.len()
        ));
    }
    if let Some(pairs) = &r.pairs {
        out.push_str("\n### Verdicts that differ between methods\n\n");
        out.push_str(&agreements(pairs, r.show));
    }
    if !r.upstream.is_empty() {
        out.push_str("\n### Verdicts that differ from the upstream harness\n\n");
        out.push_str(&agreements(&r.upstream, r.show));
    }
    if let Some(slow) = &r.slowest {
        out.push_str(&slowest(&slow.methods, slow.repeats));
    }
    out
}

fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        "—".to_owned()
    } else {
        format!("{:.1} %", 100.0 * part as f64 / whole as f64)
    }
}

fn tally_cells(t: &Tally) -> Vec<String> {
    vec![
        t.ran.to_string(),
        format!("{} ({})", t.pass, pct(t.pass, t.ran)),
        t.false_accept.to_string(),
        t.false_reject.to_string(),
        t.skipped.to_string(),
    ]
}

fn table(header: &[&str]) -> Table {
    new_table(header.iter().map(|h| h.to_string()).collect())
}

/// Right-aligns the columns from `from` on.
fn right_align_from(t: &mut Table, from: usize) {
    let n = t.column_count();
    right_align(t, from..n);
}

/// Markdown: one row per harness, then one row per family × harness.
pub(crate) fn summaries(summaries: &[Summary]) -> String {
    let mut out = String::new();
    let cols = ["ran", "pass", "false accept", "false reject", "skipped"];
    let mut header = vec!["harness"];
    header.extend(cols);
    let mut t = table(&header);
    for s in summaries {
        let mut row = vec![s.harness.clone()];
        row.extend(tally_cells(&s.total));
        t.add_row(row);
    }
    right_align_from(&mut t, 1);
    let _ = writeln!(out, "{t}\n");

    let mut header = vec!["family", "harness"];
    header.extend(cols);
    let mut t = table(&header);
    let families: std::collections::BTreeSet<&String> =
        summaries.iter().flat_map(|s| s.families.keys()).collect();
    for f in families {
        for s in summaries {
            if let Some(tally) = s.families.get(f) {
                let mut row = vec![f.clone(), s.harness.clone()];
                row.extend(tally_cells(tally));
                t.add_row(row);
            }
        }
    }
    right_align_from(&mut t, 2);
    let _ = writeln!(out, "{t}");
    let unknown: usize = summaries.iter().map(|s| s.total.unknown).sum();
    if unknown > 0 {
        let _ = writeln!(
            out,
            "\n{unknown} result(s) name testcases that are not in the file; not counted."
        );
    }
    out
}

fn short(context: &Option<String>) -> String {
    let c = context.as_deref().unwrap_or("");
    let c = c.replace(['\n', '|'], " ");
    if c.chars().count() > 70 {
        format!("{}…", c.chars().take(69).collect::<String>())
    } else {
        c
    }
}

/// Markdown: per pair, the count of testcases both ran, the count that differ (per family),
/// and up to `limit` of the differing testcases with both verdicts and reasons.
pub(crate) fn agreements(agreements: &[Agreement], limit: usize) -> String {
    let mut out = String::new();
    for a in agreements {
        let fam: Vec<String> = a
            .by_family()
            .iter()
            .map(|(f, n)| format!("{f} {n}"))
            .collect();
        let _ = writeln!(
            out,
            "{} vs {}: {} of {} testcases both ran differ{}",
            a.a,
            a.b,
            a.differences.len(),
            a.both_ran,
            if fam.is_empty() {
                String::new()
            } else {
                format!(" ({})", fam.join(", "))
            }
        );
        if a.differences.is_empty() {
            let _ = writeln!(out);
            continue;
        }
        let mut t = table(&["testcase", &a.a, &a.b]);
        for d in a.differences.iter().take(limit) {
            t.add_row(vec![
                d.id.clone(),
                format!("{} {}", d.a.0.as_str(), short(&d.a.1)),
                format!("{} {}", d.b.0.as_str(), short(&d.b.1)),
            ]);
        }
        let _ = writeln!(out, "\n{t}");
        if a.differences.len() > limit {
            let _ = writeln!(
                out,
                "… and {} more (all of them in the JSON output).",
                a.differences.len() - limit
            );
        }
        let _ = writeln!(out);
    }
    out
}

/// Markdown: per method, its slowest testcases (median of `repeats` calls made again).
pub(crate) fn slowest(slow: &[(String, Vec<SlowCase>)], repeats: usize) -> String {
    let mut out = format!(
        "\n### Slowest testcases per method (verify call; median of {repeats} calls made again, min–max)\n"
    );
    for (method, cases) in slow {
        out.push_str(&format!("\n#### {method}\n\n"));
        if cases.is_empty() {
            out.push_str("No testcase ran.\n");
            continue;
        }
        let rows = cases.iter().enumerate().map(slow_row).collect();
        out.push_str(&plain_table(
            &[
                "#",
                "testcase",
                "family",
                "median",
                "min–max",
                "first call",
                "verdict",
            ],
            rows,
            3,
        ));
        out.push('\n');
    }
    out
}

/// The row of the `i`th slowest testcase.
fn slow_row((i, c): (usize, &SlowCase)) -> Vec<String> {
    vec![
        (i + 1).to_string(),
        c.id.clone(),
        family(&c.id).to_owned(),
        human(c.median_ns() as f64),
        match (c.again_ns.first(), c.again_ns.last()) {
            (Some(lo), Some(hi)) => format!("{}–{}", human(*lo as f64), human(*hi as f64)),
            _ => "—".to_owned(),
        },
        human(c.first_ns as f64),
        c.actual.as_str().to_owned(),
    ]
}

/// Limbo result files read back (`certbench report`): per harness, its testcases by verdict
/// (a result file holds no expectations: the tally against them is `certbench limbo`'s).
pub(crate) fn results(results: &[LimboResult]) -> String {
    let rows = (results.iter())
        .map(|r| {
            let n = |a: ActualResult| r.results.iter().filter(|t| t.actual_result == a).count();
            vec![
                r.harness.clone(),
                r.results.len().to_string(),
                n(ActualResult::Success).to_string(),
                n(ActualResult::Failure).to_string(),
                n(ActualResult::Skipped).to_string(),
            ]
        })
        .collect();
    let header = ["harness", "testcases", "SUCCESS", "FAILURE", "SKIPPED"];
    plain_table(&header, rows, 1) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::golden::check;
    use crate::limbo::ActualResult;
    use crate::limbo::tests::{agreement, summary};

    #[test]
    fn a_row_per_harness_then_per_family_and_the_differing_testcases() {
        let md = summaries(&[summary()]);
        assert!(md.contains("| h "), "{md}");
        assert!(md.contains("2 (50.0 %)"), "{md}");
        check("limbo-summaries.md", &md);
        let md = agreements(&[agreement()], 10);
        assert!(
            md.contains("a vs b: 1 of 2 testcases both ran differ (x 1)"),
            "{md}"
        );
        check("limbo-agreements.md", &md);
    }

    #[test]
    fn the_slowest_testcases_per_method() {
        let case = |index, id: &str, again_ns: Vec<u64>| SlowCase {
            index,
            id: id.into(),
            first_ns: 900_000,
            again_ns,
            actual: ActualResult::Failure,
        };
        let slow = [
            (
                "rustlsserial".to_owned(),
                vec![
                    case(3, "rfc5280::long-chain", vec![100_000, 200_000, 400_000]),
                    case(7, "webpki::no-repeat", Vec::new()),
                ],
            ),
            ("openssl".to_owned(), Vec::new()),
        ];
        assert_eq!(slow[0].1[0].median_ns(), 200_000);
        assert_eq!(slow[0].1[1].median_ns(), 900_000);
        check("limbo-slowest.md", &slowest(&slow, 3));
    }
}
