//! The samples' report as CSV, long form: one record per method × site × stage, statistics in
//! nanoseconds; a row with no stage measured is kept, its statistics empty.

use crate::export::report::Report;

/// The whole report.
pub(crate) fn render(report: &Report) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "method",
        "transport",
        "hook",
        "resumption",
        "cache_roots",
        "roots",
        "openssl_policy",
        "versions",
        "site",
        "chain",
        "stage",
        "n",
        "mean_ns",
        "median_ns",
        "p90_ns",
        "p99_ns",
        "sd_ns",
        "min_ns",
        "max_ns",
        "ci95_low_ns",
        "ci95_high_ns",
        "roots_cached",
        "verdict",
    ])
    .expect("writing to memory");
    for table in &report.tables {
        for row in &table.rows {
            let c = &table.config;
            let base = [
                table.method.clone(),
                c.transport
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                c.hook.as_ref().map(ToString::to_string).unwrap_or_default(),
                c.resumption.to_string(),
                c.cache_roots.to_string(),
                c.roots
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                c.openssl_policy
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                c.versions
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join("; "),
                row.site.clone(),
                row.chain.clone().unwrap_or_default(),
            ];
            if row.cells.is_empty() {
                // An error row: no stage could be measured, but the row is not dropped.
                let mut rec: Vec<String> = base.to_vec();
                rec.extend(["".into(), row.n.to_string()]);
                rec.extend(std::iter::repeat_n(String::new(), 9));
                rec.extend([row.roots_cached.to_string(), row.verdict.clone()]);
                w.write_record(&rec).expect("writing to memory");
            }
            for (stage, s) in &row.cells {
                let mut rec: Vec<String> = base.to_vec();
                rec.push(stage.name().to_owned());
                rec.push(s.n.to_string());
                for v in [
                    s.mean,
                    s.median,
                    s.p90,
                    s.p99,
                    s.sd,
                    s.min,
                    s.max,
                    s.ci95_low,
                    s.ci95_high,
                ] {
                    rec.push(format!("{v:.1}"));
                }
                rec.push(row.roots_cached.to_string());
                rec.push(row.verdict.clone());
                w.write_record(&rec).expect("writing to memory");
            }
        }
    }
    super::servo::records(&mut w, &report.servo);
    String::from_utf8(w.into_inner().expect("flush to memory")).expect("csv of UTF-8 strings")
}
