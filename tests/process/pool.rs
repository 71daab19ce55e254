//! `rustlsparallel` on its pool: it allocates nothing on its hot path beyond what
//! `rustlsserial` does (the candidate checks, the cached algorithms and the hand-off to the
//! pool live on the stack; the counting allocator counts every thread, the pool's workers
//! included), and verifications start no threads.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{corpus, verdict};
use certbench_core::methods::Method;
use certbench_core::methods::rustls_parallel::overlapped_calls;
use certbench_core::pool::{SignaturePool, threads_started};
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;

struct Counting;

static ALLOCS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: delegates to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn the_parallel_path_allocates_no_more_than_the_serial_one() {
    let _alone = crate::alone();
    // The overlapped path, whether or not a worker happens to be awake (on a loaded machine
    // it may not be): that is the path whose allocations this test counts.
    let paths = crate::common::force_overlap();
    let corpus = corpus();
    let serial = Method::RustlsSerial.verifier();
    let parallel = Method::RustlsParallel.verifier();
    let mut overlapped = 0;
    for c in &corpus.chains {
        let sroots = serial.build_roots(&c.roots).unwrap();
        let proots = parallel.build_roots(&c.roots).unwrap();
        let target = Target::server(&c.host, c.validation_time);
        let mut rec = Recorder::new();
        // Warm up: first use builds the pool, the algorithm table and lazy statics.
        for _ in 0..3 {
            let _ = serial.verify(&sroots, &c.chain, target, &mut rec);
            let _ = parallel.verify(&proots, &c.chain, target, &mut rec);
        }
        let count = |f: &mut dyn FnMut()| {
            let before = ALLOCS.load(Ordering::SeqCst);
            f();
            ALLOCS.load(Ordering::SeqCst) - before
        };
        // The counter sees every thread of the process: another one (a runtime of an earlier
        // test winding down) may allocate during one measurement. An allocation of the parallel
        // path itself shows in every try; a stray one does not.
        let (mut p, mut s) = (0, 0);
        let mut overlapped_here = false;
        for _ in 0..3 {
            let mut s_verdict = None;
            s = count(&mut || {
                s_verdict = Some(serial.verify(&sroots, &c.chain, target, &mut Recorder::new()))
            });
            let mut p_verdict = None;
            let before = overlapped_calls();
            p = count(&mut || {
                p_verdict = Some(parallel.verify(&proots, &c.chain, target, &mut Recorder::new()))
            });
            overlapped_here |= overlapped_calls() > before;
            assert_eq!(
                p_verdict.unwrap().map_err(|r| r.reason),
                s_verdict.unwrap().map_err(|r| r.reason),
                "{}",
                c.id
            );
            if p <= s {
                break;
            }
        }
        overlapped += usize::from(overlapped_here);
        assert!(
            p <= s,
            "{}: rustlsparallel made {p} allocations, rustlsserial {s}, in each of three tries",
            c.id
        );
    }
    assert_eq!(
        overlapped,
        corpus.chains.len(),
        "every chain's counted verification took the pool path"
    );
    crate::common::assert_overlapped_since(paths, 4 * corpus.chains.len() as u64, "corpus");
}

fn os_threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

#[test]
fn the_pool_does_not_grow_with_calls() {
    let _alone = crate::alone();
    let corpus = corpus();
    // First use builds the pool.
    for c in &corpus.chains {
        let _ = verdict(Method::RustlsParallel, c);
    }
    let workers = SignaturePool::global().workers();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(workers, certbench_core::pool::workers_for(cpus));
    assert_eq!(threads_started(), workers);
    let before = os_threads();

    for _ in 0..20 {
        for c in &corpus.chains {
            let serial = verdict(Method::RustlsSerial, c);
            assert_eq!(verdict(Method::RustlsParallel, c), serial, "{}", c.id);
        }
    }
    assert_eq!(
        threads_started(),
        workers,
        "no pool thread started per call"
    );
    // (The other test's thread may end meanwhile: fewer threads, never more.)
    assert!(
        os_threads() <= before,
        "no thread of any kind started per call"
    );
}

/// Set in the child [`on_one_cpu_the_pool_has_no_workers_and_nothing_is_offered`] starts.
const ONE_CPU_CHILD: &str = "CERTBENCH_TEST_ONE_CPU_CHILD";

#[test]
fn on_one_cpu_the_pool_has_no_workers_and_nothing_is_offered() {
    if std::env::var_os(ONE_CPU_CHILD).is_some() {
        // The child, under `taskset -c 0`: a process allowed one CPU.
        assert_eq!(std::thread::available_parallelism().unwrap().get(), 1);
        let corpus = corpus();
        for _ in 0..20 {
            for c in &corpus.chains {
                let serial = verdict(Method::RustlsSerial, c);
                assert_eq!(verdict(Method::RustlsParallel, c), serial, "{}", c.id);
            }
        }
        assert_eq!(SignaturePool::global().workers(), 0, "no worker on one CPU");
        assert_eq!(threads_started(), 0);
        assert_eq!(
            overlapped_calls(),
            0,
            "nothing offered to a pool without workers"
        );
        return;
    }
    let _alone = crate::alone();
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new("taskset")
        .args(["-c", "0"])
        .arg(&exe)
        .args([
            "--exact",
            "pool::on_one_cpu_the_pool_has_no_workers_and_nothing_is_offered",
            "--test-threads=1",
        ])
        .env(ONE_CPU_CHILD, "1")
        .output()
        .expect("taskset (util-linux) runs the test binary on one CPU");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("1 passed"),
        "the child ran the test: {stdout}"
    );
}
