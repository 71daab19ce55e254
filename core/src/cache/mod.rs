//! A verification cache a level above the verifier, as a browser keeps one: [`CachingVerifier`]
//! wraps any method and counts what really ran.
//!
//! With [`CachePolicy::Chrome`] it has the semantics of Chrome's `CachingCertVerifier` over
//! its `CoalescingCertVerifier` (`net/cert/caching_cert_verifier.cc`,
//! `coalescing_cert_verifier.cc`):
//! - the key is the chain as sent (every certificate's DER, in order), the peer name and
//!   the flags (EKU, depth, CRLs given); the validation time is not part of the key;
//! - a result, acceptance or rejection alike, is kept for [`CHROME_TTL`] (30 minutes) from
//!   when it was computed, in at most [`CHROME_ENTRIES`] (256) entries; a full cache drops its
//!   expired entries first, then the oldest (as Chrome's `ExpiringCache` does);
//! - a verification identical to one in flight waits for that one's result instead of
//!   running again (coalesced).
//!
//! With [`CachePolicy::Firefox`] every call runs the verifier too: Firefox keeps no cache of
//! whole verification results (`CertVerifier::VerifySSLServerCert` runs on every full
//! handshake). What it keeps across connections is below the verifier: its cache of SCT
//! signature results, which a `--ct` run gives the browser's log set
//! ([`crate::ct::CtLogs::with_signature_cache`], see [`CachePolicy::signature_cache`]; the
//! `firefox` shim keeps it, no other method has one, so for them this policy is `None`).
//!
//! With [`CachePolicy::None`] every call runs the verifier, and is counted.
//!
//! With `--ct` ([`Target::ct`]) the CT check is part of the verification a result is kept for,
//! as in Chrome (CertVerifyProc checks CT, so CachingCertVerifier keeps its outcome): a hit
//! checks no SCT. Every call counts the SCT signatures the verifier checked
//! ([`CacheCounts::sct_checked`]). Likewise with `--revocation` ([`Target::revocation`]): a
//! Chrome hit checks no revocation, as Chrome's cached `CertVerifyResult` holds its CRLSet
//! outcome (the key holds the stapled response, as Chrome's `RequestParams` do; Chrome clears
//! the cache when its CRLSet changes, which no run sees); Firefox's policy checks every time.
//!
//! Invariants: the wrapped verifier's verdict is returned as it gave it (cached or not);
//! a panic inside it is a rejection (fail closed), cached like any rejection; a caller that
//! waits on a coalesced verification whose leader panicked gets that rejection, never an
//! acceptance and never a hang.
//!
//! Files: this one, [`CachingVerifier`] (the key, the entries, coalescing, the counters);
//! [`policy`], the policies, Chrome's limits and [`CacheCounts`].

pub mod policy;

pub use policy::{CHROME_ENTRIES, CHROME_TTL, CacheCounts, CachePolicy};

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use certbench_schema::Stage;
use rustls::client::danger::ServerCertVerifier;
use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::error::Error;
use crate::fail_closed;
use crate::methods::{AnyRoots, DynVerifier};
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, Rejection, Target};

#[derive(Default)]
struct Counters {
    calls: AtomicU64,
    ran: AtomicU64,
    hits: AtomicU64,
    coalesced: AtomicU64,
    call_ns: AtomicU64,
    ran_ns: AtomicU64,
    sct_checked: AtomicU64,
    revocation_checked: AtomicU64,
    revocation_ns: AtomicU64,
    revocation_load_ns: AtomicU64,
}

type Key = Vec<u8>;
type Outcome = Result<(), Rejection>;

#[derive(Default)]
struct State {
    done: HashMap<Key, (Instant, Outcome)>,
    /// Keys in the order their results were stored (oldest first), for eviction.
    order: VecDeque<(Key, Instant)>,
    in_flight: HashSet<Key>,
}

/// A method with a cache above it (see the module docs).
pub struct CachingVerifier {
    inner: Arc<dyn DynVerifier>,
    policy: CachePolicy,
    entries: usize,
    ttl: Duration,
    state: Mutex<State>,
    finished: Condvar,
    counters: Counters,
}

impl CachingVerifier {
    /// `inner` under `policy`, with Chrome's size and lifetime.
    pub fn new(inner: Arc<dyn DynVerifier>, policy: CachePolicy) -> CachingVerifier {
        CachingVerifier::with_limits(inner, policy, CHROME_ENTRIES, CHROME_TTL)
    }

    /// `inner` under `policy`, keeping at most `entries` results for `ttl` each.
    pub fn with_limits(
        inner: Arc<dyn DynVerifier>,
        policy: CachePolicy,
        entries: usize,
        ttl: Duration,
    ) -> CachingVerifier {
        CachingVerifier {
            inner,
            policy,
            entries: entries.max(1),
            ttl,
            state: Mutex::new(State::default()),
            finished: Condvar::new(),
            counters: Counters::default(),
        }
    }

    /// The policy.
    pub fn policy(&self) -> CachePolicy {
        self.policy
    }

    /// What the calls did so far.
    pub fn counts(&self) -> CacheCounts {
        let c = &self.counters;
        CacheCounts {
            calls: c.calls.load(Ordering::SeqCst),
            ran: c.ran.load(Ordering::SeqCst),
            hits: c.hits.load(Ordering::SeqCst),
            coalesced: c.coalesced.load(Ordering::SeqCst),
            call_ns: c.call_ns.load(Ordering::SeqCst),
            ran_ns: c.ran_ns.load(Ordering::SeqCst),
            sct_checked: c.sct_checked.load(Ordering::SeqCst),
            revocation_checked: c.revocation_checked.load(Ordering::SeqCst),
            revocation_ns: c.revocation_ns.load(Ordering::SeqCst),
            revocation_load_ns: c.revocation_load_ns.load(Ordering::SeqCst),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic never happens while the lock is held (the verifier runs outside it).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn run(
        &self,
        roots: &AnyRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Outcome {
        let started = Instant::now();
        // `rec` is this verification's (a transport makes one per call): the CT outcome it
        // holds after the run, and not before, is this run's.
        let ct_before = rec.ct();
        let revocation_before = rec.get(Stage::Revocation).is_some();
        let outcome = fail_closed::verify(|| self.inner.verify(roots, chain, target, rec));
        self.counters
            .ran_ns
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::SeqCst);
        self.counters.ran.fetch_add(1, Ordering::SeqCst);
        if ct_before.is_none()
            && let Some(ct) = rec.ct()
        {
            (self.counters.sct_checked).fetch_add(u64::from(ct.checked), Ordering::SeqCst);
        }
        if !revocation_before && let Some(ns) = rec.get(Stage::Revocation) {
            let c = &self.counters;
            c.revocation_checked.fetch_add(1, Ordering::SeqCst);
            c.revocation_ns.fetch_add(ns, Ordering::SeqCst);
            let load = rec.get(Stage::RevocationLoad).unwrap_or(0);
            c.revocation_load_ns.fetch_add(load, Ordering::SeqCst);
        }
        outcome
    }

    fn cached(
        &self,
        roots: &AnyRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Outcome {
        let key = key(chain, &target);
        let mut state = self.lock();
        let mut waited = false;
        loop {
            if let Some((at, outcome)) = state.done.get(&key) {
                if at.elapsed() < self.ttl {
                    let counter = if waited {
                        &self.counters.coalesced
                    } else {
                        &self.counters.hits
                    };
                    counter.fetch_add(1, Ordering::SeqCst);
                    return outcome.clone();
                }
                state.done.remove(&key);
            }
            if !state.in_flight.contains(&key) {
                break;
            }
            waited = true;
            state = self.finished.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        if waited {
            // The leader's result is gone (evicted at once): run, as Chrome would.
            self.counters.coalesced.fetch_add(1, Ordering::SeqCst);
        }
        state.in_flight.insert(key.clone());
        drop(state);
        let outcome = self.run(roots, chain, target, rec);
        let mut state = self.lock();
        state.in_flight.remove(&key);
        self.store(&mut state, key, outcome.clone());
        drop(state);
        self.finished.notify_all();
        outcome
    }

    /// Stores a result, making room as Chrome's `ExpiringCache` does.
    fn store(&self, state: &mut State, key: Key, outcome: Outcome) {
        let now = Instant::now();
        if state.done.len() >= self.entries && !state.done.contains_key(&key) {
            let ttl = self.ttl;
            state.done.retain(|_, (at, _)| at.elapsed() < ttl);
            while state.done.len() >= self.entries {
                let Some((old, at)) = state.order.pop_front() else {
                    break;
                };
                if state.done.get(&old).is_some_and(|(t, _)| *t == at) {
                    state.done.remove(&old);
                }
            }
        }
        state.done.insert(key.clone(), (now, outcome));
        state.order.push_back((key, now));
        // The order list never outgrows the cache by much: drop entries already replaced.
        if state.order.len() > 2 * self.entries {
            let done = &state.done;
            state
                .order
                .retain(|(k, at)| done.get(k).is_some_and(|(t, _)| t == at));
        }
    }
}

/// The cache key: every certificate (length-prefixed), the peer name and the flags (whether
/// CT is checked, and against which list, among them).
fn key(chain: &Chain, target: &Target<'_>) -> Key {
    let mut k = Vec::with_capacity(chain.iter().map(|c| c.len() + 4).sum::<usize>() + 64);
    let mut put = |bytes: &[u8]| {
        k.extend((bytes.len() as u32).to_be_bytes());
        k.extend(bytes);
    };
    for c in chain.iter() {
        put(c.as_ref());
    }
    put(format!(
        "{:?}|{:?}|{:?}|{}|{:?}",
        target.peer,
        target.eku,
        target.max_depth,
        target.crls.len(),
        target.ct.map(|logs| (&logs.origin, logs.logs().len()))
    )
    .as_bytes());
    // As Chrome's RequestParams: the stapled response is part of the key; the CRLSet is not
    // (Chrome clears the cache when its CRLSet changes, which a run never sees).
    put(format!("{:?}", target.revocation.map(|(m, _)| m)).as_bytes());
    put(target.stapled_ocsp.unwrap_or_default());
    for crl in target.crls {
        put(crl.as_ref());
    }
    k
}

impl DynVerifier for CachingVerifier {
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }

    fn library(&self) -> Library {
        self.inner.library()
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<AnyRoots, Error> {
        self.inner.build_roots(roots)
    }

    fn handshake_started(&self) {
        self.inner.handshake_started()
    }

    fn start_up(&self) {
        self.inner.start_up()
    }

    fn take_start_up_ns(&self) -> Option<u64> {
        self.inner.take_start_up_ns()
    }

    fn prepare_ct(&self, logs: &crate::ct::CtLogs) {
        self.inner.prepare_ct(logs)
    }

    /// Always `None`: a transport must call [`DynVerifier::verify`], through the cache.
    fn rustls_verifier(&self, _roots: &AnyRoots) -> Option<Arc<dyn ServerCertVerifier>> {
        None
    }

    fn verify(
        &self,
        roots: &AnyRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        let started = Instant::now();
        self.counters.calls.fetch_add(1, Ordering::SeqCst);
        let outcome = match self.policy {
            // Firefox: no result cache (its SCT cache, if any, is the log set's).
            CachePolicy::None | CachePolicy::Firefox => self.run(roots, chain, target, rec),
            CachePolicy::Chrome => self.cached(roots, chain, target, rec),
        };
        self.counters
            .call_ns
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::SeqCst);
        outcome
    }
}

#[cfg(test)]
mod tests;
