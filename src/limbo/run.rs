//! Runs methods over limbo testcases and writes their results in the limbo result format.
//!
//! Each testcase is evaluated by every method, in an order that rotates from one testcase to
//! the next (as `certbench verify` does), so that no method always runs first or after the
//! same neighbour. A testcase the method cannot express, or whose chain holds an algorithm
//! the method does not implement (`unsupported algorithm: ML-DSA-44`), is SKIPPED with the
//! reason its [`Capabilities`](certbench_core::verifier::Capabilities) give; a trust store it cannot build
//! is a FAILURE (no path can be built); a verifier that panics is a FAILURE with the panic
//! message (fail closed).

use certbench_schema::records::limbo::{ActualResult, Expectation, LimboResult, TestcaseResult};

use super::testcase::{Case, LimboFile};
use crate::run::schedule::steps;
use certbench_core::fail_closed;
use certbench_core::methods::{DynVerifier, Method};
use certbench_core::stages::Recorder;

/// The `harness` name certbench writes for `method`, naming the library and its version,
/// e.g. `certbench-rustlsserial (rustls-webpki 0.103.17)`.
pub fn harness_name(method: Method, verifier: &dyn DynVerifier) -> String {
    format!("certbench-{} ({})", method, verifier.library())
}

/// One method's results on a file.
#[derive(Clone, Debug)]
pub struct MethodRun {
    /// The method.
    pub method: Method,
    /// Its results, one per testcase, in file order.
    pub result: LimboResult,
    /// Nanoseconds spent in `verify` calls (trust-store building excluded), summed.
    pub verify_ns: u64,
    /// Testcases that ran (not skipped).
    pub ran: usize,
    /// Nanoseconds of each testcase's one `verify` call, in file order (`None`: skipped).
    pub times: Vec<Option<u64>>,
}

/// Evaluates one testcase with one method: the verdict, its context, and the nanoseconds
/// the verification took (`None` when skipped).
pub fn evaluate(
    verifier: &dyn DynVerifier,
    case: &Case,
) -> (ActualResult, Option<String>, Option<u64>) {
    if let Some(why) = &case.unsupported {
        return (ActualResult::Skipped, Some(why.clone()), None);
    }
    let target = case.target();
    if let Some(why) = verifier.capabilities().missing(&target) {
        let lib = verifier.library();
        return (
            ActualResult::Skipped,
            Some(format!("{} {why}", lib.name)),
            None,
        );
    }
    if let Some(unsupported) = verifier.capabilities().unsupported(&case.chain) {
        let lib = verifier.library();
        return (
            ActualResult::Skipped,
            Some(format!("{}: {unsupported}", lib.name)),
            None,
        );
    }
    let roots = match fail_closed::run(|| verifier.build_roots(&case.roots)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            return (
                ActualResult::Failure,
                Some(format!("trust anchors: {e}")),
                Some(0),
            );
        }
        Err(panic) => return (ActualResult::Failure, Some(panic.reason), Some(0)),
    };
    let mut rec = Recorder::new();
    let span = rec.start();
    // Fail closed: a panicking verifier has rejected the testcase.
    let verdict = fail_closed::verify(|| verifier.verify(&roots, &case.chain, target, &mut rec));
    let ns = span.elapsed_ns();
    match verdict {
        Ok(()) => (ActualResult::Success, None, Some(ns)),
        Err(r) => (ActualResult::Failure, Some(r.reason), Some(ns)),
    }
}

/// Runs `methods` over every testcase of `file`, calling `progress` after each testcase.
/// A testcase that could not be read is SKIPPED by every method with the reason.
pub fn run(file: &LimboFile, methods: &[Method], mut progress: impl FnMut()) -> Vec<MethodRun> {
    let verifiers: Vec<Box<dyn DynVerifier>> = methods.iter().map(|m| m.verifier()).collect();
    let mut runs: Vec<MethodRun> = methods
        .iter()
        .zip(&verifiers)
        .map(|(&method, v)| MethodRun {
            method,
            result: LimboResult {
                version: 1,
                harness: harness_name(method, v.as_ref()),
                results: Vec::with_capacity(file.cases.len()),
            },
            verify_ns: 0,
            ran: 0,
            times: Vec::with_capacity(file.cases.len()),
        })
        .collect();
    // One measured run, no warm-up: testcase i takes row i of the square.
    let step = (steps(methods.len(), 0, 1).next()).expect("one run");
    for (i, case) in file.cases.iter().enumerate() {
        // Every method writes its result for testcase i before any moves on to i + 1.
        let mut slots: Vec<Option<TestcaseResult>> = vec![None; methods.len()];
        for k in step.order(i) {
            let (id, actual, context, ns) = match case {
                Ok(case) => {
                    let (a, c, ns) = evaluate(verifiers[k].as_ref(), case);
                    (case.id.clone(), a, c, ns)
                }
                Err(bad) => (
                    bad.id.clone(),
                    ActualResult::Skipped,
                    Some(format!("bad testcase: {}", bad.message)),
                    None,
                ),
            };
            if let Some(ns) = ns {
                runs[k].verify_ns += ns;
                runs[k].ran += 1;
            }
            runs[k].times.push(ns);
            slots[k] = Some(TestcaseResult {
                id,
                actual_result: actual,
                context,
            });
        }
        for (run, slot) in runs.iter_mut().zip(slots) {
            run.result.results.extend(slot);
        }
        progress();
    }
    runs
}

/// The expectations of the testcases that could be read.
pub fn expectations(file: &LimboFile) -> Vec<Expectation> {
    file.cases
        .iter()
        .flatten()
        .map(|c| Expectation {
            id: c.id.clone(),
            success: c.expected_success,
        })
        .collect()
}

pub use certbench_schema::records::limbo::SlowCase;

/// `run`'s `top` slowest testcases, timed again: a single call is noisy (a page fault, a
/// context switch can make a 20 µs testcase look like a slow one), so the `2 × top` slowest
/// single calls are each verified `repeats` more times, and ranked by the median of those.
pub fn slowest(file: &LimboFile, run: &MethodRun, top: usize, repeats: usize) -> Vec<SlowCase> {
    let verifier = run.method.verifier();
    let mut timed: Vec<(usize, u64)> = run
        .times
        .iter()
        .enumerate()
        .filter_map(|(i, t)| t.map(|t| (i, t)))
        .collect();
    timed.sort_by_key(|t| std::cmp::Reverse(t.1));
    timed.truncate(2 * top);
    let mut out: Vec<SlowCase> = timed
        .into_iter()
        .filter_map(|(index, first_ns)| {
            let case = file.cases.get(index)?.as_ref().ok()?;
            let mut again_ns: Vec<u64> = (0..repeats)
                .filter_map(|_| evaluate(verifier.as_ref(), case).2)
                .collect();
            again_ns.sort_unstable();
            Some(SlowCase {
                index,
                id: case.id.clone(),
                first_ns,
                again_ns,
                actual: run.result.results.get(index)?.actual_result,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.median_ns()
            .cmp(&a.median_ns())
            .then(a.index.cmp(&b.index))
    });
    out.truncate(top);
    out
}
