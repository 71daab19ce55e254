//! The stage recorder: what a timed stage costs to record must be negligible against the
//! microseconds being measured.
//!
//! Invariants: times come from [`std::time::Instant`] (the monotonic clock,
//! `CLOCK_MONOTONIC` on Linux); recording a stage writes into a fixed array and never
//! allocates; a stage recorded twice in one sample accumulates. Nested stages are timed
//! inside their parent's span, so a parent is never shorter than the sum of its children.

use std::collections::BTreeMap;
use std::time::Instant;

use certbench_schema::{CtOutcome, EvOutcome, RevocationOutcome, Stage};

/// A started stage; hand it back to [`Recorder::stop`].
#[derive(Clone, Copy, Debug)]
#[must_use = "a span measures nothing until it is stopped"]
pub struct Span(Instant);

impl Span {
    /// Nanoseconds since the span started (the span goes on).
    #[inline]
    pub fn elapsed_ns(&self) -> u64 {
        self.0.elapsed().as_nanos() as u64
    }
}

/// Nanoseconds per stage for one sample, and what a stage found that the sample reports
/// beside its times (the EV attempt's outcome).
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    ns: [u64; Stage::COUNT],
    recorded: u32,
    ev: Option<EvOutcome>,
    ct: Option<CtOutcome>,
    revocation: Option<RevocationOutcome>,
}

const _: () = assert!(Stage::COUNT <= 32, "`recorded` is a 32-bit set");

impl Recorder {
    /// An empty recorder.
    pub fn new() -> Recorder {
        Recorder::default()
    }

    /// Starts timing now.
    #[inline]
    pub fn start(&self) -> Span {
        Span(Instant::now())
    }

    /// Stops `span`, adds its duration to `stage`, and returns the nanoseconds added.
    #[inline]
    pub fn stop(&mut self, stage: Stage, span: Span) -> u64 {
        let ns = span.0.elapsed().as_nanos() as u64;
        self.add(stage, ns);
        ns
    }

    /// Adds `ns` to `stage` (used for a cached stage, recorded as 0).
    #[inline]
    pub fn add(&mut self, stage: Stage, ns: u64) {
        let i = stage.index();
        self.ns[i] += ns;
        self.recorded |= 1 << i;
    }

    /// Times `f` as `stage`.
    #[inline]
    pub fn time<R>(&mut self, stage: Stage, f: impl FnOnce() -> R) -> R {
        let span = self.start();
        let r = f();
        self.stop(stage, span);
        r
    }

    /// The nanoseconds recorded for `stage`, if it was recorded.
    pub fn get(&self, stage: Stage) -> Option<u64> {
        let i = stage.index();
        (self.recorded & (1 << i) != 0).then_some(self.ns[i])
    }

    /// Notes the outcome of the browser's EV attempt (`ev-attempt`), for the sample's `ev`.
    #[inline]
    pub fn note_ev(&mut self, outcome: EvOutcome) {
        self.ev = Some(outcome);
    }

    /// The EV attempt's outcome, if one was made.
    pub fn ev(&self) -> Option<EvOutcome> {
        self.ev
    }

    /// Notes what the CT check (`ct`) found.
    #[inline]
    pub fn note_ct(&mut self, outcome: CtOutcome) {
        self.ct = Some(outcome);
    }

    /// What the CT check found, if one was made.
    pub fn ct(&self) -> Option<CtOutcome> {
        self.ct
    }

    /// Notes what the revocation check (`revocation`) found.
    #[inline]
    pub fn note_revocation(&mut self, outcome: RevocationOutcome) {
        self.revocation = Some(outcome);
    }

    /// What the revocation check found, if one was made.
    pub fn revocation(&self) -> Option<&RevocationOutcome> {
        self.revocation.as_ref()
    }

    /// The recorded stages, for a [`certbench_schema::Sample`] (allocates: call after timing).
    pub fn to_map(&self) -> BTreeMap<Stage, u64> {
        Stage::ALL
            .iter()
            .filter_map(|&s| self.get(s).map(|ns| (s, ns)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_only_what_was_timed_and_nests() {
        let mut rec = Recorder::new();
        let outer = rec.start();
        let v = rec.time(Stage::Verify, || (0..1000u64).sum::<u64>());
        rec.add(Stage::RootsCreation, 0);
        rec.stop(Stage::TotalVerification, outer);
        assert_eq!(v, 499_500);
        let map = rec.to_map();
        assert_eq!(map.len(), 3);
        assert_eq!(map[&Stage::RootsCreation], 0);
        assert!(map[&Stage::Verify] > 0);
        assert!(map[&Stage::Verify] <= map[&Stage::TotalVerification]);
        assert_eq!(rec.get(Stage::Connection), None);
    }

    #[test]
    fn accumulates() {
        let mut rec = Recorder::new();
        rec.add(Stage::Verify, 5);
        rec.add(Stage::Verify, 7);
        assert_eq!(rec.get(Stage::Verify), Some(12));
    }
}
