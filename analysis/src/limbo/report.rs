//! `certbench limbo`'s summary document: what a run over a limbo file found (the tallies, the
//! verdicts that differ between methods and from each library's upstream harness, each
//! method's slowest testcases); `export::markdown::limbo` and `export::json::limbo` write it.
//!
//! The methods are named by their display names here; which upstream harness belongs to which
//! method is given as data ([`Harness`]) by the caller.

use std::fmt;
use std::path::PathBuf;

use super::{ActualResult, Agreement, LimboResult, Summary};
use crate::stats::Spread;

/// One of a method's slowest testcases, timed again.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowCase {
    /// Index of the testcase in the file.
    pub index: usize,
    /// Testcase id.
    pub id: String,
    /// The time of the run's one `verify` call, nanoseconds.
    pub first_ns: u64,
    /// The times of the `repeats` calls made again, nanoseconds, sorted.
    pub again_ns: Vec<u64>,
    /// The verdict.
    pub actual: ActualResult,
}

impl SlowCase {
    /// The median of the calls made again (the first call when none was).
    pub fn median_ns(&self) -> u64 {
        // A mean of two middle values truncates to whole nanoseconds.
        Spread::median_of(self.again_ns.iter().map(|&ns| ns as f64))
            .map_or(self.first_ns, |m| m as u64)
    }
}

/// A method's results with the upstream harness its library's results are named by.
pub struct Harness<'a> {
    /// The method's name.
    pub method: String,
    /// Its library's name.
    pub library: &'a str,
    /// The prefix of its library's upstream harness names (`None`: there is no such harness).
    pub prefix: Option<&'a str>,
    /// Its results.
    pub result: &'a LimboResult,
}

/// A method for which no upstream result was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unpaired {
    /// No given result is its library's harness (named `prefix*`).
    NoResult {
        /// The method.
        method: String,
        /// The harness names' prefix.
        prefix: String,
    },
    /// Its library has no upstream harness.
    NoHarness {
        /// The method.
        method: String,
        /// The library.
        library: String,
    },
}

impl fmt::Display for Unpaired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unpaired::NoResult { method, prefix } => write!(
                f,
                "certbench limbo: no upstream result for {method} (harness `{prefix}*`)"
            ),
            Unpaired::NoHarness { method, library } => write!(
                f,
                "certbench limbo: {method} ({library}) has no upstream harness"
            ),
        }
    }
}

/// Each method against the first `upstream` result of its library's harness, in `methods`
/// order: the agreements, and the methods that had none (`Err`), in the same order.
pub fn pair_upstream(
    methods: &[Harness<'_>],
    upstream: &[LimboResult],
) -> Vec<Result<Agreement, Unpaired>> {
    let pair = |m: &Harness<'_>| {
        let found = (upstream.iter()).find(|u| m.prefix.is_some_and(|h| u.harness.starts_with(h)));
        match (found, m.prefix) {
            (Some(u), _) => Ok(Agreement::of(m.result, u)),
            (None, Some(h)) => Err(Unpaired::NoResult {
                method: m.method.clone(),
                prefix: h.to_owned(),
            }),
            (None, None) => Err(Unpaired::NoHarness {
                method: m.method.clone(),
                library: m.library.to_owned(),
            }),
        }
    };
    methods.iter().map(pair).collect()
}

/// Time a method spent in `verify` calls.
#[derive(Clone, Debug)]
pub struct VerifyTime {
    /// The method.
    pub method: String,
    /// Nanoseconds in `verify` calls, summed.
    pub verify_ns: u64,
    /// Testcases that ran (not skipped).
    pub ran: usize,
}

/// Each method's slowest testcases (`--timings`).
#[derive(Clone, Debug)]
pub struct Slowest {
    /// The calls made again per testcase.
    pub repeats: usize,
    /// Per method, its slowest testcases, slowest first.
    pub methods: Vec<(String, Vec<SlowCase>)>,
}

/// What a run of `certbench limbo` found.
#[derive(Clone, Debug)]
pub struct LimboReport {
    /// The limbo file, as given.
    pub file: PathBuf,
    /// Its testcases, read or not.
    pub testcases: usize,
    /// The testcases that could not be read: (id, what is wrong).
    pub bad: Vec<(String, String)>,
    /// Seconds the run took.
    pub wall_seconds: f64,
    /// Each method's time in `verify` calls, in run order.
    pub verify: Vec<VerifyTime>,
    /// Each method's tally, then each upstream harness's.
    pub summaries: Vec<Summary>,
    /// Every pair of methods (`Some` with `--compare`).
    pub pairs: Option<Vec<Agreement>>,
    /// Each method against its library's upstream harness.
    pub upstream: Vec<Agreement>,
    /// Each method's slowest testcases (`--timings`).
    pub slowest: Option<Slowest>,
    /// Differing testcases listed per pair in markdown.
    pub show: usize,
}
