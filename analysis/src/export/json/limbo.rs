//! `certbench limbo`'s JSON summary: the file, its testcases, the time in verify calls, every
//! tally and every difference (none left out, unlike the markdown), the slowest testcases.

use std::path::PathBuf;

use serde::Serialize;

use crate::limbo::family;
use crate::limbo::report::LimboReport;
use crate::limbo::{Agreement, Summary};

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

/// The JSON summary (every difference listed), pretty-printed, with a final newline.
pub(crate) fn summary(r: &LimboReport) -> String {
    let slowest = (r.slowest.iter().flat_map(|s| &s.methods))
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
        file: &r.file,
        testcases: r.testcases,
        bad_testcases: (r.bad.iter())
            .map(|(id, message)| (id.as_str(), message.as_str()))
            .collect(),
        wall_seconds: r.wall_seconds,
        verify_seconds: (r.verify.iter())
            .map(|v| (v.method.clone(), v.verify_ns as f64 / 1e9))
            .collect(),
        summaries: &r.summaries,
        method_pairs: r.pairs.as_deref().unwrap_or_default(),
        upstream: &r.upstream,
        slowest,
    };
    serde_json::to_string_pretty(&doc).expect("summary serializes") + "\n"
}
