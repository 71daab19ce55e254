//! x509-limbo results: the result format (`{version: 1, harness, results: [{id,
//! actual_result, context}]}`, as every upstream harness writes it), the tally against the
//! testcases' expectations (ran, pass, false accept, false reject, skipped — per harness and
//! per testcase family), and where two result sets disagree.
//!
//! Nothing here runs a verifier: results come from `certbench limbo` or from an upstream
//! harness's file, and are compared the same way.

pub use certbench_schema::records::limbo::{
    ActualResult, Expectation, LimboResult, TestcaseResult,
};

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

pub mod report;

/// The family of a testcase: its id up to the first `::` (`bettertls`, `rfc5280`, `webpki`,
/// `pathlen`, `crl`, `online`, …).
pub fn family(id: &str) -> &str {
    id.split("::").next().unwrap_or(id)
}

/// Counts of one harness's results against the expectations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Testcases evaluated (not skipped).
    pub ran: usize,
    /// Evaluated with the expected verdict.
    pub pass: usize,
    /// Accepted though the testcase expects a rejection.
    pub false_accept: usize,
    /// Rejected though the testcase expects an acceptance.
    pub false_reject: usize,
    /// Not evaluated.
    pub skipped: usize,
    /// Results whose id is not among the testcases (not counted above).
    pub unknown: usize,
}

impl Tally {
    fn add(&mut self, expected: Option<bool>, actual: ActualResult) {
        match (expected, actual) {
            (None, _) => self.unknown += 1,
            (Some(_), ActualResult::Skipped) => self.skipped += 1,
            (Some(e), a) => {
                self.ran += 1;
                let accepted = a == ActualResult::Success;
                match (e, accepted) {
                    (true, true) | (false, false) => self.pass += 1,
                    (false, true) => self.false_accept += 1,
                    (true, false) => self.false_reject += 1,
                }
            }
        }
    }
}

/// A harness's tally, overall and per family.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The harness.
    pub harness: String,
    /// Over every testcase.
    pub total: Tally,
    /// Per family, in name order.
    pub families: BTreeMap<String, Tally>,
}

impl Summary {
    /// Tallies `result` against `expectations`.
    pub fn of(result: &LimboResult, expectations: &[Expectation]) -> Summary {
        let expected: HashMap<&str, bool> = expectations
            .iter()
            .map(|e| (e.id.as_str(), e.success))
            .collect();
        let mut total = Tally::default();
        let mut families: BTreeMap<String, Tally> = BTreeMap::new();
        for r in &result.results {
            let e = expected.get(r.id.as_str()).copied();
            total.add(e, r.actual_result);
            families
                .entry(family(&r.id).to_owned())
                .or_default()
                .add(e, r.actual_result);
        }
        Summary {
            harness: result.harness.clone(),
            total,
            families,
        }
    }
}

/// A testcase on which two result sets give different verdicts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The testcase id.
    pub id: String,
    /// The first set's verdict and context.
    pub a: (ActualResult, Option<String>),
    /// The second set's verdict and context.
    pub b: (ActualResult, Option<String>),
}

/// Agreement of two result sets on the testcases both evaluated.
#[derive(Clone, Debug, Serialize)]
pub struct Agreement {
    /// The first harness.
    pub a: String,
    /// The second harness.
    pub b: String,
    /// Testcases both evaluated (neither skipped).
    pub both_ran: usize,
    /// Those with different verdicts, in the first set's order.
    pub differences: Vec<Difference>,
}

impl Agreement {
    /// Compares `a` with `b`, testcase by testcase (matched by id).
    pub fn of(a: &LimboResult, b: &LimboResult) -> Agreement {
        let by_id: HashMap<&str, &TestcaseResult> =
            b.results.iter().map(|r| (r.id.as_str(), r)).collect();
        let mut both_ran = 0;
        let mut differences = Vec::new();
        for ra in &a.results {
            let Some(rb) = by_id.get(ra.id.as_str()) else {
                continue;
            };
            if ra.actual_result == ActualResult::Skipped
                || rb.actual_result == ActualResult::Skipped
            {
                continue;
            }
            both_ran += 1;
            if ra.actual_result != rb.actual_result {
                differences.push(Difference {
                    id: ra.id.clone(),
                    a: (ra.actual_result, ra.context.clone()),
                    b: (rb.actual_result, rb.context.clone()),
                });
            }
        }
        Agreement {
            a: a.harness.clone(),
            b: b.harness.clone(),
            both_ran,
            differences,
        }
    }

    /// Differences per family, in name order.
    pub fn by_family(&self) -> BTreeMap<&str, usize> {
        let mut m = BTreeMap::new();
        for d in &self.differences {
            *m.entry(family(&d.id)).or_insert(0) += 1;
        }
        m
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn r(id: &str, a: ActualResult) -> TestcaseResult {
        TestcaseResult {
            id: id.into(),
            actual_result: a,
            context: None,
        }
    }

    fn e(id: &str, success: bool) -> Expectation {
        Expectation {
            id: id.into(),
            success,
        }
    }

    /// Harness `h` over five testcases of two families (and one result of no testcase).
    pub(crate) fn summary() -> Summary {
        use ActualResult::*;
        let exp = [
            e("rfc5280::a", true),
            e("rfc5280::b", false),
            e("rfc5280::c", false),
            e("webpki::d", true),
            e("webpki::e", true),
        ];
        let res = LimboResult {
            version: 1,
            harness: "h".into(),
            results: vec![
                r("rfc5280::a", Success),
                r("rfc5280::b", Success),
                r("rfc5280::c", Failure),
                r("webpki::d", Failure),
                r("webpki::e", Skipped),
                r("nowhere::f", Success),
            ],
        };
        Summary::of(&res, &exp)
    }

    #[test]
    fn tally_counts_each_outcome_once_per_family() {
        let s = summary();
        assert_eq!(
            s.total,
            Tally {
                ran: 4,
                pass: 2,
                false_accept: 1,
                false_reject: 1,
                skipped: 1,
                unknown: 1
            }
        );
        assert_eq!(s.families["rfc5280"].pass, 2);
        assert_eq!(s.families["rfc5280"].false_accept, 1);
        assert_eq!(s.families["webpki"].false_reject, 1);
        assert_eq!(s.families["webpki"].skipped, 1);
    }

    /// Harnesses `a` and `b`: one testcase differs, one both ran alike, one `a` skipped.
    pub(crate) fn agreement() -> Agreement {
        use ActualResult::*;
        let a = LimboResult {
            version: 1,
            harness: "a".into(),
            results: vec![r("x::1", Success), r("x::2", Failure), r("y::3", Skipped)],
        };
        let b = LimboResult {
            version: 1,
            harness: "b".into(),
            results: vec![r("x::1", Failure), r("x::2", Failure), r("y::3", Success)],
        };
        Agreement::of(&a, &b)
    }

    #[test]
    fn agreement_ignores_skips_and_lists_differences() {
        let ag = agreement();
        assert_eq!(ag.both_ran, 2);
        assert_eq!(ag.differences.len(), 1);
        assert_eq!(ag.differences[0].id, "x::1");
        assert_eq!(ag.by_family()["x"], 1);
    }

    #[test]
    fn the_result_format_round_trips_as_upstream_writes_it() {
        let text = r#"{"version":1,"harness":"openssl-3.0.19","results":[
            {"id":"a::b","actual_result":"SUCCESS","context":null},
            {"id":"a::c","actual_result":"SKIPPED","context":"why"}]}"#;
        let r: LimboResult = serde_json::from_str(text).unwrap();
        assert_eq!(r.results[1].actual_result, ActualResult::Skipped);
        let back: LimboResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }
}
