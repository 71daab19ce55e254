//! Page loads in markdown: every load, then per (page, method, configuration) the cold load
//! beside the median of the later ones, then the failed connections.

use std::fmt::Write as _;

use super::table::plain_table;
use crate::page::{PageLoad, any_ct, cold_warm, config};
use crate::units::human;

/// A load's SCT signatures checked, or `—` without a CT check.
pub(crate) fn sct_checked(l: &PageLoad) -> String {
    l.scts().map_or("—".to_owned(), |n| n.to_string())
}

fn percent(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

/// Markdown: every load, then per (page, method) the cold load beside the median of the
/// later ones.
pub(crate) fn render(loads: &[PageLoad]) -> String {
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

fn summary_rows(loads: &[PageLoad], ct: bool) -> Vec<Vec<String>> {
    let groups = cold_warm(loads);
    let mixed = groups.iter().any(|g| g.config != groups[0].config);
    groups
        .into_iter()
        .map(|g| {
            let (page, method, cold) = (g.page, g.method, g.cold);
            let later = &g.later;
            let m = |f: fn(&PageLoad) -> f64| g.later_median(f);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::tests::load;

    #[test]
    fn the_summary_sets_the_cold_load_beside_the_median_of_later_ones() {
        let loads = [
            load(1, 3, 0, 300_000),
            load(2, 0, 3, 10_000),
            load(3, 0, 3, 20_000),
        ];
        let md = render(&loads);
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
        let csv = crate::export::csv::page::render(&loads);
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
        let md = render(&loads);
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
        let csv = crate::export::csv::page::render(&loads);
        assert!(
            csv.lines().nth(1).unwrap().contains(",5 logs of mirror,6,"),
            "{csv}"
        );
        crate::export::golden::check("page-ct.md", &md);
        crate::export::golden::check("page-ct.csv", &csv);
    }
}
