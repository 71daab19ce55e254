//! `certbench capture` in markdown: how many sites were taken and where to, then a row per
//! site (its folder, the certificates sent, their keys, `captured` or the error).

use super::table::plain_table;
use crate::capture::{CaptureRow, CaptureRun};

fn row(r: &CaptureRow) -> Vec<String> {
    match &r.outcome {
        Ok(t) => vec![
            r.site.clone(),
            t.folder.clone(),
            t.certificates.to_string(),
            t.keys.join(", "),
            "captured".to_owned(),
        ],
        Err(e) => vec![
            r.site.clone(),
            "—".to_owned(),
            "—".to_owned(),
            "—".to_owned(),
            format!("error: {e}"),
        ],
    }
}

/// The title and the table.
pub(crate) fn render(run: &CaptureRun) -> String {
    let table = plain_table(
        &["site", "folder", "certificates sent", "keys", "result"],
        run.rows.iter().map(row).collect(),
        2,
    );
    let (n, of, dir) = (run.captured, run.sites, &run.dir);
    format!("## certbench capture — {n} of {of} sites into {dir}\n\n{table}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Taken;

    /// The text `src/cli/capture.rs` printed before it moved here: the same title over
    /// `plain_table` of the same header and cells.
    #[test]
    fn a_row_per_site_captured_or_not() {
        let run = CaptureRun {
            captured: 1,
            sites: 2,
            dir: "corpus/captured".into(),
            rows: vec![
                CaptureRow {
                    site: "a.example".into(),
                    outcome: Ok(Taken {
                        folder: "a.example__capture".into(),
                        certificates: 2,
                        keys: vec!["ecdsa-p256".into(), "rsa-2048".into()],
                    }),
                },
                CaptureRow {
                    site: "b.example:8443".into(),
                    outcome: Err("connection refused".into()),
                },
            ],
        };
        let cells = |c: [&str; 5]| c.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let before = plain_table(
            &["site", "folder", "certificates sent", "keys", "result"],
            vec![
                cells([
                    "a.example",
                    "a.example__capture",
                    "2",
                    "ecdsa-p256, rsa-2048",
                    "captured",
                ]),
                cells(["b.example:8443", "—", "—", "—", "error: connection refused"]),
            ],
            2,
        );
        let text = render(&run);
        assert_eq!(
            text,
            format!("## certbench capture — 1 of 2 sites into corpus/captured\n\n{before}\n")
        );
        crate::export::golden::check("capture.md", &text);
    }
}
