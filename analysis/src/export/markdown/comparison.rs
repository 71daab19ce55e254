//! The comparison's views in markdown: own cost per site, the 2017 view when it differs, and
//! verification's share of the connection when there was one; one table each, a column per
//! method, the site's fastest last.

use super::table::{new_table, right_align};
use crate::comparison::{Comparison, ComparisonCell, ComparisonRow};
use crate::units::human;

/// The comparison's tables (own cost; the 2017 view when it differs; the share of the
/// connection when there was one).
pub(crate) fn views(cmp: &Comparison) -> String {
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
        right_align(&mut t, 1..=cmp.methods.len());
        out.push_str(&t.to_string());
        out.push('\n');
    }
    out
}

type ViewFn = fn(&ComparisonCell) -> Option<String>;
type FastestFn = fn(&ComparisonRow) -> &String;
