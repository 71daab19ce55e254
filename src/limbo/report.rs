//! What a run of `certbench limbo` measured, gathered into the schema's [`LimboRun`] for the
//! analysis to tally ([`measured`]): each method's results and times, and (`--timings`) each
//! method's slowest testcases timed again.

use std::path::Path;

use certbench_schema::records::limbo::{LimboRun, MethodResults};

use super::run::{MethodRun, expectations};
use super::testcase::LimboFile;

/// `--timings`: how many testcases per method, each verified again how many times.
#[derive(Clone, Copy, Debug)]
pub struct Timings {
    /// Testcases in each method's table.
    pub top: usize,
    /// Times each candidate is verified again.
    pub repeats: usize,
}

/// What `runs` over `file` (read from `path`, run in `wall_seconds`) measured; with
/// `timings`, each method's slowest testcases are timed again, after `note` says so.
pub fn measured(
    path: &Path,
    file: &LimboFile,
    runs: &[MethodRun],
    wall_seconds: f64,
    timings: Option<Timings>,
    mut note: impl FnMut(&str),
) -> LimboRun {
    if timings.is_some() {
        note("certbench limbo: timing the slowest testcases again");
    }
    let methods = (runs.iter())
        .map(|r| {
            let lib = r.method.verifier().library();
            let slowest = timings.map(|t| super::run::slowest(file, r, t.top, t.repeats));
            MethodResults {
                method: r.method.to_string(),
                library: lib.name.to_owned(),
                harness_prefix: lib.limbo_harness.map(str::to_owned),
                result: r.result.clone(),
                verify_ns: r.verify_ns,
                ran: r.ran,
                slowest: slowest.unwrap_or_default(),
            }
        })
        .collect();
    LimboRun {
        file: path.to_owned(),
        testcases: file.cases.len(),
        bad: (file.cases.iter().filter_map(|c| c.as_ref().err()))
            .map(|b| (b.id.clone(), b.message.clone()))
            .collect(),
        expectations: expectations(file),
        wall_seconds,
        methods,
        repeats: timings.map(|t| t.repeats),
    }
}
