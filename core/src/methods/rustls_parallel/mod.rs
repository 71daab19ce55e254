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
//! The walk is handed only the trust anchors it could use (`path::relevant_anchors`), found
//! through the store's index by subject, instead of the whole store it would scan per head.
//! Whether overlapping can pay is decided per chain from figures measured in this process
//! (`decide`); with one CPU (no pool workers) it never offers, and costs what
//! `rustlsserial` costs.
//!
//! The parts: this file (the `Verifier` and the verification's flow), `path` (path
//! prediction and the store's index), `check` (the claim/publish protocol and the wrapped
//! algorithms), `decide` (the decision), `measure` (what it measures and keeps), `probe`
//! (what tests see).
//!
//! Invariant: the verdict is exactly `rustlsserial`'s. The wrapped algorithm answers from the
//! cache only for a call with the same algorithm, key, message and signature bytes as a
//! pre-checked triple (the result of the same pure function on the same input); any other call
//! goes to the real algorithm (a predicted path that was wrong costs only the checks made for
//! it). A chain whose path has one signature takes the serial path unchanged (nothing to
//! overlap), and so does a path of more than [`MAX_PRECHECKS`] links: webpki bounds the
//! signatures one verification may check, and work done ahead of the walk must stay bounded
//! too.

mod check;
mod decide;
mod measure;
mod path;
mod probe;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use arrayvec::ArrayVec;
use rustls_pki_types::{CertificateDer, SignatureVerificationAlgorithm};

use super::rustls_serial::{CAPABILITIES, signature_algorithms, trust_anchors, verify_with};
use crate::chain::Chain;
use crate::clock::now_ns;
use crate::error::Error;
use crate::pool::SignaturePool;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, Rejection, Target, Verifier};
use check::{Cached, Check, Timed};
use decide::{Decision, Pre, sample_serial};
use measure::MEASURED;
pub use path::{MAX_PRECHECKS, ParallelRoots};
use path::{candidate_checks, relevant_anchors};
pub use probe::{Paths, force_overlap, overlapped_calls, paths_on_this_thread};

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
            let forced = probe::forced();
            probe::count(forced, Paths::walked);
            // A leaf outside its validity: webpki rejects it before it looks for an issuer or
            // asks for any signature, so neither the anchor subset nor checks made ahead
            // would serve (the caller would make the largest check for nothing).
            // (Not read on one CPU, where nothing is done ahead: that walk costs what
            // `rustlsserial`'s does.)
            let one_cpu = self.pool.workers() == 0 && !forced;
            let valid = forced || one_cpu || valid_at(chain, path.time);
            // Only the anchors webpki's walk could use (see `relevant_anchors`), in their
            // order: the walk then skips the scan of the whole store for every head.
            let subset = valid.then(|| relevant_anchors(chain, roots)).flatten();
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
            // One CPU: no worker to overlap with, and nothing measured or decided.
            if !valid || one_cpu {
                return walk(algs);
            }
            // From the signatures' sizes (three DER headers per certificate) and the figures
            // measured so far, before predicting a path: most chains stop here.
            let decision = Decision::now(self.pool);
            let pre = decision.pre_test(chain);
            if !forced && sample_serial(pre == (Pre::Serial { unmeasured: true })) {
                return timed_walk(algs, &walk);
            }
            let mode = match pre {
                Pre::Try(mode) => Some(mode),
                Pre::Serial { .. } if forced => None,
                Pre::Serial { .. } => return walk(algs),
            };
            // Everything below lives on the stack: no allocation on this path.
            let Some(jobs) = candidate_checks(chain, roots, algs) else {
                probe::count(forced, Paths::too_many);
                return walk(algs);
            };
            let predicted = mode.and_then(|m| decision.confirm(&jobs, m));
            if !(forced || predicted.is_some()) || algs.len() > MAX_ALGORITHMS {
                return walk(algs);
            }
            probe::overlapped_one();
            probe::count(forced, Paths::overlapped);
            overlapped_walk(self.pool, algs, &jobs, &walk, &decision, predicted)
        })?;
        // The SCTs' signatures are independent checks: spread over the pool's workers and
        // this thread (with one CPU, no workers: one after the other).
        crate::ct::check::rustls_stage(algs, chain, &roots.anchors, &target, self.pool, rec)?;
        crate::revocation::rustls_stage(algs, chain, &roots.anchors, &target, rec)
    }

    /// A TLS handshake has just started (its ClientHello is on the
    /// way): with `CERTBENCH_PREWARM=1`, a pool worker wakes now and spins while the server
    /// answers ([`crate::pool::SignaturePool::prewarm`], at most [`PREWARM`]), so that its
    /// wake-up overlaps the round trip instead of the verification. Off by default, because on
    /// the 2-core machine it was measured on it did not pay where it matters: on the loopback
    /// mirror it brought www.washingtonpost.com's verification from ×1.77 to ×1.94 of
    /// `rustlsserial`'s and the RSA chains' from ×1.00 to ×1.44, but the spinning worker took the
    /// core the server needed, so the whole connection got slower (×1.20 → ×1.14 of
    /// `rustlsserial`'s), and `handshake` showed the same handshakes per second for 66 % more
    /// client CPU. It may pay with spare cores and a server a millisecond or two away.
    fn handshake_started(&self) {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if *ON.get_or_init(|| std::env::var_os("CERTBENCH_PREWARM").is_some_and(|v| v == "1")) {
            self.pool.prewarm(PREWARM);
        }
    }
}

/// The overlapped walk (`forced` or predicted to pay): the candidate checks `jobs` go to the
/// pool's workers, largest first, while this thread makes the largest itself and then walks
/// with every finished check's result cached (a check a worker has under way is waited for);
/// what the pool saw and what it took is learnt by `decision` against `predicted`.
fn overlapped_walk<E, W>(
    pool: &SignaturePool,
    algs: &[&'static dyn SignatureVerificationAlgorithm],
    jobs: &[Check<'_>],
    walk: &W,
    decision: &Decision<'_>,
    predicted: Option<u64>,
) -> Result<(), E>
where
    W: Fn(&[&dyn SignatureVerificationAlgorithm]) -> Result<(), E>,
{
    let cached: ArrayVec<Cached<'_>, MAX_ALGORITHMS> = algs
        .iter()
        .enumerate()
        .map(|(idx, &inner)| Cached { inner, idx, jobs })
        .collect();
    let cached: ArrayVec<&dyn SignatureVerificationAlgorithm, MAX_ALGORITHMS> = cached
        .iter()
        .map(|c| c as &dyn SignatureVerificationAlgorithm)
        .collect();
    // The workers take the checks in order (largest first); this thread takes the
    // largest itself, keeps those no worker has taken by then, and walks: the walk does
    // its other work (parsing, validity, constraints) before it asks for a signature,
    // so that work overlaps the workers' checks, and it waits only for a check a
    // worker had under way before the largest was done.
    let for_workers = || {
        for job in jobs {
            if job.claim() {
                let _ = job.check(algs[job.alg], true); // published in its state
            }
        }
    };
    let start = now_ns();
    let (verdict, seen) = pool.run_beside_observed(&for_workers, || {
        if let Some(first) = jobs.first().filter(|j| j.claim()) {
            let _ = first.check(algs[first.alg], false); // published in its state
        }
        // A check no worker has taken by now, this thread keeps: a worker that wakes
        // later would take it just before the walk asks for it, and the walk would
        // wait for its whole check instead of making it at once.
        for job in jobs.iter().skip(1) {
            job.reserve();
        }
        walk(&cached)
    });
    decision.learn(jobs, seen, now_ns() - start, predicted);
    verdict
}

/// Whether `chain`'s leaf is inside its validity at `time` (or its validity does not parse:
/// then webpki decides, and the decision may go on).
fn valid_at(chain: &Chain, time: rustls_pki_types::UnixTime) -> bool {
    crate::der::validity(&chain.leaf)
        .is_none_or(|(not_before, not_after)| (not_before..=not_after).contains(&time.as_secs()))
}

/// webpki's walk over the given algorithms.
type Walk<'w, E> = dyn Fn(&[&dyn SignatureVerificationAlgorithm]) -> Result<(), E> + 'w;

/// webpki's walk with every signature check timed: each check's cost is learnt for its
/// class, and the walk's own work (its time less its checks') when it verifies.
fn timed_walk<E>(
    algs: &[&'static dyn SignatureVerificationAlgorithm],
    walk: &Walk<'_, E>,
) -> Result<(), E> {
    if algs.len() > MAX_ALGORITHMS {
        return walk(algs);
    }
    let spent = AtomicU64::new(0);
    let timed: ArrayVec<Timed<'_>, MAX_ALGORITHMS> = algs
        .iter()
        .map(|&inner| Timed {
            inner,
            spent: &spent,
        })
        .collect();
    let timed: ArrayVec<&dyn SignatureVerificationAlgorithm, MAX_ALGORITHMS> = timed
        .iter()
        .map(|t| t as &dyn SignatureVerificationAlgorithm)
        .collect();
    let start = now_ns();
    let verdict = walk(&timed);
    if verdict.is_ok() {
        let took = now_ns() - start;
        MEASURED.learn_walk(took.saturating_sub(spent.load(Ordering::Relaxed)));
    }
    verdict
}

/// How long [`Verifier::handshake_started`] keeps a pool worker awake: a loopback or nearby server's
/// Certificate message arrives within it (a distant server's does not, and the worker sleeps
/// again after this much spinning).
pub const PREWARM: std::time::Duration = std::time::Duration::from_millis(3);

/// The most signature algorithms the cached wrappers are built for (on the stack); a
/// provider offering more takes the serial path. aws-lc-rs offers 12.
const MAX_ALGORITHMS: usize = 32;
