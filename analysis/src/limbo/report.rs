//! `certbench limbo`'s summary document: what a run over a limbo file found (the tallies, the
//! verdicts that differ between methods and from each library's upstream harness, each
//! method's slowest testcases); `export::markdown::limbo` and `export::json::limbo` write it.
//!
//! The methods are named by their display names here; which upstream harness belongs to which
//! method is given as data ([`Harness`]) by the caller.

pub use certbench_schema::records::limbo::SlowCase;

use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;

use certbench_schema::records::limbo::LimboRun;

use super::{Agreement, LimboResult, Summary};

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
/// The report of what `run` measured, with the `upstream` results when a folder of them was
/// given (each kept to the file's testcases); `compare`: every pair of methods; `show`:
/// differing testcases listed per pair in markdown. `note` gets, in order, the methods without
/// an upstream result (when a folder was given).
pub fn gather(
    run: &LimboRun,
    upstream: Option<Vec<LimboResult>>,
    compare: bool,
    show: usize,
    mut note: impl FnMut(&str),
) -> LimboReport {
    let given = upstream.is_some();
    // Upstream results cover the whole corpus: keep the testcases of this file.
    let ids: HashSet<&str> = run.expectations.iter().map(|e| e.id.as_str()).collect();
    let upstream: Vec<LimboResult> = (upstream.unwrap_or_default().into_iter())
        .map(|mut u| {
            u.results.retain(|r| ids.contains(r.id.as_str()));
            u
        })
        .collect();
    let summaries: Vec<Summary> = (run.methods.iter().map(|m| &m.result))
        .chain(&upstream)
        .map(|r| Summary::of(r, &run.expectations))
        .collect();
    let pairs = compare.then(|| {
        let mut pairs = Vec::new();
        for (i, a) in run.methods.iter().enumerate() {
            for b in &run.methods[i + 1..] {
                pairs.push(Agreement::of(&a.result, &b.result));
            }
        }
        pairs
    });
    let harnesses: Vec<Harness<'_>> = (run.methods.iter())
        .map(|m| Harness {
            method: m.method.clone(),
            library: &m.library,
            prefix: m.harness_prefix.as_deref(),
            result: &m.result,
        })
        .collect();
    let mut vs_upstream = Vec::new();
    for paired in pair_upstream(&harnesses, &upstream) {
        match paired {
            Ok(agreement) => vs_upstream.push(agreement),
            Err(unpaired) if given => note(&unpaired.to_string()),
            Err(_) => {}
        }
    }
    let slowest = run.repeats.map(|repeats| Slowest {
        repeats,
        methods: (run.methods.iter())
            .map(|m| (m.method.clone(), m.slowest.clone()))
            .collect(),
    });
    LimboReport {
        file: run.file.clone(),
        testcases: run.testcases,
        bad: run.bad.clone(),
        wall_seconds: run.wall_seconds,
        verify: (run.methods.iter())
            .map(|m| VerifyTime {
                method: m.method.clone(),
                verify_ns: m.verify_ns,
                ran: m.ran,
            })
            .collect(),
        summaries,
        pairs,
        upstream: vs_upstream,
        slowest,
        show,
    }
}
