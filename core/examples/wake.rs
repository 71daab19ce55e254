//! How the signature pool meets a job after sleeping: `cargo run --release -p certbench-core
//! --example wake -- [GAP_US]` hands a 250 µs and an 80 µs item (busy loops) to the pool 300
//! times, `GAP_US` after the last job (default 20,000: the workers asleep), and prints the
//! pair's time (one after the other: 330 µs), when a worker started its item, how often none
//! did, and how often the worker ran on the caller's CPU. Measures `ffi/affinity.rs` and what
//! `rustlsparallel`'s decision learns at run time as a worker's start per length of sleep.

use certbench_core::pool::SignaturePool;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

static ON_CALLER_CPU: AtomicUsize = AtomicUsize::new(0);
static CALLER_CPU: AtomicI32 = AtomicI32::new(-1);

fn busy(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

fn cpu() -> i32 {
    // SAFETY: sched_getcpu has no preconditions.
    unsafe { libc::sched_getcpu() }
}

fn main() {
    let pool = SignaturePool::global();
    let gap: u64 = std::env::args()
        .nth(1)
        .map_or(20_000, |s| s.parse().expect("GAP_US: microseconds"));
    let items = [Duration::from_micros(250), Duration::from_micros(80)];
    let caller = std::thread::current().id();
    let mut totals = vec![];
    let mut starts = vec![];
    for _ in 0..300 {
        std::thread::sleep(Duration::from_micros(gap));
        let worker_start: Mutex<Option<Instant>> = Mutex::new(None);
        CALLER_CPU.store(cpu(), Ordering::Relaxed);
        let t0 = Instant::now();
        pool.for_each(&items, |d| {
            if std::thread::current().id() != caller {
                *worker_start.lock().unwrap() = Some(Instant::now());
                if cpu() == CALLER_CPU.load(Ordering::Relaxed) {
                    ON_CALLER_CPU.fetch_add(1, Ordering::Relaxed);
                }
            }
            busy(*d)
        });
        totals.push(t0.elapsed().as_micros() as u64);
        let start = worker_start.into_inner().unwrap();
        starts.push(start.map(|w| (w - t0).as_micros() as u64));
    }
    totals.sort();
    let mut started: Vec<u64> = starts.iter().flatten().copied().collect();
    started.sort();
    let q = |v: &[u64], p: usize| v.get(v.len() * p / 100).copied().unwrap_or(0);
    println!(
        "gap {gap} µs: pair p10 {} p50 {} p90 {} µs (serially 330); a worker started after p10 {} p50 {} p90 {} µs, \
         in {} of 300 calls ({} on the caller's CPU)",
        q(&totals, 10),
        q(&totals, 50),
        q(&totals, 90),
        q(&started, 10),
        q(&started, 50),
        q(&started, 90),
        started.len(),
        ON_CALLER_CPU.load(Ordering::Relaxed),
    );
}
