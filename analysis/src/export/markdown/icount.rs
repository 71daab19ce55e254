//! `certbench icount` in markdown: instructions per verification (per method and key), per
//! scenario (per stack), each run's count and their spread; then the largest spread against
//! the tolerance.

use super::table::plain_table;
use crate::icount::{IcountRow, IcountTables};

fn rows(rows: &[IcountRow]) -> Vec<Vec<String>> {
    (rows.iter())
        .map(|r| {
            let each: Vec<String> = r.counts.iter().map(|v| v.to_string()).collect();
            vec![
                r.what.clone(),
                r.on.clone(),
                each.join(" / "),
                format!("{:.4} %", r.spread()),
            ]
        })
        .collect()
}

/// The tables and the spread line, as the command prints them.
pub(crate) fn render(t: &IcountTables) -> String {
    let mut text = String::new();
    if !t.verify.is_empty() {
        text += &format!(
            "## Instructions per verification (callgrind, {} verifications per run)\n\n",
            t.iterations
        );
        let header = ["method", "key", "Ir per verify (each run)", "spread"];
        text += &plain_table(&header, rows(&t.verify), 2);
        text += "\n";
    }
    if !t.scenarios.is_empty() {
        if t.verify_counted {
            text += "\n";
        }
        text += &format!(
            "## Instructions per scenario (callgrind, {} per run; in memory, P-256, TLS 1.3 AES-128-GCM)\n\n",
            t.iterations
        );
        let header = ["scenario", "stack", "Ir per scenario (each run)", "spread"];
        text += &plain_table(&header, rows(&t.scenarios), 2);
        text += "\n";
    }
    text += &format!(
        "\nLargest spread between runs: {:.4} % (tolerance {} %).\n",
        t.worst(),
        t.tolerance
    );
    text
}

/// Instruction counts read back from `--json` files (`certbench report`): each row's runs,
/// named by what its counts name (method and key, or scenario and stack).
pub(crate) fn counts(counted: &[IcountRow]) -> String {
    let header = ["what", "on", "Ir each run", "spread"];
    plain_table(&header, rows(counted), 2) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::golden::check;
    use crate::icount::tests::row;

    /// As `certbench icount` printed them from `src/bench/icount/sweep.rs` before they moved.
    #[test]
    fn the_tables_and_the_largest_spread() {
        let mut t = IcountTables {
            iterations: 10,
            verify_counted: true,
            verify: vec![row("rustlsserial", "p256", &[1000, 1001])],
            scenarios: vec![row("full", "rustls", &[5000, 5000])],
            tolerance: 0.5,
        };
        check("icount.md", &render(&t));
        t.verify_counted = false;
        t.verify.clear();
        check("icount-scenarios.md", &render(&t));
    }
}
