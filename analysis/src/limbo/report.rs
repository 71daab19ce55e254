//! `certbench limbo`'s summary document: what a run over a limbo file found (the tallies, the
//! verdicts that differ between methods and from each library's upstream harness, each
//! method's slowest testcases), in markdown ([`LimboReport::markdown`]) or JSON
//! ([`LimboReport::json`], which lists every difference).
//!
//! The methods are named by their display names here; which upstream harness belongs to which
//! method is given as data ([`Harness`]) by the caller.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use super::{ActualResult, Agreement, LimboResult, Summary, family};
use super::{render_agreements, render_summaries};
use crate::export::markdown::table::plain_table;
use crate::units::human;

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
        match self.again_ns.len() {
            0 => self.first_ns,
            n if n % 2 == 1 => self.again_ns[n / 2],
            n => (self.again_ns[n / 2 - 1] + self.again_ns[n / 2]) / 2,
        }
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

/// The JSON summary's document (field order is the file's).
#[derive(Serialize)]
struct JsonSummary<'a> {
    file: &'a PathBuf,
    testcases: usize,
    bad_testcases: Vec<(&'a str, &'a str)>,
    wall_seconds: f64,
    verify_seconds: Vec<(String, f64)>,
    summaries: &'a [Summary],
    method_pairs: &'a [Agreement],
    upstream: &'a [Agreement],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    slowest: Vec<JsonSlow>,
}

/// One of a method's slowest testcases, in the JSON summary.
#[derive(Serialize)]
struct JsonSlow {
    method: String,
    rank: usize,
    id: String,
    family: String,
    median_ns: u64,
    again_ns: Vec<u64>,
    first_ns: u64,
    actual_result: &'static str,
}

impl LimboReport {
    /// The JSON summary (every difference listed), pretty-printed, with a final newline.
    pub fn json(&self) -> String {
        let slowest = (self.slowest.iter().flat_map(|s| &s.methods))
            .flat_map(|(m, cases)| {
                cases.iter().enumerate().map(move |(i, c)| JsonSlow {
                    method: m.clone(),
                    rank: i + 1,
                    id: c.id.clone(),
                    family: family(&c.id).to_owned(),
                    median_ns: c.median_ns(),
                    again_ns: c.again_ns.clone(),
                    first_ns: c.first_ns,
                    actual_result: c.actual.as_str(),
                })
            })
            .collect();
        let doc = JsonSummary {
            file: &self.file,
            testcases: self.testcases,
            bad_testcases: (self.bad.iter())
                .map(|(id, message)| (id.as_str(), message.as_str()))
                .collect(),
            wall_seconds: self.wall_seconds,
            verify_seconds: (self.verify.iter())
                .map(|v| (v.method.clone(), v.verify_ns as f64 / 1e9))
                .collect(),
            summaries: &self.summaries,
            method_pairs: self.pairs.as_deref().unwrap_or_default(),
            upstream: &self.upstream,
            slowest,
        };
        serde_json::to_string_pretty(&doc).expect("summary serializes") + "\n"
    }

    /// The markdown summary: the tallies, the time in verify calls, the differing verdicts
    /// (at most [`LimboReport::show`] per pair), the slowest testcases.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "## x509-limbo: {} ({} testcases)\n\n",
            self.file.display(),
            self.testcases
        );
        out.push_str(&render_summaries(&self.summaries));
        out.push_str(&format!(
            "\nWall time {:.1} s; in verify calls: {}.\n",
            self.wall_seconds,
            (self.verify.iter())
                .map(|v| format!(
                    "{} {:.2} s over {} testcases",
                    v.method,
                    v.verify_ns as f64 / 1e9,
                    v.ran
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if !self.bad.is_empty() {
            out.push_str(&format!(
                "\n{} testcase(s) could not be read (SKIPPED by every method; see standard error).\n",
                self.bad.len()
            ));
        }
        if let Some(pairs) = &self.pairs {
            out.push_str("\n### Verdicts that differ between methods\n\n");
            out.push_str(&render_agreements(pairs, self.show));
        }
        if !self.upstream.is_empty() {
            out.push_str("\n### Verdicts that differ from the upstream harness\n\n");
            out.push_str(&render_agreements(&self.upstream, self.show));
        }
        if let Some(slowest) = &self.slowest {
            out.push_str(&render_slowest(&slowest.methods, slowest.repeats));
        }
        out
    }
}

/// Markdown: per method, its slowest testcases (median of `repeats` calls made again).
pub fn render_slowest(slow: &[(String, Vec<SlowCase>)], repeats: usize) -> String {
    let mut out = format!(
        "\n### Slowest testcases per method (verify call; median of {repeats} calls made again, min–max)\n"
    );
    for (method, cases) in slow {
        out.push_str(&format!("\n#### {method}\n\n"));
        if cases.is_empty() {
            out.push_str("No testcase ran.\n");
            continue;
        }
        let rows = cases.iter().enumerate().map(slow_row).collect();
        out.push_str(&plain_table(
            &[
                "#",
                "testcase",
                "family",
                "median",
                "min–max",
                "first call",
                "verdict",
            ],
            rows,
            3,
        ));
        out.push('\n');
    }
    out
}

/// The row of the `i`th slowest testcase.
fn slow_row((i, c): (usize, &SlowCase)) -> Vec<String> {
    vec![
        (i + 1).to_string(),
        c.id.clone(),
        family(&c.id).to_owned(),
        human(c.median_ns() as f64),
        match (c.again_ns.first(), c.again_ns.last()) {
            (Some(lo), Some(hi)) => format!("{}–{}", human(*lo as f64), human(*hi as f64)),
            _ => "—".to_owned(),
        },
        human(c.first_ns as f64),
        c.actual.as_str().to_owned(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slowest_testcases_per_method() {
        let case = |index, id: &str, again_ns: Vec<u64>| SlowCase {
            index,
            id: id.into(),
            first_ns: 900_000,
            again_ns,
            actual: ActualResult::Failure,
        };
        let slow = [
            (
                "rustlsserial".to_owned(),
                vec![
                    case(3, "rfc5280::long-chain", vec![100_000, 200_000, 400_000]),
                    case(7, "webpki::no-repeat", Vec::new()),
                ],
            ),
            ("openssl".to_owned(), Vec::new()),
        ];
        assert_eq!(slow[0].1[0].median_ns(), 200_000);
        assert_eq!(slow[0].1[1].median_ns(), 900_000);
        crate::export::golden::check("limbo-slowest.md", &render_slowest(&slow, 3));
    }
}
