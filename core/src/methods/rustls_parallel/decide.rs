//! Whether handing a chain's signature checks to the pool can pay, decided from figures this
//! process measures on the machine it runs on: nothing here is a figure of another machine.
//!
//! The model (see [`gain_ns`]): the caller makes the costliest check, then walks; one worker
//! takes the next checks once it has started; the caller makes those the worker has not
//! taken when the walk needs them. Overlapping pays when that schedule ends sooner, by at
//! least a [`MARGIN`] share, than the checks and the walk one after another. Its inputs, all
//! measured ([`Measured`]; costs, walk and offer as the median of their last [`RING`] samples,
//! the worker's start and speed as a running mean, tail included: see [`Mean`]):
//!
//! - each signature class's check cost on this CPU ([`Class`]), timed around the checks of
//!   webpki's serial walk alone (never beside a worker, which may slow them): always while a
//!   class on the chain is unmeasured, and every [`SAMPLE_EVERY`]th verification after,
//!   whatever the decision;
//! - the walk's own work beyond its checks, timed on those serial calls;
//! - per length of the workers' sleep ([`sleep_class`]), what an offer costs the caller, how
//!   soon after it a worker takes the job, and how fast it then checks against the caller
//!   (the pool reports the first two, [`crate::pool::Offered`]; the third is the worker's
//!   check timed against the class's cost). A worker that never took the job counts as
//!   starting when the caller withdrew it: on a machine whose CPUs are all busy the worker
//!   starts late or never, and that is what is learnt;
//! - per length of sleep, what overlapped verifications took beyond the schedule predicted
//!   for them (a running mean): whatever the model leaves out, measured as a whole (the
//!   wake-up's cost on the caller's CPU, two CPUs sharing a core so that both checks slow
//!   down, results crossing between caches).
//!
//! What it assumes: the walk's work before its first signature request is half of its work
//! beyond the checks (the leaf is parsed and checked before the path's signatures are asked
//! for); a sample stretched by a preemption is an outlier the median drops; and what an
//! offer met lately is what the next offer meets. Until a sleep length has a sample the
//! worker is unknown and the next chain that could pay with a worker starting at once
//! explores it ([`Mode::Explore`]); once measured, a chain the figures keep serial still
//! explores every [`EXPLORE_EVERY`]th time, so that figures taken while the machine was busy
//! do not keep it serial once it is idle. An exploration costs at most the offer and the
//! worker's share finishing late; a wrong decision changes only the path, never a verdict.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use arrayvec::ArrayVec;

use super::check::{Check, Outcome};
use super::measure::{Class, MEASURED, Measured, Worker};
use super::measure::{SLEEP_EDGES, deciding_class, sleep_class};
use super::path::MAX_PRECHECKS;
use crate::chain::Chain;
use crate::clock::now_ns;
use crate::pool::{Offered, SignaturePool};

/// A worker that costs nothing to reach and checks as fast as the caller: what exploring
/// asks of a chain (if even it cannot make overlapping pay, nothing will).
pub(super) const IDEAL: Worker = Worker {
    offer_ns: 0,
    start_ns: 0,
    slowdown_pct: 100,
    excess_ns: 0,
};

/// The least share of the serial time the schedule must save (1/16): a margin for a
/// check's cost varying with its key and message, and for the medians' own spread.
pub(super) const MARGIN: u64 = 16;

/// How often a chain that the measured figures keep serial explores the pool anyway.
pub(super) const EXPLORE_EVERY: u32 = 16;

/// How many verifications in a row a stream explores ([`Decision::pre_test`]).
pub(super) const EXPLORE_BURST: u32 = 4;

/// Takes one from `n` if it is above zero.
fn take_one(n: &AtomicU32) -> bool {
    n.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| v.checked_sub(1))
        .is_ok()
}

/// A chain explores only if the measured offer is at most 1/`EXPLORE_OFFER_SHARE` of its
/// checks' cost: on a chain of two RSA-2048 checks (~40 µs), an offer that wakes a halted
/// vCPU (~20 µs on a KVM guest) would make every exploration a loss of half the chain.
pub(super) const EXPLORE_OFFER_SHARE: u64 = 8;

/// How often a serial verification times its checks once its classes are measured.
pub(super) const SAMPLE_EVERY: u32 = 16;

/// What the schedule saves against the checks and the walk one after another, in ns
/// (negative: it costs). `costs` are the path's checks in any order; the caller takes the
/// largest (after its offer), then walks for `walk_ns` before it needs another check; the
/// worker (from `start_ns`, at `slowdown_pct`) takes the next ones in order while it is free
/// before the caller is; the caller makes the rest. One worker, as on two CPUs (more workers
/// only finish sooner). Less the worker's measured excess: what overlapped verifications took
/// beyond this schedule, on average.
pub(super) fn gain_ns(costs: &[u64], walk_ns: u64, w: Worker) -> i64 {
    let mut sorted: ArrayVec<u64, { MAX_PRECHECKS + 1 }> = costs.iter().copied().collect();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let serial = sorted.iter().sum::<u64>() + walk_ns;
    let Some((&first, rest)) = sorted.split_first() else {
        return 0;
    };
    let mut caller = w.offer_ns + first + walk_ns;
    let mut worker = w.start_ns;
    for &c in rest {
        if worker <= caller {
            worker += c * w.slowdown_pct / 100;
        } else {
            caller += c;
        }
    }
    serial as i64 - caller.max(worker) as i64 - w.excess_ns
}

/// Whether the schedule of [`gain_ns`] saves at least [`MARGIN`]'s share of the serial time.
pub(super) fn pays(costs: &[u64], walk_ns: u64, w: Worker) -> bool {
    if costs.len() < 2 {
        return false;
    }
    let serial = costs.iter().sum::<u64>() + walk_ns;
    gain_ns(costs, walk_ns, w) >= (serial / MARGIN).max(1) as i64
}

static LAST_CALL_NS: AtomicU64 = AtomicU64::new(0);
static STREAK: AtomicU32 = AtomicU32::new(0);
static SAMPLE_TICK: AtomicU32 = AtomicU32::new(0);

/// How one verification may use the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// The measured figures say overlapping pays.
    Overlap(Worker),
    /// Try the pool to measure it (unknown, or not tried lately).
    Explore,
}

/// What the pre-test says of a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pre {
    /// Walk serially; `unmeasured`: a class on the chain has no cost yet (time this walk).
    Serial { unmeasured: bool },
    /// Predict the path and, if its checks confirm it, overlap them.
    Try(Mode),
}

/// One verification's view of the figures.
pub(super) struct Decision<'m> {
    m: &'m Measured,
    /// The sleep class the offer meets (its figures are learnt there).
    sleep: usize,
    /// The class whose figures decide ([`deciding_class`]).
    deciding: usize,
    worker: Option<Worker>,
    walk_ns: u64,
}

impl Decision<'static> {
    /// The figures for a job offered now to `pool` (counts this call in the stream).
    pub(super) fn now(pool: &SignaturePool) -> Decision<'static> {
        let now = now_ns();
        let previous = LAST_CALL_NS.swap(now, Ordering::Relaxed);
        let close =
            previous != 0 && now.saturating_sub(previous) < SLEEP_EDGES[0].as_nanos() as u64;
        let streak = if close {
            STREAK.fetch_add(1, Ordering::Relaxed).saturating_add(1)
        } else {
            STREAK.store(0, Ordering::Relaxed);
            0
        };
        let sleep = sleep_class(pool.asleep_for());
        Decision::from(&MEASURED, sleep, deciding_class(sleep, streak))
    }
}

impl<'m> Decision<'m> {
    /// The figures of `m` for a job offered after a sleep of class `sleep`, decided by the
    /// figures of class `deciding` (see [`deciding_class`]).
    pub(super) fn from(m: &'m Measured, sleep: usize, deciding: usize) -> Decision<'m> {
        Decision {
            m,
            sleep,
            deciding,
            worker: m.worker(deciding),
            // Assumed: half the walk's own work comes before its first signature request.
            walk_ns: m.walk.median().unwrap_or(0) / 2,
        }
    }

    /// The cheap pre-test, before any path is predicted, on the sent certificates' signature
    /// classes (cross-signs off the path counted too, so a chain is only let through when its
    /// costliest check and the walk cover the worker's start and offer). A class on the chain
    /// not yet measured keeps it serial, and that call measures it.
    pub(super) fn pre_test(&self, chain: &Chain) -> Pre {
        let mut costs: ArrayVec<u64, { MAX_PRECHECKS + 1 }> = ArrayVec::new();
        for cert in chain.iter() {
            let Some(signer) = crate::der::signer(cert) else {
                return Pre::Serial { unmeasured: false }; // webpki rejects or skips it
            };
            let Some(cost) = self.m.cost(Class::of_signer(signer)) else {
                return Pre::Serial { unmeasured: true };
            };
            if costs.try_push(cost).is_err() {
                return Pre::Serial { unmeasured: false }; // beyond the pre-checks
            }
        }
        let fits = |w: Worker| {
            let costliest = costs.iter().copied().max().unwrap_or(0);
            costliest + self.walk_ns >= w.start_ns + w.offer_ns && pays(&costs, self.walk_ns, w)
        };
        let serial = Pre::Serial { unmeasured: false };
        match self.worker {
            Some(w) if fits(w) => Pre::Try(Mode::Overlap(w)),
            _ if !fits(IDEAL) => serial,
            None => Pre::Try(Mode::Explore),
            // Exploring costs at least the offer: only chains long enough to hide it.
            Some(w) if w.offer_ns * EXPLORE_OFFER_SHARE > costs.iter().sum::<u64>() => serial,
            Some(_) => {
                // A stream judged by a spinning worker's figures explores in a burst: the
                // first offer wakes the worker, the next ones meet it spinning, which is what
                // those figures are of (a single offer would teach only the sleeping one's).
                let stream = self.deciding != self.sleep || self.deciding == 0;
                if stream && take_one(&self.m.explore_burst) {
                    return Pre::Try(Mode::Explore);
                }
                let tick = self.m.explore_tick.fetch_add(1, Ordering::Relaxed);
                if tick % EXPLORE_EVERY == EXPLORE_EVERY - 1 {
                    if stream {
                        self.m
                            .explore_burst
                            .store(EXPLORE_BURST - 1, Ordering::Relaxed);
                    }
                    Pre::Try(Mode::Explore)
                } else {
                    serial
                }
            }
        }
    }

    /// Whether the predicted path's checks confirm `mode`.
    /// Whether the predicted path's checks confirm `mode`: the schedule's predicted time
    /// (ns, the model's figures without their measured excess) when they do.
    pub(super) fn confirm(&self, jobs: &[Check<'_>], mode: Mode) -> Option<u64> {
        let costs: ArrayVec<u64, MAX_PRECHECKS> = jobs
            .iter()
            .map(|j| self.m.cost(j.class).unwrap_or(0))
            .collect();
        let w = match mode {
            Mode::Overlap(w) => w,
            Mode::Explore => IDEAL,
        };
        if !pays(&costs, self.walk_ns, w) {
            return None;
        }
        // The schedule with this sleep's measured worker, its excess left out: what the
        // excess is then learnt against (an unknown worker's explorations teach it nothing).
        let Some(w) = self.worker else {
            return Some(0);
        };
        let serial = costs.iter().sum::<u64>() + 2 * self.walk_ns;
        let gain = gain_ns(&costs, self.walk_ns, Worker { excess_ns: 0, ..w });
        Some((serial as i64 - gain).max(1) as u64)
    }

    /// Learns from an overlapped verification: what the pool saw of the offer, and who made
    /// each check how fast.
    /// `took_ns` is what the verification took, against the `predicted_ns` of [`Decision::confirm`].
    pub(super) fn learn(
        &self,
        jobs: &[Check<'_>],
        seen: Option<Offered>,
        took_ns: u64,
        predicted_ns: Option<u64>,
    ) {
        let m = self.m;
        if let (Some(predicted @ 1..), Some(_)) = (predicted_ns, seen) {
            // Against the figures that predicted it.
            m.excess[self.deciding].push(took_ns as i64 - predicted as i64);
        }
        if let Some(o) = seen {
            m.offer[self.sleep].push(o.offer.as_nanos() as u64);
            m.start[self.sleep].push(o.started.unwrap_or(o.withdrawn).as_nanos() as u64);
        }
        for job in jobs {
            match job.outcome() {
                // Not learnt as the class's cost: a check made beside a worker may run slower
                // than alone (two CPUs sharing a core or a cache), and the costs must say what
                // the serial walk would take (that slowdown shows in the excess instead).
                Outcome::ByCaller(_) => {}
                Outcome::ByWorker(ns) => {
                    if let Some(cost) = m.cost(job.class) {
                        m.slowdown[self.sleep].push(ns * 100 / cost.max(1));
                    }
                }
                Outcome::NotMade => {}
            }
        }
    }
}

/// Whether this verification takes webpki's walk with its checks and walk timed: always while
/// `unmeasured`, else every [`SAMPLE_EVERY`]th verification, whatever the decision (so that
/// the classes of chains that always overlap are timed alone too).
pub(super) fn sample_serial(unmeasured: bool) -> bool {
    unmeasured
        || SAMPLE_TICK
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(SAMPLE_EVERY)
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod tests;
