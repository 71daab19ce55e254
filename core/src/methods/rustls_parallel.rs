//! `rustlsparallel`: rustls-webpki with the chain's signature checks run in parallel.
//!
//! webpki checks signatures one after the other while it walks a path. This method first
//! predicts the path the walk will try first (the same rule webpki follows: a trust anchor
//! before a sent intermediate) and, when overlapping them can pay, offers that path's (issuer
//! key, signed data, signature) triples to the persistent [`SignaturePool`]'s workers. The
//! calling thread makes the costliest check itself, then runs webpki's own walk with
//! signature algorithms that answer from those checks: the walk does its other work
//! (parsing, validity, constraints) before it asks for a signature, so that work overlaps the
//! workers' checks, and it waits only for a check a worker has under way (one nobody took, it
//! makes itself).
//! The walk is handed only the trust anchors it could use ([`relevant_anchors`]), found
//! through the store's index by subject, instead of the whole store it would scan per head.
//!
//! Invariant: the verdict is exactly `rustlsserial`'s. The wrapped algorithm answers from the
//! cache only for a call with the same algorithm, key, message and signature bytes as a
//! pre-checked triple (the result of the same pure function on the same input); any other call
//! goes to the real algorithm (a predicted path that was wrong costs only the checks made for
//! it). A chain whose path has one signature takes the serial path unchanged (nothing to
//! overlap), and so does a path of more than [`MAX_PRECHECKS`] links: webpki bounds the
//! signatures one verification may check, and work done ahead of the walk must stay bounded
//! too.

use std::collections::HashMap;

use arrayvec::ArrayVec;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

use super::rustls_serial::{CAPABILITIES, signature_algorithms, trust_anchors, verify_with};
use crate::chain::Chain;
use crate::der::{SignedParts, Signer, Spki};
use crate::error::Error;
use crate::pool::SignaturePool;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, Rejection, Target, Verifier};
use rustls_pki_types::{
    AlgorithmIdentifier, CertificateDer, FipsStatus, InvalidSignature,
    SignatureVerificationAlgorithm, TrustAnchor,
};

/// rustls-webpki with signatures pre-checked in parallel.
pub struct RustlsParallel {
    pool: &'static SignaturePool,
}

impl RustlsParallel {
    /// On the process-wide pool.
    pub fn new() -> RustlsParallel {
        RustlsParallel {
            pool: SignaturePool::global(),
        }
    }
}

impl Default for RustlsParallel {
    fn default() -> Self {
        RustlsParallel::new()
    }
}

/// Trust anchors plus an index from subject to anchors, to find candidate issuers quickly.
pub struct ParallelRoots {
    anchors: Vec<TrustAnchor<'static>>,
    by_subject: HashMap<Vec<u8>, Vec<usize>>,
}

impl Verifier for RustlsParallel {
    type Roots = ParallelRoots;

    fn library(&self) -> Library {
        Library {
            name: "rustls-webpki",
            version: crate::versions::locked("rustls-webpki").to_owned(),
            limbo_harness: Some("rustls-webpki"),
        }
    }

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<ParallelRoots, Error> {
        let anchors = trust_anchors(roots)?;
        let mut by_subject: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
        for (i, a) in anchors.iter().enumerate() {
            by_subject.entry(a.subject.to_vec()).or_default().push(i);
        }
        Ok(ParallelRoots {
            anchors,
            by_subject,
        })
    }

    fn verify(
        &self,
        roots: &ParallelRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        let algs = signature_algorithms();
        verify_with(chain, target, rec, |ee, path| {
            // Path counts only while forced (tests): nothing extra in an ordinary timed call.
            let forced = FORCE_OVERLAP.load(Ordering::Relaxed);
            let count = |step: fn(Paths) -> Paths| {
                if forced {
                    HERE.with(|h| h.set(step(h.get())));
                }
            };
            count(Paths::walked);
            // Only the anchors webpki's walk could use (see `relevant_anchors`), in their
            // order: the walk then skips the scan of the whole store for every head.
            let subset = relevant_anchors(chain, roots);
            let anchors = subset.as_deref().unwrap_or(&roots.anchors);
            let walk = |algs: &[&dyn SignatureVerificationAlgorithm]| {
                ee.verify_for_usage(
                    algs,
                    anchors,
                    &chain.intermediates,
                    path.time,
                    path.usage,
                    path.revocation,
                    None,
                )
                .map(|_| ())
            };
            // With the workers asleep most chains cannot pay for waking one: say so from the
            // signatures' sizes (three DER headers per certificate) before predicting a path.
            let worker = worker_now(self.pool);
            let awake = worker == AWAKE;
            if !(forced || awake || might_pay(chain, worker)) {
                return walk(algs);
            }
            // Everything below lives on the stack: no allocation on this path.
            let Some(jobs) = candidate_checks(chain, roots, algs) else {
                count(Paths::too_many);
                return walk(algs);
            };
            if !(forced || worth_overlapping(&jobs, worker)) || algs.len() > MAX_ALGORITHMS {
                return walk(algs);
            }
            OVERLAPPED.fetch_add(1, Ordering::Relaxed);
            count(Paths::overlapped);
            let cached: ArrayVec<Cached<'_>, MAX_ALGORITHMS> = algs
                .iter()
                .enumerate()
                .map(|(idx, &inner)| Cached {
                    inner,
                    idx,
                    jobs: &jobs,
                })
                .collect();
            let cached: ArrayVec<&dyn SignatureVerificationAlgorithm, MAX_ALGORITHMS> = cached
                .iter()
                .map(|c| c as &dyn SignatureVerificationAlgorithm)
                .collect();
            // The workers take the checks in order (largest first); this thread takes the
            // largest itself, then walks at once: the walk does all its other work (parsing,
            // validity, constraints) before it asks for any signature, so that work overlaps
            // the workers' checks, and the walk waits only for a result it needs and a worker
            // has under way (a check no worker took, it makes itself).
            let for_workers = || {
                for job in &jobs {
                    if job.claim() {
                        let _ = job.check(algs[job.alg]); // published in its state
                    }
                }
            };
            self.pool.run_beside(&for_workers, || {
                if let Some(first) = jobs.first().filter(|j| j.claim()) {
                    let _ = first.check(algs[first.alg]); // published in its state
                }
                walk(&cached)
            })
        })
    }
}

static OVERLAPPED: AtomicU64 = AtomicU64::new(0);

/// Which path this thread's `rustlsparallel` verifications took (see [`paths_on_this_thread`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Paths {
    /// Verifications that reached path building (the end-entity certificate parsed).
    pub walked: u64,
    /// Of those, the ones whose candidate checks ran on the pool (the overlapped path).
    pub overlapped: u64,
    /// Of those, the ones with more candidate checks than [`MAX_PRECHECKS`] (webpki's own walk).
    pub too_many: u64,
}

impl Paths {
    fn walked(self) -> Paths {
        Paths {
            walked: self.walked + 1,
            ..self
        }
    }
    fn overlapped(self) -> Paths {
        Paths {
            overlapped: self.overlapped + 1,
            ..self
        }
    }
    fn too_many(self) -> Paths {
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
    static HERE: std::cell::Cell<Paths> = const { std::cell::Cell::new(Paths { walked: 0, overlapped: 0, too_many: 0 }) };
}

/// The paths this thread's verifications took so far, counted while the overlapped path is
/// forced ([`force_overlap`]): lets a test that runs beside others see exactly which path its
/// own verifications ran.
pub fn paths_on_this_thread() -> Paths {
    HERE.with(|h| h.get())
}
static FORCE_OVERLAP: AtomicBool = AtomicBool::new(false);

/// Forces (or stops forcing) the overlapped path in this process: every verification whose
/// candidate checks fit ([`MAX_PRECHECKS`]) hands them to the pool, whether or not overlapping
/// would pay. For tests and the fuzz target, so that "parallel ≡ serial" compares the
/// parallel path and not webpki's serial walk that `rustlsparallel` takes when overlap cannot
/// pay. It changes which path runs, never a verdict.
pub fn force_overlap(on: bool) {
    FORCE_OVERLAP.store(on, Ordering::Relaxed);
}

/// How long [`handshake_started`] keeps a pool worker awake: a loopback or nearby server's
/// Certificate message arrives within it (a distant server's does not, and the worker sleeps
/// again after this much spinning).
pub const PREWARM: std::time::Duration = std::time::Duration::from_millis(3);

/// Tells `rustlsparallel` that a TLS handshake has just started (its ClientHello is on the
/// way): with `CERTBENCH_PREWARM=1`, a pool worker wakes now and spins while the server
/// answers ([`crate::pool::SignaturePool::prewarm`], at most [`PREWARM`]), so that its
/// wake-up overlaps the round trip instead of the verification. Off by default, because on
/// the 2-core machine it was measured on it did not pay where it matters: on the loopback
/// mirror it brought www.washingtonpost.com's verification from ×1.77 to ×1.94 of
/// `rustlsserial`'s and the RSA chains' from ×1.00 to ×1.44, but the spinning worker took the
/// core the server needed, so the whole connection got slower (×1.20 → ×1.14 of
/// `rustlsserial`'s), and `handshake` showed the same handshakes per second for 66 % more
/// client CPU. It may pay with spare cores and a server a millisecond or two away.
pub fn handshake_started() {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("CERTBENCH_PREWARM").is_some_and(|v| v == "1")) {
        crate::pool::SignaturePool::global().prewarm(PREWARM);
    }
}

/// How many verifications in this process handed their checks to the pool (the others took
/// the serial path): lets tests see which path ran.
pub fn overlapped_calls() -> u64 {
    OVERLAPPED.load(Ordering::Relaxed)
}

/// The most signature checks done ahead of webpki's walk. A real server chain has a few (one
/// per certificate, a few more with cross-signs); beyond this the chain is not one a browser
/// meets, and the serial walk, bounded by webpki's own budget, decides it.
pub const MAX_PRECHECKS: usize = 16;

/// The most signature algorithms the cached wrappers are built for (on the stack); a
/// provider offering more takes the serial path. aws-lc-rs offers 12.
const MAX_ALGORITHMS: usize = 32;

/// The candidate checks of one chain, on the stack.
type Checks<'a> = ArrayVec<Check<'a>, MAX_PRECHECKS>;

/// A check no thread has claimed yet.
const PENDING: u8 = 0;
/// A check whose signature verified.
const VALID: u8 = 1;
/// A check whose signature did not verify.
const INVALID: u8 = 2;
/// A check a thread has claimed and is making.
const RUNNING: u8 = 3;

/// The most trust anchors [`relevant_anchors`] hands webpki; a chain whose issuers name more
/// (same-subject decoys, say) is walked against the whole store.
const MAX_ANCHORS: usize = 16;

/// The trust anchors whose subject is the issuer of a certificate of `chain` (the leaf or a
/// sent intermediate), borrowed, in the store's order; `None` (walk the whole store) when a
/// certificate's issuer cannot be read or more than [`MAX_ANCHORS`] anchors match.
///
/// Invariant: webpki's walk over these gives what it gives over the whole store. The walk
/// only considers an anchor whose subject equals the head's issuer byte for byte
/// (`build_chain_inner`), every head is one of these certificates, and an anchor it skips
/// adds `UnknownIssuer`, the least specific error, which never displaces another
/// (`Error::most_specific`) and consumes no budget. So the anchors left out are exactly the
/// ones the walk would have skipped, and the ones kept are met in the same order. rustls-webpki
/// compares subjects by a linear scan of the store per head (briansmith/webpki#38); this is
/// the index the store has ([`ParallelRoots`]), looked up once per certificate.
fn relevant_anchors<'r>(
    chain: &Chain,
    roots: &'r ParallelRoots,
) -> Option<ArrayVec<TrustAnchor<'r>, MAX_ANCHORS>> {
    let mut found: ArrayVec<usize, MAX_ANCHORS> = ArrayVec::new();
    for cert in chain.iter() {
        let issuer = crate::der::issuer(cert)?;
        for &i in roots.by_subject.get(issuer).map_or(&[][..], Vec::as_slice) {
            if !found.contains(&i) {
                found.try_push(i).ok()?;
            }
        }
    }
    found.sort_unstable();
    Some(
        found
            .iter()
            .map(|&i| {
                let a = &roots.anchors[i];
                TrustAnchor {
                    subject: a.subject.as_ref().into(),
                    subject_public_key_info: a.subject_public_key_info.as_ref().into(),
                    name_constraints: a.name_constraints.as_ref().map(|n| n.as_ref().into()),
                }
            })
            .collect(),
    )
}

/// Rough cost of one check in microseconds on this class of machine (aws-lc-rs), from the
/// issuer key's size: an uncompressed EC point of 65 / 97 / 133 bytes is P-256 / P-384 /
/// P-521, 32 bytes Ed25519, anything else RSA (cost growing with the modulus squared).
/// Only the order of magnitude matters: it orders the jobs and decides whether overlapping
/// them can pay for waking a worker.
fn estimated_us(key: &[u8]) -> u32 {
    estimated_us_by_signer(match key.len() {
        65 => Signer::EcdsaP256,
        97 => Signer::EcdsaP384,
        133 => Signer::EcdsaP521,
        32 => Signer::Ed25519,
        n => Signer::Rsa {
            bits: n.saturating_sub(14) * 8,
        },
    })
}

/// How a pool worker meets a job, measured on a 2-vCPU KVM guest: `core/examples/wake.rs`
/// and `cold.rs` (the pool alone), `core/examples/asleep.rs` (whole verifications apart by
/// 0.3–20 ms, the caller idle too), and per-check timings of interleaved `verify` runs with
/// the overlapped path forced (instrumentation not kept); all with the workers kept off the
/// caller's CPU, see `ffi/affinity.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Worker {
    /// Microseconds the offer costs the caller before it starts its own check: the lock, and
    /// the wake-up call when the workers sleep (measured 5 µs after under 0.5 ms of sleep,
    /// 7–8 µs after 1–10 ms, 11–18 µs after 30 ms or more).
    offer_us: u32,
    /// Microseconds from the start of the decision to a worker starting on the job: the
    /// offer and the wake-up itself.
    start_us: u32,
    /// Its speed against the caller's, in percent: a core that slept runs slower for a while
    /// (lower clock, cold caches); a caller that was idle too is as slow.
    speed_pct: u32,
}

/// A worker asleep for [`DEEP_SLEEP`] or more: it starts ~53 µs (p50) after the decision.
/// Against a caller that was idle as long (`asleep.rs`, 20 ms apart) it checked as fast as
/// the caller (×0.95 on RSA-4096), and overlapping an RSA-4096 check with another paid
/// (×1.12–1.29). Against a busy caller it is slower (a P-384 check at ×0.78 after 5–10 ms of
/// sleep, ×0.65 after longer), and the same overlap lost: `verify` with stores built cold
/// per sample (OpenSSL's alone takes ~16 ms, so the worker sleeps deeply while the caller
/// works) put RSA-4096 + RSA-2048 chains at ×0.83–0.87 of `rustlsserial`. So the busy
/// caller's figures are taken, and [`might_pay`] asks of a deeply asleep pool that the
/// costliest check cover the worker's start twice (a P-384 check does, RSA-4096 does not).
const ASLEEP: Worker = Worker {
    offer_us: 11,
    start_us: 60,
    speed_pct: 65,
};

/// A worker asleep for less than [`LIGHT_SLEEP`], as between the methods of an interleaved
/// `verify` run or between the connections of a page: it starts 17–21 µs (p50; p90 25–32)
/// after the decision and checks at ×0.96–1.01 of the caller's speed (RSA-4096 and P-384
/// pairs, forced interleaved runs). The start is taken at the measured p90, so that two
/// RSA-2048 checks (one saved check of 20 µs, against the hand-over's cost) stay serial:
/// overlapping them won and lost by turns (×0.93–1.10) in those runs.
const LIGHT: Worker = Worker {
    offer_us: 6,
    start_us: 25,
    speed_pct: 95,
};

/// A worker asleep for less than [`JUST_ASLEEP`], as between a page's connections that
/// follow each other: it starts 17 µs (p50) after the decision at full speed (forced
/// interleaved runs; `wake.rs`: 12 µs p50 after 0.3 ms). Two RSA-2048 checks pay here
/// (`asleep.rs`, 0.3 ms apart: reddit.com ×1.21 forced, against ×1.05 serial).
const JUST: Worker = Worker {
    offer_us: 5,
    start_us: 18,
    speed_pct: 100,
};

/// Between [`LIGHT`] and [`ASLEEP`]: it starts ~24 µs (p50; p90 37–45) after the decision,
/// at ×0.83–0.95.
const DOZING: Worker = Worker {
    offer_us: 8,
    start_us: 35,
    speed_pct: 85,
};

/// Sleeps shorter than this wake as [`JUST`].
const JUST_ASLEEP: std::time::Duration = std::time::Duration::from_micros(500);
/// Sleeps shorter than this (and not [`JUST`]) wake as [`LIGHT`].
const LIGHT_SLEEP: std::time::Duration = std::time::Duration::from_millis(2);
/// Sleeps this long or longer wake as [`ASLEEP`]; those in between as [`DOZING`].
const DEEP_SLEEP: std::time::Duration = std::time::Duration::from_millis(10);

/// How a worker would meet a job offered now, from how long the pool's workers have slept
/// ([`SignaturePool::asleep_for`]). A verification that comes less than [`JUST_ASLEEP`] after
/// the previous one, itself as close to the one before, is part of a stream (a page's
/// connections, a tight loop; see [`worker_after`]) and meets the pool as [`JUST`] asleep,
/// however long the workers slept: had the previous verifications offered their checks, the
/// workers would be awake, and judging each call by a pool that no call wakes would keep a
/// stream of cheap chains serial for good (criterion's back-to-back
/// loop on an RSA-2048 chain ran at ×1.06 or ×1.83 of `rustlsserial` by whether an earlier
/// benchmark had left the pool awake). The first offer of a stream may find the worker deeply
/// asleep: the caller then makes the checks no worker took itself and loses the offer only.
fn worker_now(pool: &SignaturePool) -> Worker {
    let now = clock_ns();
    let previous = LAST_CALL_NS.swap(now, Ordering::Relaxed);
    let close = previous != 0 && now.saturating_sub(previous) < JUST_ASLEEP.as_nanos() as u64;
    // Calls so far in the stream that each came within JUST_ASLEEP of the one before.
    let streak = if close {
        STREAK.fetch_add(1, Ordering::Relaxed).saturating_add(1)
    } else {
        STREAK.store(0, Ordering::Relaxed);
        0
    };
    if pool.awake() {
        return AWAKE;
    }
    worker_after(pool.asleep_for(), streak)
}

/// [`worker_now`] for workers asleep for `asleep`, on the verification that ends a streak of
/// `streak` calls each within [`JUST_ASLEEP`] of the one before. A stream takes two such
/// calls: one alone is also what interleaving methods over chains gives, when one chain's
/// `rustlsparallel` sample is its run's last and the next chain's is its first, and there
/// treating a pool asleep ~1 ms as just asleep overlapped two RSA-2048 checks at a loss
/// (×0.98 of `rustlsserial` on fastly.com in three interleaved runs of three).
fn worker_after(asleep: std::time::Duration, streak: u32) -> Worker {
    let in_stream = streak >= 2;
    match asleep {
        d if d < JUST_ASLEEP || in_stream => JUST,
        d if d < LIGHT_SLEEP => LIGHT,
        d if d < DEEP_SLEEP => DOZING,
        _ => ASLEEP,
    }
}

/// When the last verification in this process reached [`worker_now`], in [`clock_ns`]
/// nanoseconds (0: none yet).
static LAST_CALL_NS: AtomicU64 = AtomicU64::new(0);

/// How many verifications in a row came within [`JUST_ASLEEP`] of the one before.
static STREAK: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Nanoseconds on the monotonic clock since this process first asked (at least 1).
fn clock_ns() -> u64 {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    EPOCH
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_nanos() as u64
        + 1
}

/// A worker still spinning after the last job: it starts within microseconds, at full speed.
const AWAKE: Worker = Worker {
    offer_us: 1,
    start_us: 2,
    speed_pct: 100,
};

/// The part of webpki's walk that runs before it asks for a signature (parsing, validity,
/// name and key-usage checks, the anchor lookup), in microseconds: the calling thread does it
/// after its own check while a worker makes the next one. What a verification costs beyond
/// its checks is 9 µs on a two-certificate RSA chain and 13–23 µs on the others (`verify`'s
/// bound table: serial less floor); the lower figure is taken.
const WALK_US: u32 = 8;

/// The least gain the cost model must predict to hand jobs to the pool: a margin for its
/// estimates (a check's cost varies by ±10 % with the key and the message).
const MIN_GAIN_US: u32 = 8;

/// [`worth_overlapping`] for worker `w`, read cheaply from the sent certificates'
/// signatures before any path is predicted: each sent certificate on the path costs one check
/// by its issuer's key, whose class the signature's algorithm and size name
/// ([`crate::der::signer`]). Certificates sent off the path (cross-signs) are counted too
/// (github.com sends one: the schedule still pays). Because of those, a chain is not counted
/// at all unless its costliest check and the walk outlast the worker's start by
/// [`MIN_GAIN_US`]: several cheap checks pay only if they are all on the path, and predicting
/// the path to find out cost more than it saved (aws.amazon.com sends four
/// RSA-2048-signed certificates for a path of two checks: ×0.93 of `rustlsserial` in
/// interleaved runs when it went on to predict). A wrong estimate changes only the path
/// taken, never the verdict.
fn might_pay(chain: &Chain, w: Worker) -> bool {
    let mut costs: ArrayVec<u32, { MAX_PRECHECKS + 1 }> = ArrayVec::new();
    for cert in chain.iter() {
        let cost = crate::der::signer(cert).map_or(0, estimated_us_by_signer);
        if costs.try_push(cost).is_err() {
            return false; // more than the pre-checks take: webpki's own walk
        }
    }
    let costliest = costs.iter().copied().max().unwrap_or(0);
    let deeply_asleep = w == ASLEEP;
    costliest + WALK_US >= w.start_us + MIN_GAIN_US
        && (!deeply_asleep || costliest >= 2 * w.start_us)
        && overlap_pays(&costs, w)
}

/// The cost table behind [`estimated_us`], by key class. An unknown algorithm counts as costly
/// (the full decision then looks at the keys themselves).
fn estimated_us_by_signer(signer: Signer) -> u32 {
    match signer {
        Signer::EcdsaP256 => 60,
        Signer::EcdsaP384 => 200,
        Signer::EcdsaP521 => 450,
        Signer::Ed25519 => 50,
        Signer::Rsa { bits } => {
            let bits = bits as u32;
            20 * bits * bits / (2048 * 2048)
        }
        Signer::Other => 1_000,
    }
}

/// Whether running `jobs` (largest first: the calling thread takes it while a worker picks
/// up the next) in parallel can pay, given how worker `w` would meet them ([`overlap_pays`]).
/// Two RSA-2048 checks (20 µs each) pay only awake or just asleep; RSA-4096 or P-384 with
/// anything after any sleep; two P-256 checks unless the pool slept deeply.
fn worth_overlapping(jobs: &[Check<'_>], w: Worker) -> bool {
    let costs: ArrayVec<u32, MAX_PRECHECKS> = jobs.iter().map(|j| estimated_us(j.key)).collect();
    overlap_pays(&costs, w)
}

/// The cost model of [`worth_overlapping`] on estimated check costs (µs), as the overlapped
/// path runs them: the caller takes the largest check (once its offer is made, at full
/// speed) and then walks for [`WALK_US`]; one worker (from `start_us`, at `speed_pct`) takes
/// the next checks in order while it is free before the caller is; the caller makes the ones
/// left when its walk needs them. Overlapping pays when that schedule ends at least
/// [`MIN_GAIN_US`] before the checks and the walk done one after another. One worker, as on
/// two cores (more workers only finish sooner).
fn overlap_pays(costs: &[u32], w: Worker) -> bool {
    if costs.len() < 2 {
        return false;
    }
    let mut sorted: ArrayVec<u32, { MAX_PRECHECKS + 1 }> = ArrayVec::new();
    for &c in costs {
        if sorted.try_push(c).is_err() {
            return false;
        }
    }
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut caller = (w.offer_us + WALK_US).saturating_add(sorted[0]);
    let mut worker = w.start_us;
    for &c in &sorted[1..] {
        if worker <= caller {
            worker = worker.saturating_add(c.saturating_mul(100) / w.speed_pct);
        } else {
            caller = caller.saturating_add(c);
        }
    }
    let serial = sorted.iter().fold(WALK_US, |a, &c| a.saturating_add(c));
    serial.saturating_sub(caller.max(worker)) >= MIN_GAIN_US
}

/// One signature check: `algs[alg]` over (`key`, `msg`, `sig`).
#[derive(Debug)]
struct Check<'a> {
    alg: usize,
    key: &'a [u8],
    msg: &'a [u8],
    sig: &'a [u8],
    /// [`PENDING`] → [`RUNNING`] (claimed by one thread) → [`VALID`] or [`INVALID`].
    state: AtomicU8,
}

impl Check<'_> {
    /// Whether the calling thread may make this check: true for exactly one caller.
    fn claim(&self) -> bool {
        self.state
            .compare_exchange(PENDING, RUNNING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Makes the check (claimed by this thread) with `alg` and publishes its result.
    fn check(&self, alg: &dyn SignatureVerificationAlgorithm) -> Result<(), InvalidSignature> {
        let result = alg.verify_signature(self.key, self.msg, self.sig);
        let state = if result.is_ok() { VALID } else { INVALID };
        self.state.store(state, Ordering::Release);
        result
    }

    /// The result of this check for a thread that needs it now: published, made here if no
    /// thread has claimed it, or awaited from the thread making it. A wait longer than
    /// [`MAX_WAIT`] (a worker descheduled or stopped by a panic) ends in making the check here
    /// too: the same pure function on the same input, so the answer is the same.
    fn result(&self, alg: &dyn SignatureVerificationAlgorithm) -> Result<(), InvalidSignature> {
        self.result_within(alg, MAX_WAIT)
    }

    /// [`Check::result`], waiting at most `max_wait` for another thread's result.
    fn result_within(
        &self,
        alg: &dyn SignatureVerificationAlgorithm,
        max_wait: std::time::Duration,
    ) -> Result<(), InvalidSignature> {
        let mut since = None;
        loop {
            match self.state.load(Ordering::Acquire) {
                VALID => return Ok(()),
                INVALID => return Err(InvalidSignature),
                PENDING if self.claim() => return self.check(alg),
                PENDING => {} // claimed just now by a worker: wait for it below
                _ => {
                    let since = *since.get_or_insert_with(std::time::Instant::now);
                    if since.elapsed() > max_wait {
                        return alg.verify_signature(self.key, self.msg, self.sig);
                    }
                    std::hint::spin_loop();
                }
            }
        }
    }
}

/// The longest the walk waits for a check a worker has under way before it makes the check
/// itself: several times the costliest check a real chain has (RSA-8192, ~1 ms here).
const MAX_WAIT: std::time::Duration = std::time::Duration::from_millis(5);

/// The signature checks of the path webpki's walk will try first (below), each with the
/// algorithm webpki would pick (the first whose signature and public-key algorithm
/// identifiers both match). Checking every candidate instead (each sent certificate against
/// every issuer it could have) did work the walk never asks for — a sent cross-signed root
/// beside the anchor it duplicates, say — and made chains slower than the serial walk. A
/// certificate that does not parse ends the path: webpki will reject or skip it itself.
/// `None` when the path has more than [`MAX_PRECHECKS`] links.
/// Allocates nothing: the parsed certificates and the checks are on the stack.
fn candidate_checks<'a>(
    chain: &'a Chain,
    roots: &'a ParallelRoots,
    algs: &[&dyn SignatureVerificationAlgorithm],
) -> Option<Checks<'a>> {
    if chain.len() > MAX_PRECHECKS + 1 {
        return None; // at least one candidate per certificate that has an issuer here
    }
    let parsed: ArrayVec<Option<SignedParts<'a>>, { MAX_PRECHECKS + 1 }> =
        chain.iter().map(|c| SignedParts::parse(c).ok()).collect();
    let mut checks = Checks::new();
    // Err when there are more candidates than MAX_PRECHECKS.
    let add = |checks: &mut Checks<'a>, child: &SignedParts<'a>, issuer: Spki<'a>| {
        let Some(alg) = algs.iter().position(|a| {
            a.signature_alg_id().as_ref() == child.sig_alg
                && a.public_key_alg_id().as_ref() == issuer.alg
        }) else {
            return Ok(());
        };
        let dup = checks
            .iter()
            .any(|c| c.alg == alg && c.key == issuer.key && c.msg == child.tbs);
        if dup {
            return Ok(());
        }
        checks
            .try_push(Check {
                alg,
                key: issuer.key,
                msg: child.tbs,
                sig: child.signature,
                state: AtomicU8::new(PENDING),
            })
            .map_err(|_| ())
    };
    // The path webpki's walk will try first (rustls-webpki's `build_chain_inner`): from the
    // leaf, a head whose issuer is a trust anchor's subject ends the path at the first such
    // anchor (anchors are tried before intermediates); otherwise the first sent certificate
    // whose subject is the head's issuer, not already on the path, extends it. Its links are
    // the signatures the walk checks when that path is good; anything else it asks (a path
    // that fails, then another) goes to the real algorithm.
    let mut head = parsed.first()?.as_ref()?;
    let mut on_path: ArrayVec<usize, { MAX_PRECHECKS + 1 }> = ArrayVec::new();
    on_path.push(0);
    loop {
        if let Some(&a) = roots.by_subject.get(head.issuer).and_then(|v| v.first()) {
            if let Ok(spki) = Spki::from_contents(&roots.anchors[a].subject_public_key_info) {
                add(&mut checks, head, spki).ok()?;
            }
            break;
        }
        let next = (1..parsed.len()).find(|j| {
            !on_path.contains(j)
                && parsed[*j]
                    .as_ref()
                    .is_some_and(|p| p.subject == head.issuer)
        });
        let Some(j) = next else { break };
        let Some(issuer) = parsed[j].as_ref() else {
            break;
        };
        add(&mut checks, head, issuer.spki).ok()?;
        on_path.try_push(j).ok()?;
        head = issuer;
    }
    // Unstable sort: in place, no buffer.
    checks.sort_unstable_by_key(|c| std::cmp::Reverse(estimated_us(c.key)));
    Some(checks)
}

/// A signature algorithm that answers from pre-checked results, else asks `inner`.
#[derive(Debug)]
struct Cached<'c> {
    inner: &'static dyn SignatureVerificationAlgorithm,
    idx: usize,
    jobs: &'c [Check<'c>],
}

fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && (a.as_ptr() == b.as_ptr() || a == b)
}

impl SignatureVerificationAlgorithm for Cached<'_> {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        let hit = self.jobs.iter().find(|j| {
            j.alg == self.idx
                && same(j.key, public_key)
                && same(j.msg, message)
                && same(j.sig, signature)
        });
        match hit {
            Some(job) => job.result(self.inner),
            None => self.inner.verify_signature(public_key, message, signature),
        }
    }

    fn public_key_alg_id(&self) -> AlgorithmIdentifier {
        self.inner.public_key_alg_id()
    }

    fn signature_alg_id(&self) -> AlgorithmIdentifier {
        self.inner.signature_alg_id()
    }

    fn fips_status(&self) -> FipsStatus {
        self.inner.fips_status()
    }

    fn fips(&self) -> bool {
        self.inner.fips()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::load_chain_dir;

    #[test]
    fn overlap_only_pays_past_the_wake_up_cost() {
        let keys: Vec<Vec<u8>> = [270, 270, 65, 97, 526]
            .iter()
            .map(|&n| vec![0u8; n])
            .collect();
        let check = |k: usize| Check {
            alg: 0,
            key: &keys[k],
            msg: &[],
            sig: &[],
            state: AtomicU8::new(PENDING),
        };
        assert_eq!(estimated_us(&keys[0]), 20, "RSA-2048");
        assert_eq!(estimated_us(&keys[4]), 80, "RSA-4096");
        // Two RSA-2048 checks (20 µs each): asleep the caller is done before a worker starts;
        // awake they overlap (measured 42 µs serially, 27 µs overlapped).
        assert!(!worth_overlapping(&[check(0), check(1)], ASLEEP));
        assert!(worth_overlapping(&[check(0), check(1)], AWAKE));
        // P-384 + P-256: asleep or awake. Two P-384: always. One check: never.
        assert!(worth_overlapping(&[check(3), check(2)], ASLEEP));
        assert!(worth_overlapping(&[check(3), check(2)], AWAKE));
        assert!(worth_overlapping(&[check(3), check(3)], ASLEEP));
        assert!(!worth_overlapping(&[check(3)], AWAKE));
        // P-256 + P-256: only with a worker awake.
        assert!(!worth_overlapping(&[check(2), check(2)], ASLEEP));
        assert!(worth_overlapping(&[check(2), check(2)], AWAKE));
        // RSA-4096 + RSA-2048: the worker's RSA-2048 check ends before the caller's RSA-4096
        // check and its walk, asleep or awake (but the pre-test below keeps RSA-4096 chains
        // serial with the pool deeply asleep). RSA-4096 + RSA-4096: unless deeply asleep.
        assert!(worth_overlapping(&[check(4), check(0)], ASLEEP));
        assert!(worth_overlapping(&[check(4), check(0)], AWAKE));
        assert!(!worth_overlapping(&[check(4), check(4)], ASLEEP));
        assert!(worth_overlapping(&[check(4), check(4)], AWAKE));
        // After a light sleep (between interleaved methods): RSA-4096 pairs and P-256 pairs
        // pay, two RSA-2048 checks do not. Three would (the worker takes one while the
        // caller makes two), but the pre-test below keeps chains of RSA-2048 signatures
        // serial: their paths have two checks however many certificates they send.
        assert!(worth_overlapping(&[check(4), check(4)], LIGHT));
        assert!(worth_overlapping(&[check(4), check(0)], LIGHT));
        assert!(worth_overlapping(&[check(2), check(2)], LIGHT));
        assert!(!worth_overlapping(&[check(0), check(1)], LIGHT));
        // Just asleep (a page's connections one after another): two RSA-2048 checks pay.
        assert!(worth_overlapping(&[check(0), check(1)], JUST));
        // How long the workers slept decides, unless the verifications come as a stream: then
        // the pool is met as just asleep, however deeply it sleeps (no call woke it).
        let us = std::time::Duration::from_micros;
        let start = |asleep: u64, streak: u32| worker_after(us(asleep), streak).start_us;
        assert_eq!(start(100, 0), JUST.start_us);
        assert_eq!(start(1_000, 0), LIGHT.start_us);
        assert_eq!(start(5_000, 0), DOZING.start_us);
        assert_eq!(start(50_000, 0), ASLEEP.start_us);
        assert_eq!(start(1_000, 1), LIGHT.start_us, "two calls close together");
        assert_eq!(start(50_000, 2), JUST.start_us, "a stream");
        assert_eq!(start(5_000, 10), JUST.start_us, "a stream");
        // Dozing: RSA-4096 pairs and RSA-4096 with RSA-2048 pay (deeply asleep, the pre-test
        // below keeps both serial), two RSA-2048 checks do not.
        assert!(worth_overlapping(&[check(4), check(4)], DOZING));
        assert!(worth_overlapping(&[check(4), check(0)], DOZING));
        assert!(!worth_overlapping(&[check(0), check(1)], DOZING));
        // The cheap pre-test agrees on key classes: an RSA-2048 or P-256 signature cannot pay
        // asleep, a P-384 one can; RSA-4096 costs as its key says.
        let by = estimated_us_by_signer;
        assert_eq!(by(Signer::Rsa { bits: 2048 }), estimated_us(&keys[0]));
        assert_eq!(by(Signer::Rsa { bits: 4096 }), estimated_us(&keys[4]));
        assert_eq!(by(Signer::EcdsaP256), estimated_us(&keys[2]));
        assert_eq!(by(Signer::EcdsaP384), estimated_us(&keys[3]));
        // The pre-test on whole corpus chains: github.com (P-384 and P-256 signatures) may pay
        // asleep, reddit.com (two RSA-2048) and twitter.com (RSA-4096 + RSA-2048) may not.
        let dir = |name: &str| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../corpus/real-chains")
                .join(name)
        };
        let pays = |name: &str| might_pay(&load_chain_dir(&dir(name)).unwrap(), ASLEEP);
        assert!(pays("github.com__rustls-bench"));
        assert!(pays("www.washingtonpost.com__rustls-bench"));
        assert!(!pays("reddit.com__rustls-bench"));
        // twitter.com (an RSA-4096 signature and an RSA-2048 one) may pay after a light
        // sleep, not a deep one; aws.amazon.com (four RSA-2048 signatures, a path of two
        // checks) and arstechnica.com (three) may not after a light one.
        let light = |name: &str| might_pay(&load_chain_dir(&dir(name)).unwrap(), LIGHT);
        assert!(light("twitter.com__rustls-bench"));
        assert!(!pays("twitter.com__rustls-bench"));
        assert!(!light("aws.amazon.com__platform-verifier"));
        assert!(!light("arstechnica.com__rustls-bench"));
    }

    #[test]
    fn the_walk_gets_exactly_the_anchors_named_as_an_issuer_in_store_order() {
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/real-chains");
        let mut dirs: Vec<_> = std::fs::read_dir(&base)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("leaf.pem").exists())
            .collect();
        dirs.sort();
        // Every corpus root: a store where most anchors are someone else's.
        let mut all_roots = Vec::new();
        for d in &dirs {
            all_roots.extend(crate::chain::read_pem_certs(&d.join("root.pem")).unwrap());
        }
        let roots = RustlsParallel::new().build_roots(&all_roots).unwrap();
        for d in &dirs {
            let chain = load_chain_dir(d).unwrap();
            let issuers: Vec<&[u8]> = chain
                .iter()
                .map(|c| SignedParts::parse(c).unwrap().issuer)
                .collect();
            let want: Vec<&[u8]> = roots
                .anchors
                .iter()
                .map(|a| a.subject.as_ref())
                .filter(|s| issuers.contains(s))
                .collect();
            let got = relevant_anchors(&chain, &roots).unwrap();
            let got: Vec<&[u8]> = got.iter().map(|a| a.subject.as_ref()).collect();
            assert_eq!(got, want, "{}", d.display());
            assert!(!got.is_empty(), "{}: its own root", d.display());
        }
        // More same-subject anchors than the subset holds: the whole store is walked.
        let reddit = base.join("reddit.com__rustls-bench");
        let root = crate::chain::read_pem_certs(&reddit.join("root.pem")).unwrap();
        let many: Vec<_> = (0..=MAX_ANCHORS).map(|_| root[0].clone()).collect();
        let roots = RustlsParallel::new().build_roots(&many).unwrap();
        assert!(relevant_anchors(&load_chain_dir(&reddit).unwrap(), &roots).is_none());
    }

    #[test]
    fn a_check_is_made_by_one_thread_awaited_by_the_walk_and_made_again_if_abandoned() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/real-chains/reddit.com__rustls-bench");
        let chain = load_chain_dir(&dir).unwrap();
        let root = crate::chain::read_pem_certs(&dir.join("root.pem")).unwrap();
        let roots = RustlsParallel::new().build_roots(&root).unwrap();
        let algs = signature_algorithms();
        let checks = candidate_checks(&chain, &roots, algs).unwrap();
        let job = &checks[0];
        let alg = algs[job.alg];
        // Unclaimed: the walk claims it and makes it; nobody else can claim it after.
        assert!(job.result(alg).is_ok());
        assert_eq!(job.state.load(Ordering::Acquire), VALID);
        assert!(!job.claim());
        // Under way on another thread: the walk waits for that thread's result. Here it
        // publishes "invalid" for a valid signature, so an answer made here instead would
        // show (the wait is long enough for any scheduler to run the other thread).
        let other = &checks[1];
        assert!(other.claim());
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(1));
                other.state.store(INVALID, Ordering::Release);
            });
            let waited = other.result_within(algs[other.alg], std::time::Duration::from_secs(60));
            assert!(waited.is_err(), "the published result, not one made here");
        });
        // Claimed by a worker that never publishes (a panic mid-check): after MAX_WAIT the
        // walk makes the check itself, with the same answer — a bad signature stays bad.
        let mut bad_sig = job.sig.to_vec();
        *bad_sig.last_mut().unwrap() ^= 1;
        for (sig, valid) in [(job.sig, true), (&bad_sig[..], false)] {
            let abandoned = Check {
                alg: job.alg,
                key: job.key,
                msg: job.msg,
                sig,
                state: AtomicU8::new(RUNNING),
            };
            let t = std::time::Instant::now();
            assert_eq!(abandoned.result(alg).is_ok(), valid);
            assert!(t.elapsed() >= MAX_WAIT);
        }
    }

    #[test]
    fn candidates_cover_the_path_of_a_two_certificate_chain() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/real-chains/reddit.com__rustls-bench");
        let chain = load_chain_dir(&dir).unwrap();
        let root = crate::chain::read_pem_certs(&dir.join("root.pem")).unwrap();
        let roots = RustlsParallel::new().build_roots(&root).unwrap();
        let checks = candidate_checks(&chain, &roots, signature_algorithms()).unwrap();
        // leaf ← intermediate, intermediate ← root.
        assert_eq!(checks.len(), 2);
        for c in &checks {
            assert!(
                signature_algorithms()[c.alg]
                    .verify_signature(c.key, c.msg, c.sig)
                    .is_ok()
            );
        }
    }
}
