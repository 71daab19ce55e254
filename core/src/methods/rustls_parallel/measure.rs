//! What `rustlsparallel`'s decision measures, and keeps: each signature class's check cost,
//! the walk's own work, and how a pool worker meets an offer after each length of sleep.
//!
//! Every figure is written by the process that reads it, on the machine it runs on; nothing
//! here holds a figure of another machine. Writers are any thread (the caller, after a
//! verification); a decision reads a few relaxed atomics. Costs, the walk and the offer are
//! the median of their last [`RING`] samples (one preempted sample does not move them); the
//! worker's start and speed are running means, tail included ([`Mean`]).

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use arrayvec::ArrayVec;
use rustls_pki_types::{AlgorithmIdentifier, alg_id};

use crate::der::Signer;
use crate::pool::SPIN;

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
    MlDsa44,
    MlDsa65,
    MlDsa87,
    /// Any other algorithm.
    Other,
}

const CLASSES: usize = 12;

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
            Signer::MlDsa44 => Class::MlDsa44,
            Signer::MlDsa65 => Class::MlDsa65,
            Signer::MlDsa87 => Class::MlDsa87,
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
        } else if pk_alg == alg_id::ML_DSA_44 {
            Class::MlDsa44
        } else if pk_alg == alg_id::ML_DSA_65 {
            Class::MlDsa65
        } else if pk_alg == alg_id::ML_DSA_87 {
            Class::MlDsa87
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
    pub(super) const fn new() -> Recent {
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
    /// Samples so far.
    n: AtomicU32,
}

/// The weight of the newest sample in a [`Mean`] is 1/`MEAN_OF` (once it has that many).
pub(super) const MEAN_OF: u64 = 32;

impl Mean {
    pub(super) const fn new() -> Mean {
        Mean {
            value: AtomicU64::new(0),
            n: AtomicU32::new(0),
        }
    }

    /// Adds a sample: the plain mean of the samples so far until there are [`MEAN_OF`], so that
    /// the first one (a worker woken from the deepest sleep, say) weighs no more than any other;
    /// the weighted mean after.
    pub(super) fn push(&self, sample: u64) {
        let n = u64::from(self.n.fetch_add(1, Ordering::Relaxed)).min(MEAN_OF - 1);
        let old = self.value.load(Ordering::Relaxed);
        self.value
            .store(((old * n + sample) / (n + 1)).max(1), Ordering::Relaxed);
    }

    /// The mean; `None` before the first sample.
    pub(super) fn get(&self) -> Option<u64> {
        match self.value.load(Ordering::Relaxed) {
            0 => None,
            v => Some(v),
        }
    }
}

/// A signed running mean, weighted as [`Mean`]: what overlapped verifications cost beyond
/// the model's schedule (negative: less).
pub(super) struct SignedMean {
    value: AtomicI64,
    seen: AtomicBool,
}

impl SignedMean {
    pub(super) const fn new() -> SignedMean {
        SignedMean {
            value: AtomicI64::new(0),
            seen: AtomicBool::new(false),
        }
    }

    pub(super) fn push(&self, sample: i64) {
        let new = if self.seen.swap(true, Ordering::Relaxed) {
            let old = self.value.load(Ordering::Relaxed);
            (old * (MEAN_OF as i64 - 1) + sample) / MEAN_OF as i64
        } else {
            sample
        };
        self.value.store(new, Ordering::Relaxed);
    }

    /// The mean, 0 before the first sample.
    pub(super) fn get(&self) -> i64 {
        self.value.load(Ordering::Relaxed)
    }
}

/// Lengths of sleep whose workers are learnt apart ([`sleep_class`]): spinning, then asleep
/// for less than 4, 16, 64 and 256 times the pool's spin, and longer (a CPU idle for longer
/// sleeps deeper, in the host too). Multiples of the pool's own design figure, not
/// measurements.
pub(super) const SLEEP_EDGES: [Duration; 4] = [
    Duration::from_nanos(SPIN.as_nanos() as u64 * 4),
    Duration::from_nanos(SPIN.as_nanos() as u64 * 16),
    Duration::from_nanos(SPIN.as_nanos() as u64 * 64),
    Duration::from_nanos(SPIN.as_nanos() as u64 * 256),
];
/// Spinning, and one class per interval between [`SLEEP_EDGES`].
pub(super) const SLEEPS: usize = SLEEP_EDGES.len() + 2;

/// Everything the decision has measured in this process.
pub(super) struct Measured {
    /// The caller's check cost per [`Class`], in ns.
    pub(super) cost: [Recent; CLASSES],
    /// The walk's work beyond its signature checks, in ns.
    pub(super) walk: Recent,
    /// Per sleep class: what the offer cost the caller, in ns.
    pub(super) offer: [Recent; SLEEPS],
    /// Per sleep class: ns from the offer to a worker taking the job (mean, tail included).
    pub(super) start: [Mean; SLEEPS],
    /// Per sleep class: a worker's check time against the caller's for its class, in percent
    /// (mean, tail included: a check preempted by another process counts in full).
    pub(super) slowdown: [Mean; SLEEPS],
    /// Per sleep class: what an overlapped verification took beyond the schedule the model
    /// predicted for it, in ns (mean, tail included): everything the model leaves out (the
    /// wake-up's cost on the caller's CPU, two CPUs sharing a core or a cache, results
    /// crossing between CPUs, a caller or worker preempted), measured as a whole.
    pub(super) excess: [SignedMean; SLEEPS],
    /// Chains the figures kept serial that could pay with an [`IDEAL`] worker: every
    /// [`EXPLORE_EVERY`]th explores.
    pub(super) explore_tick: AtomicU32,
    /// Explorations left in a stream's burst.
    pub(super) explore_burst: AtomicU32,
}

impl Measured {
    pub(super) const fn new() -> Measured {
        Measured {
            cost: [const { Recent::new() }; CLASSES],
            walk: Recent::new(),
            offer: [const { Recent::new() }; SLEEPS],
            start: [const { Mean::new() }; SLEEPS],
            slowdown: [const { Mean::new() }; SLEEPS],
            excess: [const { SignedMean::new() }; SLEEPS],
            explore_tick: AtomicU32::new(0),
            explore_burst: AtomicU32::new(0),
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
    pub(super) fn worker(&self, sleep: usize) -> Option<Worker> {
        Some(Worker {
            offer_ns: self.offer[sleep].median()?,
            start_ns: self.start[sleep].get()?,
            slowdown_pct: self.slowdown[sleep].get()?,
            excess_ns: self.excess[sleep].get(),
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
    /// What an overlapped verification took beyond the schedule, on average ([`Measured::excess`]).
    pub(super) excess_ns: i64,
}

/// The class of a sleep of `asleep` (zero: a worker is spinning): what a job offered now
/// meets, and what the offer teaches.
pub(super) fn sleep_class(asleep: Duration) -> usize {
    if asleep.is_zero() {
        return 0;
    }
    1 + SLEEP_EDGES.iter().take_while(|&&e| asleep >= e).count()
}

/// The class whose figures decide for a verification of sleep class `sleep` that ends a run
/// of `streak` calls, each within the first [`SLEEP_EDGES`] gap of the one before. A stream
/// (two such calls or more: a page's connections, a tight loop) is judged by the figures of a
/// spinning worker, however long the workers slept: had the previous calls offered their
/// checks, a worker would be spinning (it spins [`SPIN`] after each job), and judging each
/// call by a pool that no call wakes would keep a stream of cheap chains serial for good. The
/// offer itself is learnt as what it met (`sleep`). One close call alone is also what
/// interleaving methods over chains gives, so it is not a stream.
pub(super) fn deciding_class(sleep: usize, streak: u32) -> usize {
    if streak >= 2 { 0 } else { sleep }
}
