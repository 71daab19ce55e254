//! An A/B comparison of two runs as CSV: one record per site × method × stage.

use crate::ab::AbRow;

/// A/B rows: one record per site × method × stage.
pub(crate) fn render(rows: &[AbRow]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "site",
        "method",
        "stage",
        "baseline_n",
        "baseline_mean_ns",
        "candidate_n",
        "candidate_mean_ns",
        "ratio",
        "ratio_ci95_low",
        "ratio_ci95_high",
        "change",
    ])
    .expect("writing to memory");
    for r in rows {
        w.write_record([
            r.site.clone(),
            r.method.clone(),
            r.stage.name().to_owned(),
            r.baseline.n.to_string(),
            format!("{:.1}", r.baseline.mean),
            r.candidate.n.to_string(),
            format!("{:.1}", r.candidate.mean),
            format!("{:.4}", r.ratio),
            format!("{:.4}", r.ratio_low),
            format!("{:.4}", r.ratio_high),
            r.change.label().to_owned(),
        ])
        .expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("flushing to memory")).expect("CSV of UTF-8 fields")
}
