//! An A/B comparison of two runs in markdown: a row per site × method × stage, and the tally.

use super::table::{new_table, right_align};
use crate::ab::{AbRow, Change};
use crate::units::human;

/// The A/B comparison: one row per site × method × stage, baseline and candidate means with
/// their n, the ratio with its 95 % interval, and the verdict; then a one-line tally.
pub(crate) fn render(rows: &[AbRow], min_change: f64) -> String {
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
    right_align(&mut t, 3..=5);
    let count = |c: Change| rows.iter().filter(|r| r.change == c).count();
    use Change::*;
    format!(
        "### A/B: candidate vs baseline (ratio = candidate ÷ baseline mean; Welch 95 % interval; changes under {:.0} % are noise)\n\n{t}\n\n{} slower, {} faster, {} within noise, {} with too few samples.\n",
        min_change * 100.0,
        count(Slower),
        count(Faster),
        count(Noise),
        count(TooFew)
    )
}
