//! `certbench revocation-scale` in markdown: a row per data set (its sizes, its load cold, its
//! checks warm), then what the times are and how each data set was generated.

use crate::revocation_scale::{Quantiles, Report};
use crate::units::human;

/// `median [p10–p90] (n)`, in human units.
fn cell(q: &Quantiles) -> String {
    format!(
        "{} [{}–{}] (n={})",
        human(q.median),
        human(q.p10),
        human(q.p90),
        q.n
    )
}

fn bytes(b: u64) -> String {
    match b {
        b if b >= 10_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 10_000 => format!("{:.1} KB", b as f64 / 1e3),
        b => format!("{b} B"),
    }
}

fn signed_bytes(b: i64) -> String {
    match b < 0 {
        true => format!("−{}", bytes(b.unsigned_abs())),
        false => bytes(b as u64),
    }
}

/// The Markdown table and its notes.
pub(crate) fn table(report: &Report) -> String {
    let mut out = String::from(
        "| data | check | holds | published | data bytes | resident (estimate) | RSS Δ first load | cold: load | warm: not revoked | warm: revoked | verdicts |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for r in &report.rows {
        let resident = r
            .resident_bytes
            .map_or_else(|| "— (files read per check)".into(), bytes);
        let rss = r.rss_delta_bytes.map_or_else(|| "—".into(), signed_bytes);
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} |\n",
            r.data,
            r.check,
            r.holds,
            r.published,
            bytes(r.data_bytes),
            resident,
            rss,
            cell(&r.cold),
            cell(&r.warm_good),
            cell(&r.warm_revoked),
            r.verdict_good,
            r.verdict_revoked,
        ));
    }
    out.push_str(&format!(
        "\nTimes: median [p10–p90] (n samples), monotonic clock. Cold: a fresh load in this process \
         (the file read from the page cache, then parsed, deserialised or, for upki, opened and \
         checked), {k} per data set, the data sets in turn. Warm: one check of the path (leaf, \
         CA) with the data loaded, {n} per leaf and data set, every data set's checks interleaved; \
         every check's verdict was the one shown. Resident: the structure's own estimate of its \
         heap; RSS Δ: `/proc/self/statm` resident pages before and after its first load (the \
         allocator's doing as much as the data's).\n\n",
        k = report.cold_runs,
        n = report.warm_runs,
    ));
    out.push_str("Generation (once, cached in `");
    out.push_str(&report.cache);
    out.push_str("`): ");
    // One entry per data set (CRLite's in-memory rows share a filter; upki's store is
    // written from it).
    let mut made: Vec<String> = Vec::new();
    for (i, r) in report.rows.iter().enumerate() {
        if report.rows[..i].iter().any(|o| o.data == r.data) {
            continue;
        }
        let took = human(r.generated_ms * 1e6);
        let when = if r.cached { "earlier run" } else { "this run" };
        made.push(format!("{} {took} ({when})", r.data));
    }
    out.push_str(&made.join("; "));
    out.push_str(".\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_and_its_notes() {
        let report = crate::revocation_scale::tests::report();
        crate::export::golden::check("revocation-scale.md", &table(&report));
    }
}
