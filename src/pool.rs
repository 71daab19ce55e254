//! The persistent worker pool `rustlsparallel` checks signatures on.
//!
//! Spawning a thread costs more (~37 µs) than a P-256 signature check, so the pool's threads
//! are started once, on first use, and live for the whole process. Invariants: the pool never
//! starts a thread after it is built ([`threads_started`] stays at [`SignaturePool::workers`]);
//! the calling thread works too, so a call with `n` items uses at most `workers + 1` threads.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

static STARTED: AtomicUsize = AtomicUsize::new(0);
static GLOBAL: OnceLock<SignaturePool> = OnceLock::new();

/// How many pool threads have ever been started in this process.
pub fn threads_started() -> usize {
    STARTED.load(Ordering::SeqCst)
}

/// A fixed set of worker threads.
pub struct SignaturePool {
    pool: rayon::ThreadPool,
    workers: usize,
}

impl SignaturePool {
    /// The process-wide pool: one worker per core but one (the caller is the other), at least one.
    pub fn global() -> &'static SignaturePool {
        GLOBAL.get_or_init(|| {
            let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
            SignaturePool::new(cores.saturating_sub(1).max(1))
        })
    }

    fn new(workers: usize) -> SignaturePool {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("certbench-sig-{i}"))
            .start_handler(|_| {
                STARTED.fetch_add(1, Ordering::SeqCst);
            })
            .build()
            .expect("building the signature pool");
        SignaturePool { pool, workers }
    }

    /// Number of worker threads (the calling thread is not counted).
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Runs `f` on every item, on the pool's workers and the calling thread together, and
    /// returns when all are done. Items are handed out one at a time, so uneven items balance.
    pub fn for_each<T: Sync>(&self, items: &[T], f: impl Fn(&T) + Sync) {
        let next = AtomicUsize::new(0);
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                match items.get(i) {
                    Some(item) => f(item),
                    None => break,
                }
            }
        };
        let helpers = self.workers.min(items.len().saturating_sub(1));
        self.pool.in_place_scope(|s| {
            for _ in 0..helpers {
                s.spawn(|_| work());
            }
            work();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_done_once() {
        let pool = SignaturePool::global();
        let items: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
        pool.for_each(&items, |c| {
            c.fetch_add(1, Ordering::SeqCst);
        });
        assert!(items.iter().all(|c| c.load(Ordering::SeqCst) == 1));
        pool.for_each(&items[..0], |_| unreachable!());
    }
}
