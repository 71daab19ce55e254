//! Bulk transfers as CSV: one record per result and run, MB/s to three decimals.

use crate::bulk::BulkResult;

/// CSV: one line per result and run.
pub(crate) fn render(results: &[BulkResult]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "stack",
        "library",
        "tls",
        "suite",
        "key",
        "direction",
        "bytes",
        "record",
        "run",
        "mb_per_s",
    ]);
    for r in results {
        for (i, v) in r.mb_per_s.iter().enumerate() {
            let _ = w.write_record([
                r.stack.clone(),
                r.library.clone(),
                r.tls.clone(),
                r.suite.clone(),
                r.key.clone(),
                r.direction.clone(),
                r.bytes.to_string(),
                r.record.to_string(),
                i.to_string(),
                format!("{v:.3}"),
            ]);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::tests::r;

    #[test]
    fn a_record_per_run() {
        let csv = render(&[r("send", vec![900.0, 1000.0, 800.0, 950.0, 990.0])]);
        assert_eq!(csv.lines().count(), 6);
        crate::export::golden::check("bulk.csv", &csv);
    }
}
