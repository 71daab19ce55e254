//! How fast a pool worker computes right after waking: `cargo run --release -p certbench-core
//! --example cold -- [GAP_US]` hands two equal arithmetic loops (no memory traffic) to the pool
//! 200 times, `GAP_US` after the last job, and prints how long each took on the caller and on
//! the worker, against the caller's warm time. Shows what `rustlsparallel`'s decision learns at
//! run time as a worker's slowdown per length of sleep.

use certbench_core::pool::SignaturePool;
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn work(n: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..n {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
    }
    x
}

fn main() {
    let pool = SignaturePool::global();
    let gap: u64 = std::env::args()
        .nth(1)
        .map_or(20_000, |s| s.parse().expect("GAP_US: microseconds"));
    let n: u64 = 300_000;
    let t = Instant::now();
    work(n);
    let warm = t.elapsed().as_micros();
    let items = [n, n];
    let caller = std::thread::current().id();
    let (mut on_worker, mut on_caller) = (vec![], vec![]);
    for _ in 0..200 {
        std::thread::sleep(Duration::from_micros(gap));
        let times: Mutex<Vec<(bool, u128)>> = Mutex::new(vec![]);
        pool.for_each(&items, |&k| {
            let t = Instant::now();
            work(k);
            let mine = std::thread::current().id() == caller;
            times.lock().unwrap().push((mine, t.elapsed().as_micros()));
        });
        for (mine, d) in times.into_inner().unwrap() {
            if mine {
                on_caller.push(d)
            } else {
                on_worker.push(d)
            }
        }
    }
    on_worker.sort();
    on_caller.sort();
    let q = |v: &[u128], p: usize| v.get(v.len() * p / 100).copied().unwrap_or(0);
    println!(
        "gap {gap} µs: warm {warm} µs; on the caller p50 {} µs; on a worker ({} items) p10 {} p50 {} p90 {} µs",
        q(&on_caller, 50),
        on_worker.len(),
        q(&on_worker, 10),
        q(&on_worker, 50),
        q(&on_worker, 90),
    );
}
