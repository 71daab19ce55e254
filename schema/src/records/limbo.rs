//! x509-limbo's result format (`{version: 1, harness, results: [{id, actual_result,
//! context}]}`, as every upstream harness writes it; certbench's files add the header before
//! it), what a testcase expects, and a testcase timed again (`--timings`).

use serde::{Deserialize, Serialize};

use super::{Kind, Record};

/// A verdict in the limbo result format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ActualResult {
    /// The chain was accepted.
    Success,
    /// The chain was rejected.
    Failure,
    /// The harness did not evaluate the testcase (the context says why).
    Skipped,
}

impl ActualResult {
    /// `SUCCESS`, `FAILURE` or `SKIPPED`.
    pub fn as_str(self) -> &'static str {
        match self {
            ActualResult::Success => "SUCCESS",
            ActualResult::Failure => "FAILURE",
            ActualResult::Skipped => "SKIPPED",
        }
    }
}

/// One testcase's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestcaseResult {
    /// The testcase id (`family::name`).
    pub id: String,
    /// What the harness concluded.
    pub actual_result: ActualResult,
    /// Why (a rejection reason, a skip reason), or null.
    #[serde(default)]
    pub context: Option<String>,
}

/// A harness's results on a limbo file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimboResult {
    /// Format version: 1.
    pub version: u32,
    /// Harness name, e.g. `openssl-3.0.19`, `rustls-webpki`, `certbench-rustlsserial`.
    pub harness: String,
    /// One result per testcase evaluated.
    pub results: Vec<TestcaseResult>,
}

/// What a testcase expects: the part of a testcase the tally needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// The testcase id.
    pub id: String,
    /// `true` if the chain must be accepted.
    pub success: bool,
}

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
        // `again_ns` is sorted; a mean of two middle values truncates to whole nanoseconds.
        let (v, n) = (&self.again_ns, self.again_ns.len());
        match n {
            0 => self.first_ns,
            n if n % 2 == 1 => v[n / 2],
            n => ((v[n / 2 - 1] as f64 + v[n / 2] as f64) / 2.0) as u64,
        }
    }
}

impl Record for LimboResult {
    const KIND: Kind = Kind::Limbo;
}

/// What one `certbench limbo` run measured, for the analysis to tally: the file, each
/// method's results and times, and (`--timings`) each method's slowest testcases timed again.
#[derive(Clone, Debug)]
pub struct LimboRun {
    /// The limbo file, as given.
    pub file: std::path::PathBuf,
    /// Its testcases, read or not.
    pub testcases: usize,
    /// The testcases that could not be read: (id, what is wrong).
    pub bad: Vec<(String, String)>,
    /// What each testcase that could be read expects, in file order.
    pub expectations: Vec<Expectation>,
    /// Seconds the run took.
    pub wall_seconds: f64,
    /// Each method's results, in run order.
    pub methods: Vec<MethodResults>,
    /// `--timings`: the calls made again per slow testcase.
    pub repeats: Option<usize>,
}

/// One method's results in a [`LimboRun`].
#[derive(Clone, Debug)]
pub struct MethodResults {
    /// The method.
    pub method: String,
    /// Its library's name.
    pub library: String,
    /// The prefix of its library's upstream harness names (`None`: there is no such harness).
    pub harness_prefix: Option<String>,
    /// Its results, one per testcase, in file order.
    pub result: LimboResult,
    /// Nanoseconds spent in `verify` calls (trust-store building excluded), summed.
    pub verify_ns: u64,
    /// Testcases that ran (not skipped).
    pub ran: usize,
    /// `--timings`: its slowest testcases, slowest first (empty without).
    pub slowest: Vec<SlowCase>,
}
