//! The claim/publish protocol of one signature check, and the algorithms the walk is handed.
//!
//! A [`Check`] is made by exactly one thread (whoever [`Check::claim`]s it first: a worker, or
//! the caller before it walks or when the walk needs it) and its result published in its
//! state. The walk runs with [`Cached`] algorithms, which answer a call with the very bytes of
//! a pre-checked triple from that check, and send any other call to the real algorithm.
//! [`Timed`] wraps the real algorithms on the serial path when the decision wants the checks
//! timed. Invariant: every answer is the real algorithm's on the same input (a pure
//! function), so the verdict is `rustlsserial`'s whoever made the check.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use rustls_pki_types::{
    AlgorithmIdentifier, FipsStatus, InvalidSignature, SignatureVerificationAlgorithm,
};

use super::measure::{Class, MEASURED};
use crate::clock::now_ns;

/// A check no thread has claimed yet.
pub(super) const PENDING: u8 = 0;
/// A check whose signature verified.
pub(super) const VALID: u8 = 1;
/// A check whose signature did not verify.
pub(super) const INVALID: u8 = 2;
/// A check a thread has claimed and is making.
pub(super) const RUNNING: u8 = 3;
/// A check the calling thread has kept for itself (no worker may claim it): it makes it when
/// the walk asks.
pub(super) const RESERVED: u8 = 4;

/// The longest the walk waits for a check a worker has under way before it makes the check
/// itself: a bound for a worker stopped by a panic, far above any real chain's check.
pub(super) const MAX_WAIT: Duration = Duration::from_millis(5);

/// One signature check: `algs[alg]` over (`key`, `msg`, `sig`).
#[derive(Debug)]
pub(super) struct Check<'a> {
    pub(super) alg: usize,
    /// Its cost class (the key's algorithm and size).
    pub(super) class: Class,
    pub(super) key: &'a [u8],
    pub(super) msg: &'a [u8],
    pub(super) sig: &'a [u8],
    /// [`PENDING`] → [`RUNNING`] (claimed by one thread) → [`VALID`] or [`INVALID`]; or
    /// [`PENDING`] → [`RESERVED`] (kept by the caller) → [`VALID`] or [`INVALID`].
    pub(super) state: AtomicU8,
    /// Nanoseconds the check took on the thread that made it (0: not made, or not published).
    took_ns: AtomicU64,
    /// Whether a pool worker (not the caller) made it.
    by_worker: AtomicBool,
}

/// Who made a check, and how long it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The calling thread, in this many ns.
    ByCaller(u64),
    /// A pool worker, in this many ns.
    ByWorker(u64),
    /// Nobody published it (the walk never needed it, or a worker gave out).
    NotMade,
}

impl<'a> Check<'a> {
    pub(super) fn new(
        alg: usize,
        class: Class,
        key: &'a [u8],
        msg: &'a [u8],
        sig: &'a [u8],
    ) -> Check<'a> {
        Check {
            alg,
            class,
            key,
            msg,
            sig,
            state: AtomicU8::new(PENDING),
            took_ns: AtomicU64::new(0),
            by_worker: AtomicBool::new(false),
        }
    }

    /// Whether the calling thread may make this check: true for exactly one caller.
    pub(super) fn claim(&self) -> bool {
        self.state
            .compare_exchange(PENDING, RUNNING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Keeps this check for the calling thread, if no worker has claimed it: the walk then
    /// makes it when it asks, and never waits for a worker that started late.
    pub(super) fn reserve(&self) -> bool {
        self.state
            .compare_exchange(PENDING, RESERVED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Makes the check (claimed by this thread, a pool worker if `by_worker`) with `alg`,
    /// timed, and publishes its result.
    pub(super) fn check(
        &self,
        alg: &dyn SignatureVerificationAlgorithm,
        by_worker: bool,
    ) -> Result<(), InvalidSignature> {
        let start = now_ns();
        let result = alg.verify_signature(self.key, self.msg, self.sig);
        self.took_ns.store(now_ns() - start, Ordering::Relaxed);
        self.by_worker.store(by_worker, Ordering::Relaxed);
        let state = if result.is_ok() { VALID } else { INVALID };
        self.state.store(state, Ordering::Release);
        result
    }

    /// Who made this check, once the pool is done with the job.
    pub(super) fn outcome(&self) -> Outcome {
        let ns = self.took_ns.load(Ordering::Relaxed);
        match self.state.load(Ordering::Acquire) {
            VALID | INVALID if self.by_worker.load(Ordering::Relaxed) => Outcome::ByWorker(ns),
            VALID | INVALID => Outcome::ByCaller(ns),
            _ => Outcome::NotMade,
        }
    }

    /// The result of this check for a thread that needs it now: published, made here if no
    /// thread has claimed it, or awaited from the thread making it. A wait longer than
    /// [`MAX_WAIT`] (a worker stopped by a panic) ends in making the check here too: the same
    /// pure function on the same input, so the answer is the same.
    pub(super) fn result(
        &self,
        alg: &dyn SignatureVerificationAlgorithm,
    ) -> Result<(), InvalidSignature> {
        self.result_within(alg, MAX_WAIT)
    }

    /// [`Check::result`], waiting at most `max_wait` for another thread's result.
    pub(super) fn result_within(
        &self,
        alg: &dyn SignatureVerificationAlgorithm,
        max_wait: Duration,
    ) -> Result<(), InvalidSignature> {
        let mut since = None;
        loop {
            match self.state.load(Ordering::Acquire) {
                VALID => return Ok(()),
                INVALID => return Err(InvalidSignature),
                PENDING if self.claim() => return self.check(alg, false),
                PENDING => {} // claimed just now by a worker: wait for it below
                // Kept by the caller, the only thread whose walk asks for results.
                RESERVED => return self.check(alg, false),
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

fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && (a.as_ptr() == b.as_ptr() || a == b)
}

/// A signature algorithm that answers from pre-checked results, else asks `inner`.
#[derive(Debug)]
pub(super) struct Cached<'c> {
    pub(super) inner: &'static dyn SignatureVerificationAlgorithm,
    pub(super) idx: usize,
    pub(super) jobs: &'c [Check<'c>],
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

/// A real algorithm whose checks are timed: each one's cost is learnt for its class, and
/// their sum kept in `spent` (ns), so that the walk's own work is the rest.
#[derive(Debug)]
pub(super) struct Timed<'c> {
    pub(super) inner: &'static dyn SignatureVerificationAlgorithm,
    pub(super) spent: &'c AtomicU64,
}

impl SignatureVerificationAlgorithm for Timed<'_> {
    fn verify_signature(
        &self,
        public_key: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), InvalidSignature> {
        let start = now_ns();
        let result = self.inner.verify_signature(public_key, message, signature);
        let took = now_ns() - start;
        self.spent.fetch_add(took, Ordering::Relaxed);
        MEASURED.learn_cost(
            Class::of_key(self.inner.public_key_alg_id(), public_key),
            took,
        );
        result
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
    use crate::methods::rustls_parallel::RustlsParallel;
    use crate::methods::rustls_parallel::path::candidate_checks;
    use crate::methods::rustls_serial::signature_algorithms;
    use crate::verifier::Verifier;

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
        assert!(matches!(job.outcome(), Outcome::ByCaller(_)), "made here");
        assert_eq!(job.state.load(Ordering::Acquire), VALID);
        assert!(!job.claim());
        // Kept by the caller: no worker can claim it, and the walk makes it here at once.
        let kept = Check::new(job.alg, job.class, job.key, job.msg, job.sig);
        assert!(kept.reserve());
        assert!(!kept.claim(), "a worker cannot take a kept check");
        assert!(kept.result(alg).is_ok());
        assert!(matches!(kept.outcome(), Outcome::ByCaller(_)));
        // Claimed by a worker first: the caller cannot keep it.
        let taken = Check::new(job.alg, job.class, job.key, job.msg, job.sig);
        assert!(taken.claim());
        assert!(!taken.reserve());
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
            let abandoned = Check::new(job.alg, job.class, job.key, job.msg, sig);
            abandoned.state.store(RUNNING, Ordering::Relaxed);
            let t = std::time::Instant::now();
            assert_eq!(abandoned.result(alg).is_ok(), valid);
            assert!(t.elapsed() >= MAX_WAIT);
        }
    }
}
