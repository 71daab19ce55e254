//! The table's rows: each data set's figures, spread over its runs.

use std::path::Path;

use certbench_schema::records::revocation_scale::{Quantiles as Spread, Report, Row};

use super::measure::Measured;
use super::options::ScaleOptions;

/// The report of `measured` (see the module docs), the verdicts as samples spell them.
pub(super) fn report(
    opts: &ScaleOptions,
    measured: Vec<Measured>,
    verdicts: [&str; 2],
    dir: &Path,
) -> Report {
    let spread = |v: &[u64]| {
        Spread::of(v).unwrap_or(Spread {
            n: 0,
            median: 0.0,
            p10: 0.0,
            p90: 0.0,
        })
    };
    let rows = measured
        .into_iter()
        .map(|m| {
            let (data, check, holds, published) = m.set.labels();
            Row {
                data,
                check: check.into(),
                holds,
                published,
                generated_ms: m.generated_ms,
                cached: m.cached,
                data_bytes: m.loaded.data_bytes(),
                resident_bytes: m.loaded.resident_bytes(),
                rss_delta_bytes: m.rss_delta,
                cold: spread(&m.cold),
                warm_good: spread(&m.warm[0]),
                warm_revoked: spread(&m.warm[1]),
                verdict_good: verdicts[0].into(),
                verdict_revoked: verdicts[1].into(),
            }
        })
        .collect();
    Report {
        rows,
        cold_runs: opts.cold_runs,
        warm_runs: opts.warm_runs,
        cache: dir.display().to_string(),
    }
}
