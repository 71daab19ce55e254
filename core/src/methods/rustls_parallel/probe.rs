//! What tests and the fuzz target see of `rustlsparallel`: which path its verifications took,
//! and a switch that forces the overlapped one.
//!
//! Nothing here changes a verdict. The counters cost an ordinary timed call one relaxed
//! atomic add when a verification overlaps (and nothing else): the per-thread path counts are
//! kept only while the overlapped path is forced.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static OVERLAPPED: AtomicU64 = AtomicU64::new(0);
static FORCE_OVERLAP: AtomicBool = AtomicBool::new(false);

/// Which path this thread's `rustlsparallel` verifications took (see [`paths_on_this_thread`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paths {
    /// Verifications that reached path building (the end-entity certificate parsed).
    pub walked: u64,
    /// Of those, the ones whose candidate checks ran on the pool (the overlapped path).
    pub overlapped: u64,
    /// Of those, the ones with more candidate checks than [`super::MAX_PRECHECKS`] (webpki's
    /// own walk).
    pub too_many: u64,
}

impl Paths {
    pub(super) fn walked(self) -> Paths {
        Paths {
            walked: self.walked + 1,
            ..self
        }
    }
    pub(super) fn overlapped(self) -> Paths {
        Paths {
            overlapped: self.overlapped + 1,
            ..self
        }
    }
    pub(super) fn too_many(self) -> Paths {
        Paths {
            too_many: self.too_many + 1,
            ..self
        }
    }

    /// What happened between `before` and `self`.
    pub fn since(self, before: Paths) -> Paths {
        Paths {
            walked: self.walked - before.walked,
            overlapped: self.overlapped - before.overlapped,
            too_many: self.too_many - before.too_many,
        }
    }
}

thread_local! {
    static HERE: Cell<Paths> = const { Cell::new(Paths { walked: 0, overlapped: 0, too_many: 0 }) };
}

/// The paths this thread's verifications took so far, counted while the overlapped path is
/// forced ([`force_overlap`]): lets a test that runs beside others see exactly which path its
/// own verifications ran.
pub fn paths_on_this_thread() -> Paths {
    HERE.with(|h| h.get())
}

/// Forces (or stops forcing) the overlapped path in this process: every verification whose
/// candidate checks fit ([`super::MAX_PRECHECKS`]) hands them to the pool, whether or not
/// overlapping would pay, and even on a pool without workers (the caller then makes every
/// check itself). For tests and the fuzz target, so that "parallel ≡ serial" compares the
/// parallel path and not webpki's serial walk that `rustlsparallel` takes when overlap cannot
/// pay. It changes which path runs, never a verdict.
pub fn force_overlap(on: bool) {
    FORCE_OVERLAP.store(on, Ordering::Relaxed);
}

/// Whether [`force_overlap`] is on.
pub(super) fn forced() -> bool {
    FORCE_OVERLAP.load(Ordering::Relaxed)
}

/// Counts one step of this thread's path, while forced (see [`paths_on_this_thread`]).
pub(super) fn count(forced: bool, step: fn(Paths) -> Paths) {
    if forced {
        HERE.with(|h| h.set(step(h.get())));
    }
}

/// Counts one verification that handed its checks to the pool.
pub(super) fn overlapped_one() {
    OVERLAPPED.fetch_add(1, Ordering::Relaxed);
}

/// How many verifications in this process handed their checks to the pool (the others took
/// the serial path): lets tests see which path ran.
pub fn overlapped_calls() -> u64 {
    OVERLAPPED.load(Ordering::Relaxed)
}
