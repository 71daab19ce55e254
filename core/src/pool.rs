//! The persistent worker pool `rustlsparallel` checks signatures on.
//!
//! Spawning a thread costs more (~37 µs) than a P-256 signature check, so the pool's threads
//! are started once, on first use, and live for the whole process. A general-purpose pool
//! (rayon) boxes every spawned job and lets idle workers fall asleep within microseconds, so
//! each verification pays an allocation and a futex wake-up (tens of µs on a VM). This pool
//! is built for one job shape — "run this closure on a few threads, and wait" — and so:
//!
//! - hands a job over as a pointer to the caller's stack (no allocation per call);
//! - keeps finished workers spinning for [`SPIN`] before they sleep, so back-to-back
//!   verifications (a page's many connections) reach an awake worker;
//! - lets the calling thread work too, so a call uses at most `workers + 1` threads;
//! - wakes sleeping workers off the caller's CPU (`ffi/affinity.rs`): Linux otherwise tends to
//!   wake a worker on the very CPU of the thread it is meant to help.
//!
//! Invariants: the pool never starts a thread after it is built ([`threads_started`] stays at
//! [`SignaturePool::workers`]); [`SignaturePool::run`] does not return (or unwind) while a
//! worker may still touch its job; one job runs at a time, and a caller that finds the pool
//! busy runs its job alone (never waits for another caller's job); a panic in a worker's share
//! of a job is contained there (the job's items it did not finish stay undone — callers must
//! treat an undone item as "not checked").

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::clock::now_ns;
use crate::ffi::affinity::Placement;

static STARTED: AtomicUsize = AtomicUsize::new(0);
static GLOBAL: OnceLock<SignaturePool> = OnceLock::new();

/// How long a worker that finished a job keeps looking for the next before it sleeps.
pub const SPIN: Duration = Duration::from_micros(50);

/// How long a caller spins for its workers to finish before it sleeps in short steps.
const WAIT_SPIN: Duration = Duration::from_millis(2);

/// How many pool threads have ever been started in this process.
pub fn threads_started() -> usize {
    STARTED.load(Ordering::SeqCst)
}

/// A job as the workers see it: a pointer to a closure on the caller's stack and the function
/// that calls it.
#[derive(Clone, Copy)]
struct JobRef {
    data: *const (),
    call: unsafe fn(*const ()),
}

// SAFETY: a JobRef is only built from a `&F` with `F: Fn() + Sync` (see `JobRef::new`), so
// calling it from another thread is sharing `&F`, which `Sync` allows; `run` keeps the
// closure alive until no worker holds the JobRef.
unsafe impl Send for JobRef {}

impl JobRef {
    fn new<F: Fn() + Sync>(f: &F) -> JobRef {
        unsafe fn call<F: Fn()>(data: *const ()) {
            // SAFETY: `data` came from `&F` in `JobRef::new`, and the caller of `run` keeps
            // that borrow alive while any worker holds this JobRef.
            unsafe { (*(data as *const F))() }
        }
        JobRef {
            data: f as *const F as *const (),
            call: call::<F>,
        }
    }
}

/// What the workers and the caller share, under one lock.
struct Slot {
    /// The job on offer, if any.
    job: Option<JobRef>,
    /// Workers asleep on `wake`.
    sleeping: usize,
}

struct Shared {
    slot: Mutex<Slot>,
    /// Bumped (under the lock) each time a job is offered; spinning workers watch it.
    generation: AtomicU64,
    /// Workers spinning right now (a job offered now starts without a wake-up).
    spinning: AtomicUsize,
    /// Workers running their share of the current job. Goes up only under the lock and
    /// while the job is on offer; the caller spins on it (a worker's share is one signature
    /// check, shorter than a sleep and wake-up).
    active: AtomicUsize,
    /// Workers sleep here.
    wake: Condvar,
    /// Where the workers may run: off the CPU of the caller that wakes them.
    placement: Placement,
    /// [`now_ns`] until which workers keep spinning for a job ([`SignaturePool::prewarm`]);
    /// 0: no such request.
    warm_until: AtomicU64,
    /// [`now_ns`] when a worker last stopped spinning to sleep ([`SignaturePool::asleep_for`]).
    asleep_since: AtomicU64,
    /// [`now_ns`] when a worker first took the job on offer (set under the lock as it takes
    /// it; reset to 0 when a job is offered): what [`Offered::started`] reports.
    taken_at: AtomicU64,
}

impl Shared {
    /// Whether a prewarm asks the workers to be awake now.
    fn warm(&self) -> bool {
        self.warm_until.load(Ordering::Relaxed) > now_ns()
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Slot> {
        // Nothing panics while holding the lock; recover anyway rather than poison the pool.
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A fixed set of worker threads.
pub struct SignaturePool {
    shared: &'static Shared,
    workers: usize,
}

/// What the pool saw of one job it offered ([`SignaturePool::run_beside_observed`]): the
/// figures `rustlsparallel`'s decision learns a machine's workers from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offered {
    /// What the offer cost the caller before it went on with its own work: the lock, and the
    /// wake-up call when the workers slept.
    pub offer: Duration,
    /// How long after the offer began a worker took the job up; `None`: none did before the
    /// caller withdrew it (then it would have started after [`Offered::withdrawn`], if ever).
    pub started: Option<Duration>,
    /// How long after the offer began the caller withdrew the job (its own work done).
    pub withdrawn: Duration,
}

/// How many workers the process-wide pool starts for `cpus` usable CPUs: one per CPU but
/// the caller's. None on a single CPU (`taskset -c 0`, a container limited to one CPU): a
/// worker there could only take turns with the caller it is meant to help.
pub fn workers_for(cpus: usize) -> usize {
    cpus.saturating_sub(1)
}

impl SignaturePool {
    /// The process-wide pool, with [`workers_for`] the CPUs this process may use now
    /// (`available_parallelism`: its CPU affinity and its cgroup's CPU quota). With no
    /// workers every job runs on its caller alone.
    pub fn global() -> &'static SignaturePool {
        GLOBAL.get_or_init(|| {
            let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
            SignaturePool::new(workers_for(cpus))
        })
    }

    /// Builds the process-wide pool with `workers` threads (0: the caller runs every job
    /// alone), if it is not built yet; returns whether this call built it. For instruction
    /// counts (`certbench icount`), where which thread runs a check, and when, is the
    /// scheduler's and must not change the count.
    pub fn init_global(workers: usize) -> bool {
        let mut built = false;
        GLOBAL.get_or_init(|| {
            built = true;
            SignaturePool::new(workers)
        });
        built
    }

    fn new(workers: usize) -> SignaturePool {
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            slot: Mutex::new(Slot {
                job: None,
                sleeping: 0,
            }),
            generation: AtomicU64::new(0),
            spinning: AtomicUsize::new(0),
            active: AtomicUsize::new(0),
            wake: Condvar::new(),
            placement: Placement::new(),
            warm_until: AtomicU64::new(0),
            asleep_since: AtomicU64::new(0),
            taken_at: AtomicU64::new(0),
        }));
        for i in 0..workers {
            // The generation a worker has seen is taken now, not when its thread starts: a
            // job offered before the thread runs (the pool's first job) bumps the generation,
            // and a worker that read it only then would take that job as already seen and
            // leave it to the caller.
            let seen = shared.generation.load(Ordering::Acquire);
            std::thread::Builder::new()
                .name(format!("certbench-sig-{i}"))
                .spawn(move || worker(shared, seen))
                .expect("starting a signature pool thread");
            STARTED.fetch_add(1, Ordering::SeqCst);
        }
        SignaturePool { shared, workers }
    }

    /// Whether a worker is spinning now, so that a job offered now starts within about a
    /// microsecond instead of after a wake-up. A hint: it may change right after.
    pub fn awake(&self) -> bool {
        self.shared.spinning.load(Ordering::Relaxed) > 0
    }

    /// How long the workers have been asleep (since the last one stopped spinning); zero while
    /// one is awake. How fast a sleeping worker starts on a job depends on it (a CPU idle for
    /// longer sleeps deeper, in the host too: `core/examples/wake.rs GAP_US` shows it on a
    /// machine), which is why `rustlsparallel` learns its workers' start per length of sleep.
    pub fn asleep_for(&self) -> Duration {
        if self.awake() {
            return Duration::ZERO;
        }
        let since = self.shared.asleep_since.load(Ordering::Relaxed);
        Duration::from_nanos(now_ns().saturating_sub(since))
    }

    /// Asks the workers to be awake for the next `budget`: a sleeping worker is woken now (off
    /// the caller's CPU) and every worker spins until a job comes or the budget is spent, then
    /// sleeps again. For a caller that knows a verification is coming — a TLS client that has
    /// just sent its ClientHello — so that the worker's wake-up (tens of µs on a VM, and a
    /// cold core) overlaps the network round trip instead of the verification. It costs up to
    /// `budget` of one core's time per call when no job comes.
    pub fn prewarm(&self, budget: Duration) {
        let shared = self.shared;
        if self.workers == 0 {
            return;
        }
        let until = now_ns() + budget.as_nanos() as u64;
        shared.warm_until.fetch_max(until, Ordering::Relaxed);
        if self.awake() {
            return; // a spinning worker reads the new deadline
        }
        let slot = shared.lock();
        if slot.sleeping > 0 {
            shared.placement.keep_off_current_cpu();
            shared.wake.notify_all();
        }
    }

    /// Number of worker threads (the calling thread is not counted).
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Runs `f` on the calling thread and on every worker that picks the job up in time, and
    /// returns when all of them are done with it. `f` must share its work out itself (e.g. an
    /// atomic index) and must be correct however many threads run it, one included.
    pub fn run<F: Fn() + Sync>(&self, f: &F) {
        self.run_beside(f, f)
    }

    /// Offers `f` to the workers while the calling thread runs `caller` (not `f`), and returns
    /// `caller`'s result once every worker that took `f` up is done with it. `caller` must not
    /// count on any worker running `f` (a busy or asleep pool may leave all of it to the
    /// caller): typically it claims what `f` would do item by item and does the unclaimed
    /// items itself, so that the caller goes on with its own work while the workers help. When
    /// another caller's job holds the pool, `caller` runs alone.
    pub fn run_beside<F: Fn() + Sync, R>(&self, f: &F, caller: impl FnOnce() -> R) -> R {
        self.run_beside_observed(f, caller).0
    }

    /// [`SignaturePool::run_beside`], with what the pool saw of the offer: `None` when nothing
    /// was offered (no workers, or another caller's job holds the pool: `caller` ran alone).
    pub fn run_beside_observed<F: Fn() + Sync, R>(
        &self,
        f: &F,
        caller: impl FnOnce() -> R,
    ) -> (R, Option<Offered>) {
        let shared = self.shared;
        if self.workers == 0 {
            return (caller(), None);
        }
        let begun = now_ns();
        {
            let mut slot = shared.lock();
            if slot.job.is_some() || shared.active.load(Ordering::Acquire) > 0 {
                drop(slot);
                return (caller(), None); // another caller's job is running: do this one alone
            }
            slot.job = Some(JobRef::new(f));
            shared.taken_at.store(0, Ordering::Relaxed);
            shared.generation.fetch_add(1, Ordering::Release);
            if slot.sleeping > 0 {
                // A sleeping worker woken on this thread's CPU would wait behind it.
                shared.placement.keep_off_current_cpu();
                shared.wake.notify_all();
            }
        }
        let offered = now_ns();
        // Withdraws the job and waits for the workers even if `caller` panics below, so no
        // worker can call `f` after this function leaves.
        struct Withdraw {
            shared: &'static Shared,
            /// [`now_ns`] when the job was withdrawn; 0: not yet.
            at: u64,
        }
        impl Withdraw {
            fn withdraw(&mut self) {
                if self.at != 0 {
                    return;
                }
                let shared = self.shared;
                shared.lock().job = None; // from here on no worker takes it up
                self.at = now_ns();
                let spin_until = Instant::now() + WAIT_SPIN;
                while shared.active.load(Ordering::Acquire) > 0 {
                    if Instant::now() < spin_until {
                        std::hint::spin_loop();
                    } else {
                        // A worker was descheduled mid-check: stop burning the core.
                        std::thread::sleep(Duration::from_micros(20));
                    }
                }
            }
        }
        impl Drop for Withdraw {
            fn drop(&mut self) {
                self.withdraw();
            }
        }
        let mut withdraw = Withdraw { shared, at: 0 };
        let result = caller();
        withdraw.withdraw();
        // Set under the lock by the worker that took the job, before `active` went up; read
        // after every worker is done with it.
        let taken = shared.taken_at.load(Ordering::Relaxed);
        let since = |t: u64| Duration::from_nanos(t.saturating_sub(begun));
        let seen = Offered {
            offer: since(offered),
            started: (taken != 0).then(|| since(taken)),
            withdrawn: since(withdraw.at),
        };
        (result, Some(seen))
    }

    /// Runs `f` on every item, on the pool's workers and the calling thread together, and
    /// returns when all are done. Items are handed out one at a time, in order, so put the
    /// largest first. Allocates nothing.
    pub fn for_each<T: Sync>(&self, items: &[T], f: impl Fn(&T) + Sync) {
        let next = AtomicUsize::new(0);
        let work = || {
            while let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) {
                f(item);
            }
        };
        if items.len() < 2 {
            work();
        } else {
            self.run(&work);
        }
    }
}

/// A worker's life: take the job on offer, run it, spin a while for the next, then sleep.
fn worker(shared: &'static Shared, mut seen: u64) {
    shared.placement.register_this_thread();
    loop {
        // Spin: a job offered now is picked up without a wake-up. A prewarm extends the spin.
        let spin_until = Instant::now() + SPIN;
        shared.spinning.fetch_add(1, Ordering::Relaxed);
        while shared.generation.load(Ordering::Acquire) == seen
            && (Instant::now() < spin_until || shared.warm())
        {
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        }
        shared.spinning.fetch_sub(1, Ordering::Relaxed);
        shared.asleep_since.store(now_ns(), Ordering::Relaxed);
        let mut slot = shared.lock();
        // Sleep until a new generation or a prewarm (checked under the lock: no lost wake-up).
        while shared.generation.load(Ordering::Acquire) == seen && !shared.warm() {
            slot.sleeping += 1;
            slot = shared.wake.wait(slot).unwrap_or_else(|e| e.into_inner());
            slot.sleeping -= 1;
        }
        if shared.generation.load(Ordering::Acquire) == seen {
            continue; // woken to spin for a job that is coming
        }
        seen = shared.generation.load(Ordering::Acquire);
        let Some(job) = slot.job else { continue }; // already withdrawn
        let _ = shared
            .taken_at
            .compare_exchange(0, now_ns(), Ordering::Relaxed, Ordering::Relaxed);
        shared.active.fetch_add(1, Ordering::AcqRel);
        drop(slot);
        // SAFETY: `job` was on offer under the lock when `active` went up; `run` does not
        // leave until `active` is back to zero, so the closure behind it is alive.
        let _ = catch_unwind(AssertUnwindSafe(|| unsafe { (job.call)(job.data) }));
        shared.active.fetch_sub(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prewarmed_worker_wakes_spins_for_its_budget_then_sleeps() {
        // A pool of its own (one worker), so other tests' jobs do not keep it awake.
        let pool = SignaturePool::new(1);
        let asleep = |pool: &SignaturePool| {
            let t = Instant::now();
            while pool.awake() || pool.shared.lock().sleeping == 0 {
                assert!(
                    t.elapsed() < Duration::from_secs(5),
                    "the worker never slept"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        asleep(&pool);
        pool.prewarm(Duration::from_millis(200));
        let t = Instant::now();
        while !pool.awake() {
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "prewarm woke no worker"
            );
            std::thread::yield_now();
        }
        // Still spinning well inside the budget (no job came), asleep again after it.
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            pool.awake(),
            "the worker stopped spinning before its budget"
        );
        asleep(&pool);
        assert!(
            t.elapsed() >= Duration::from_millis(150),
            "{:?}",
            t.elapsed()
        );
        // A job offered while warm is still done, all of it.
        pool.prewarm(Duration::from_millis(20));
        let items: Vec<AtomicUsize> = (0..10).map(|_| AtomicUsize::new(0)).collect();
        pool.for_each(&items, |c| {
            c.fetch_add(1, Ordering::SeqCst);
        });
        assert!(items.iter().all(|c| c.load(Ordering::SeqCst) == 1));
    }

    #[test]
    fn run_beside_offers_the_job_while_the_caller_does_its_own_and_waits_for_it() {
        let pool = SignaturePool::new(1);
        let (taken, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let for_workers = || {
            taken.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
            finished.fetch_add(1, Ordering::SeqCst);
        };
        let answer = pool.run_beside(&for_workers, || {
            // The caller does not run `for_workers`; it waits (bounded) for the worker to.
            let t = Instant::now();
            while taken.load(Ordering::SeqCst) == 0 && t.elapsed() < Duration::from_secs(5) {
                std::thread::yield_now();
            }
            42
        });
        assert_eq!(answer, 42);
        assert_eq!(taken.load(Ordering::SeqCst), 1, "the worker took the job");
        assert_eq!(
            finished.load(Ordering::SeqCst),
            1,
            "run_beside returned only after the worker was done with it"
        );
    }

    #[test]
    fn every_item_is_done_once() {
        let pool = SignaturePool::global();
        let items: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
        for _ in 0..50 {
            pool.for_each(&items, |c| {
                c.fetch_add(1, Ordering::SeqCst);
            });
        }
        assert!(items.iter().all(|c| c.load(Ordering::SeqCst) == 50));
        pool.for_each(&items[..0], |_| unreachable!());
    }

    #[test]
    fn concurrent_callers_each_get_all_their_items_done() {
        let pool = SignaturePool::global();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..200 {
                        let items: Vec<AtomicUsize> = (0..8).map(|_| AtomicUsize::new(0)).collect();
                        pool.for_each(&items, |c| {
                            c.fetch_add(1, Ordering::SeqCst);
                        });
                        assert!(items.iter().all(|c| c.load(Ordering::SeqCst) == 1));
                    }
                });
            }
        });
    }

    #[test]
    fn a_panicking_job_is_contained_and_the_pool_goes_on() {
        let pool = SignaturePool::global();
        let items: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        let caller = std::thread::current().id();
        let panics = AtomicUsize::new(0);
        // Items taken by a worker panic; the caller's own finish. The caller's first item
        // waits (bounded) until a worker has taken one, so a panic really is injected.
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            pool.for_each(&items, |c| {
                if std::thread::current().id() != caller {
                    panics.fetch_add(1, Ordering::SeqCst);
                    panic!("injected");
                }
                let until = Instant::now() + Duration::from_secs(5);
                while panics.load(Ordering::SeqCst) == 0 && Instant::now() < until {
                    std::hint::spin_loop();
                }
                c.fetch_add(1, Ordering::SeqCst);
            })
        }));
        assert!(
            outcome.is_ok(),
            "a worker's panic does not reach the caller"
        );
        assert!(
            panics.load(Ordering::SeqCst) >= 1,
            "no worker took an item: no panic was injected"
        );
        let done = items
            .iter()
            .filter(|c| c.load(Ordering::SeqCst) == 1)
            .count();
        assert_eq!(
            done + panics.load(Ordering::SeqCst),
            items.len(),
            "the panicking worker's items stay undone, the others are done once"
        );
        let after: Vec<AtomicUsize> = (0..16).map(|_| AtomicUsize::new(0)).collect();
        pool.for_each(&after, |c| {
            c.fetch_add(1, Ordering::SeqCst);
        });
        assert!(after.iter().all(|c| c.load(Ordering::SeqCst) == 1));
    }
}
