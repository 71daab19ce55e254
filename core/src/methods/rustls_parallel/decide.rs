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
//! - each signature class's check cost on this CPU ([`Class`]), timed around the caller's own
//!   checks: on the overlapped path always, on the serial path while a class on the chain is
//!   unmeasured and every [`SAMPLE_EVERY`]th call after;
//! - the walk's own work beyond its checks, timed on those serial calls;
//! - per length of the workers' sleep ([`sleep_class`]), what an offer costs the caller, how
//!   soon after it a worker takes the job, and how fast it then checks against the caller
//!   (the pool reports the first two, [`crate::pool::Offered`]; the third is the worker's
//!   check timed against the class's cost). A worker that never took the job counts as
//!   starting when the caller withdrew it: on a machine whose CPUs are all busy the worker
//!   starts late or never, and that is what is learnt.
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
use std::time::Duration;

use arrayvec::ArrayVec;
use rustls_pki_types::{AlgorithmIdentifier, alg_id};

use super::MAX_PRECHECKS;
use super::check::{Check, Outcome};
use crate::chain::Chain;
use crate::clock::now_ns;
use crate::der::Signer;
use crate::pool::{Offered, SPIN, SignaturePool};

/// A signature check's cost class: its issuer key's algorithm and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    P256,
    P384,
    P521,
    Ed25519,
    /// RSA up to 2048 bits.
    Rsa2048,
    /// RSA of 2049–3072 bits.
    Rsa3072,
    /// RSA of 3073–4096 bits.
    Rsa4096,
    /// RSA above 4096 bits.
    RsaLarger,
    /// Any other algorithm (ML-DSA, say).
    Other,
}

const CLASSES: usize = 9;

impl Class {
    fn index(self) -> usize {
        self as usize
    }

    fn rsa(bits: usize) -> Class {
        match bits {
            0..=2048 => Class::Rsa2048,
            2049..=3072 => Class::Rsa3072,
            3073..=4096 => Class::Rsa4096,
            _ => Class::RsaLarger,
        }
    }

    /// The class of a certificate's signature check, from what [`crate::der::signer`] reads.
    pub(super) fn of_signer(signer: Signer) -> Class {
        match signer {
            Signer::EcdsaP256 => Class::P256,
            Signer::EcdsaP384 => Class::P384,
            Signer::EcdsaP521 => Class::P521,
            Signer::Ed25519 => Class::Ed25519,
            Signer::Rsa { bits } => Class::rsa(bits),
            Signer::Other => Class::Other,
        }
    }

    /// The class of a check by an algorithm whose public key algorithm is `pk_alg`, with the
    /// key bytes `key` (for RSA, a DER RSAPublicKey: the modulus and ~14 bytes of headers and
    /// exponent).
    pub(super) fn of_key(pk_alg: AlgorithmIdentifier, key: &[u8]) -> Class {
        if pk_alg == alg_id::ECDSA_P256 {
            Class::P256
        } else if pk_alg == alg_id::ECDSA_P384 {
            Class::P384
        } else if pk_alg == alg_id::ECDSA_P521 {
            Class::P521
        } else if pk_alg == alg_id::ED25519 {
            Class::Ed25519
        } else if pk_alg == alg_id::RSA_ENCRYPTION {
            Class::rsa(key.len().saturating_sub(14) * 8)
        } else {
            Class::Other
        }
    }
}

/// How many recent samples a figure keeps; it reads as their median.
pub(super) const RING: usize = 8;

/// A figure's recent samples (nanoseconds, or percent for a slowdown), written by any thread,
/// with their median kept up to date by the writer, so that a decision reads one atomic.
/// Racing writers may overwrite each other's sample or median: a statistic, not a record.
pub(super) struct Recent {
    next: AtomicU32,
    values: [AtomicU32; RING],
    /// The median of `values` as the last writer left them (0: no sample yet).
    median: AtomicU32,
}

impl Recent {
    const fn new() -> Recent {
        Recent {
            next: AtomicU32::new(0),
            values: [const { AtomicU32::new(0) }; RING],
            median: AtomicU32::new(0),
        }
    }

    pub(super) fn push(&self, value: u64) {
        let value = value.clamp(1, u32::MAX as u64) as u32;
        let i = self.next.fetch_add(1, Ordering::Relaxed) as usize % RING;
        self.values[i].store(value, Ordering::Relaxed);
        let mut v: ArrayVec<u32, RING> = self
            .values
            .iter()
            .map(|a| a.load(Ordering::Relaxed))
            .filter(|&x| x != 0)
            .collect();
        v.sort_unstable();
        self.median.store(v[v.len() / 2], Ordering::Relaxed);
    }

    /// The median of the samples so far (the upper one of an even count); `None` before one.
    pub(super) fn median(&self) -> Option<u64> {
        match self.median.load(Ordering::Relaxed) {
            0 => None,
            m => Some(m as u64),
        }
    }
}

/// A figure's running mean over about its last [`MEAN_OF`] samples (an exponentially weighted
/// mean, in ns or percent), tail included: for the worker's start and speed, where a rare
/// long sample is the cost itself (a worker descheduled mid-check by another process holds
/// the caller for a scheduler's time slice, milliseconds, on a few percent of calls: a median
/// never sees it, and the mean is what overlapping then costs on average).
pub(super) struct Mean {
    /// The mean, 0 before the first sample.
    value: AtomicU64,
}

/// The weight of the newest sample in a [`Mean`] is 1/`MEAN_OF`.
pub(super) const MEAN_OF: u64 = 32;

impl Mean {
    const fn new() -> Mean {
        Mean {
            value: AtomicU64::new(0),
        }
    }

    pub(super) fn push(&self, sample: u64) {
        let sample = sample.max(1);
        let old = self.value.load(Ordering::Relaxed);
        let new = if old == 0 {
            sample
        } else {
            (old * (MEAN_OF - 1) + sample) / MEAN_OF
        };
        self.value.store(new.max(1), Ordering::Relaxed);
    }

    pub(super) fn get(&self) -> Option<u64> {
        match self.value.load(Ordering::Relaxed) {
            0 => None,
            v => Some(v),
        }
    }
}

/// Lengths of sleep whose workers are learnt apart ([`sleep_class`]): spinning, then asleep
/// for less than 4, 16, 64 and 256 times the pool's spin, and longer (a CPU idle for longer
/// sleeps deeper, in the host too). Multiples of the pool's own design figure, not
/// measurements.
const SLEEP_EDGES: [Duration; 4] = [
    Duration::from_nanos(SPIN.as_nanos() as u64 * 4),
    Duration::from_nanos(SPIN.as_nanos() as u64 * 16),
    Duration::from_nanos(SPIN.as_nanos() as u64 * 64),
    Duration::from_nanos(SPIN.as_nanos() as u64 * 256),
];
/// Spinning, and one class per interval between [`SLEEP_EDGES`].
const SLEEPS: usize = SLEEP_EDGES.len() + 2;

/// Everything the decision has measured in this process.
pub(super) struct Measured {
    /// The caller's check cost per [`Class`], in ns.
    cost: [Recent; CLASSES],
    /// The walk's work beyond its signature checks, in ns.
    walk: Recent,
    /// Per sleep class: what the offer cost the caller, in ns.
    offer: [Recent; SLEEPS],
    /// Per sleep class: ns from the offer to a worker taking the job (mean, tail included).
    start: [Mean; SLEEPS],
    /// Per sleep class: a worker's check time against the caller's for its class, in percent
    /// (mean, tail included: a check preempted by another process counts in full).
    slowdown: [Mean; SLEEPS],
    /// Chains the figures kept serial that could pay with an [`IDEAL`] worker: every
    /// [`EXPLORE_EVERY`]th explores.
    explore_tick: AtomicU32,
}

impl Measured {
    pub(super) const fn new() -> Measured {
        Measured {
            cost: [const { Recent::new() }; CLASSES],
            walk: Recent::new(),
            offer: [const { Recent::new() }; SLEEPS],
            start: [const { Mean::new() }; SLEEPS],
            slowdown: [const { Mean::new() }; SLEEPS],
            explore_tick: AtomicU32::new(0),
        }
    }

    pub(super) fn cost(&self, class: Class) -> Option<u64> {
        self.cost[class.index()].median()
    }

    /// The caller's check of `class` took `ns`.
    pub(super) fn learn_cost(&self, class: Class, ns: u64) {
        self.cost[class.index()].push(ns);
    }

    /// A serial walk took `ns` beyond its checks.
    pub(super) fn learn_walk(&self, ns: u64) {
        self.walk.push(ns);
    }

    /// How a worker met offers after a sleep of class `sleep`, once each figure has a sample.
    fn worker(&self, sleep: usize) -> Option<Worker> {
        Some(Worker {
            offer_ns: self.offer[sleep].median()?,
            start_ns: self.start[sleep].get()?,
            slowdown_pct: self.slowdown[sleep].get()?,
        })
    }
}

/// The process's figures.
pub(super) static MEASURED: Measured = Measured::new();

/// How a worker meets a job offered now: what the offer costs the caller, how soon after the
/// offer the worker starts, and its check time against the caller's (percent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Worker {
    pub(super) offer_ns: u64,
    pub(super) start_ns: u64,
    pub(super) slowdown_pct: u64,
}

/// A worker that costs nothing to reach and checks as fast as the caller: what exploring
/// asks of a chain (if even it cannot make overlapping pay, nothing will).
pub(super) const IDEAL: Worker = Worker {
    offer_ns: 0,
    start_ns: 0,
    slowdown_pct: 100,
};

/// The least share of the serial time the schedule must save (1/16): a margin for a
/// check's cost varying with its key and message, and for the medians' own spread.
pub(super) const MARGIN: u64 = 16;

/// How often a chain that the measured figures keep serial explores the pool anyway.
pub(super) const EXPLORE_EVERY: u32 = 16;

/// How often a serial verification times its checks once its classes are measured.
pub(super) const SAMPLE_EVERY: u32 = 16;

/// What the schedule saves against the checks and the walk one after another, in ns
/// (negative: it costs). `costs` are the path's checks in any order; the caller takes the
/// largest (after its offer), then walks for `walk_ns` before it needs another check; the
/// worker (from `start_ns`, at `slowdown_pct`) takes the next ones in order while it is free
/// before the caller is; the caller makes the rest. One worker, as on two CPUs (more workers
/// only finish sooner).
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
    serial as i64 - caller.max(worker) as i64
}

/// Whether the schedule of [`gain_ns`] saves at least [`MARGIN`]'s share of the serial time.
pub(super) fn pays(costs: &[u64], walk_ns: u64, w: Worker) -> bool {
    if costs.len() < 2 {
        return false;
    }
    let serial = costs.iter().sum::<u64>() + walk_ns;
    gain_ns(costs, walk_ns, w) >= (serial / MARGIN).max(1) as i64
}

/// The class of a sleep of `asleep` (zero: a worker is spinning), on the verification that
/// ends a run of `streak` calls each within the first [`SLEEP_EDGES`] gap of the one before.
/// A stream (two such calls or more: a page's connections, a tight loop) meets the pool as
/// just asleep however long the workers slept: had the previous calls offered their checks,
/// the workers would be awake, and judging each call by a pool no call wakes would keep a
/// stream of cheap chains serial for good. One close call alone is also what interleaving
/// methods over chains gives, so it is not a stream.
pub(super) fn sleep_class(asleep: Duration, streak: u32) -> usize {
    if asleep.is_zero() {
        return 0;
    }
    if streak >= 2 {
        return 1;
    }
    1 + SLEEP_EDGES.iter().take_while(|&&e| asleep >= e).count()
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
    sleep: usize,
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
        Decision::from(&MEASURED, sleep_class(pool.asleep_for(), streak))
    }
}

impl<'m> Decision<'m> {
    /// The figures of `m` for a job offered after a sleep of class `sleep`.
    pub(super) fn from(m: &'m Measured, sleep: usize) -> Decision<'m> {
        Decision {
            m,
            sleep,
            worker: m.worker(sleep),
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
            Some(_) => {
                let tick = self.m.explore_tick.fetch_add(1, Ordering::Relaxed);
                if tick % EXPLORE_EVERY == EXPLORE_EVERY - 1 {
                    Pre::Try(Mode::Explore)
                } else {
                    serial
                }
            }
        }
    }

    /// Whether the predicted path's checks confirm `mode`.
    pub(super) fn confirm(&self, jobs: &[Check<'_>], mode: Mode) -> bool {
        let costs: ArrayVec<u64, MAX_PRECHECKS> = jobs
            .iter()
            .map(|j| self.m.cost(j.class).unwrap_or(0))
            .collect();
        let w = match mode {
            Mode::Overlap(w) => w,
            Mode::Explore => IDEAL,
        };
        pays(&costs, self.walk_ns, w)
    }

    /// Learns from an overlapped verification: what the pool saw of the offer, and who made
    /// each check how fast.
    pub(super) fn learn(&self, jobs: &[Check<'_>], seen: Option<Offered>) {
        let m = self.m;
        if let Some(o) = seen {
            m.offer[self.sleep].push(o.offer.as_nanos() as u64);
            m.start[self.sleep].push(o.started.unwrap_or(o.withdrawn).as_nanos() as u64);
        }
        for job in jobs {
            match job.outcome() {
                Outcome::ByCaller(ns) => m.learn_cost(job.class, ns),
                Outcome::ByWorker(ns) => {
                    if let Some(cost) = m.cost(job.class) {
                        MEASURED.slowdown[self.sleep].push(ns * 100 / cost.max(1));
                    }
                }
                Outcome::NotMade => {}
            }
        }
    }
}

/// Whether this serial verification times its checks and walk: always while `unmeasured`,
/// else every [`SAMPLE_EVERY`]th.
pub(super) fn sample_serial(unmeasured: bool) -> bool {
    unmeasured
        || SAMPLE_TICK
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(SAMPLE_EVERY)
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod tests;
