//! Bulk transfers in markdown: a row per stack × TLS version × suite × key, send and receive
//! side by side, each as its best run, then median and range over the runs.

use super::table::plain_table;
use crate::bulk::BulkFigures;
use crate::bulk::{BulkResult, BulkRun};

fn cell(r: Option<&BulkResult>) -> String {
    match r {
        Some(r) => format!(
            "{:.0} ({:.0}, {:.0}–{:.0})",
            r.best(),
            r.median(),
            r.worst(),
            r.best()
        ),
        None => "—".to_owned(),
    }
}

/// Markdown: one row per stack × version × suite × key, send and receive side by side
/// (best, then median and range over the runs).
pub(crate) fn table(results: &[BulkResult]) -> String {
    let mut labels: Vec<String> = Vec::new();
    for r in results {
        if !labels.contains(&r.label()) {
            labels.push(r.label());
        }
    }
    let rows = labels
        .iter()
        .map(|l| {
            let of = |d: &str| results.iter().find(|r| &r.label() == l && r.direction == d);
            let any = of("send").or(of("receive")).expect("a result per label");
            vec![
                any.stack.clone(),
                any.tls.clone(),
                any.suite.clone(),
                any.key.clone(),
                any.mb_per_s.len().to_string(),
                cell(of("send")),
                cell(of("receive")),
            ]
        })
        .collect();
    plain_table(
        &[
            "stack",
            "TLS",
            "suite",
            "key",
            "runs",
            "send MB/s: best (median, range)",
            "receive MB/s: best (median, range)",
        ],
        rows,
        4,
    )
}

/// `certbench bulk`'s document: the table under a title naming what each run moved.
pub(crate) fn document(results: &[BulkResult], run: &BulkRun) -> String {
    format!(
        "## certbench bulk — {} MiB per run, records of {} bytes, in memory (no socket)\n\n{}",
        run.mib,
        run.record,
        table(results)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::tests::r;
    use crate::export::golden::check;

    #[test]
    fn best_then_median_and_range_per_direction() {
        let send = r("send", vec![900.0, 1000.0, 800.0, 950.0, 990.0]);
        let md = table(&[send, r("receive", vec![700.0, 600.0])]);
        let row = md.lines().find(|l| l.contains("TLS_AES_128")).unwrap();
        assert!(row.contains("1000 (950, 800–1000)"), "{row}");
        assert!(row.contains("700 (650, 600–700)"), "{row}");
        check("bulk.md", &md);
    }

    /// As `certbench bulk` printed it from `src/bulk.rs` before it moved here.
    #[test]
    fn the_document_titles_the_table_with_the_sizes() {
        let results = [
            r("send", vec![900.0, 1000.0, 800.0]),
            r("receive", vec![700.0, 600.0, 650.0]),
        ];
        let run = BulkRun {
            mib: 1.5,
            record: 16384,
        };
        check("bulk-doc.md", &document(&results, &run));
    }
}
