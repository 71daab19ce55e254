//! What a run of `certbench limbo` found, gathered into
//! `certbench_analysis::limbo::report::LimboReport` ([`report`]): the tallies against the
//! file's expectations, the methods compared pairwise (`--compare`) and with their libraries'
//! upstream harnesses, and each method's slowest testcases timed again (`--timings`).

use std::collections::HashSet;
use std::path::Path;

use certbench_analysis::limbo::report::{Harness, LimboReport, Slowest, VerifyTime};
use certbench_analysis::limbo::{Agreement, LimboResult, Summary};

use super::run::{MethodRun, expectations};
use super::testcase::LimboFile;

/// What the report holds beside the tallies.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// Compare every pair of methods.
    pub compare: bool,
    /// Differing testcases listed per pair in markdown.
    pub show: usize,
    /// Time each method's slowest testcases again.
    pub timings: Option<Timings>,
}

/// `--timings`: how many testcases per method, each verified again how many times.
#[derive(Clone, Copy, Debug)]
pub struct Timings {
    /// Testcases in each method's table.
    pub top: usize,
    /// Times each candidate is verified again.
    pub repeats: usize,
}

/// Gathers the report of `runs` over `file` (read from `path`, run in `wall_seconds`), with
/// the `upstream` results when a folder of them was given (each kept to this file's
/// testcases). `note` gets the notes for standard error, in order: the methods without an
/// upstream result (when a folder was given), then that the slowest testcases are timed
/// again (which it then does).
pub fn report(
    path: &Path,
    file: &LimboFile,
    runs: &[MethodRun],
    wall_seconds: f64,
    upstream: Option<Vec<LimboResult>>,
    opts: &ReportOptions,
    mut note: impl FnMut(&str),
) -> LimboReport {
    let given = upstream.is_some();
    // Upstream results cover the whole corpus: keep the testcases of this file.
    let ids: HashSet<&str> = file.cases.iter().flatten().map(|c| c.id.as_str()).collect();
    let upstream: Vec<LimboResult> = (upstream.unwrap_or_default().into_iter())
        .map(|mut u| {
            u.results.retain(|r| ids.contains(r.id.as_str()));
            u
        })
        .collect();
    let exp = expectations(file);
    let summaries: Vec<Summary> = (runs.iter().map(|r| &r.result))
        .chain(&upstream)
        .map(|r| Summary::of(r, &exp))
        .collect();
    let pairs = opts.compare.then(|| {
        let mut pairs = Vec::new();
        for (i, a) in runs.iter().enumerate() {
            for b in &runs[i + 1..] {
                pairs.push(Agreement::of(&a.result, &b.result));
            }
        }
        pairs
    });
    let mut vs_upstream = Vec::new();
    for paired in certbench_analysis::limbo::report::pair_upstream(&harnesses(runs), &upstream) {
        match paired {
            Ok(agreement) => vs_upstream.push(agreement),
            Err(unpaired) if given => note(&unpaired.to_string()),
            Err(_) => {}
        }
    }
    let slowest = opts.timings.map(|t| {
        note("certbench limbo: timing the slowest testcases again");
        Slowest {
            repeats: t.repeats,
            methods: (runs.iter())
                .map(|r| {
                    (
                        r.method.to_string(),
                        super::run::slowest(file, r, t.top, t.repeats),
                    )
                })
                .collect(),
        }
    });
    LimboReport {
        file: path.to_owned(),
        testcases: file.cases.len(),
        bad: (file.cases.iter().filter_map(|c| c.as_ref().err()))
            .map(|b| (b.id.clone(), b.message.clone()))
            .collect(),
        wall_seconds,
        verify: (runs.iter())
            .map(|r| VerifyTime {
                method: r.method.to_string(),
                verify_ns: r.verify_ns,
                ran: r.ran,
            })
            .collect(),
        summaries,
        pairs,
        upstream: vs_upstream,
        slowest,
        show: opts.show,
    }
}

/// Each run's method with its library's upstream harness.
fn harnesses(runs: &[MethodRun]) -> Vec<Harness<'_>> {
    runs.iter()
        .map(|r| {
            let lib = r.method.verifier().library();
            Harness {
                method: r.method.to_string(),
                library: lib.name,
                prefix: lib.limbo_harness,
                result: &r.result,
            }
        })
        .collect()
}
