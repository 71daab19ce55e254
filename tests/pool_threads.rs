//! `rustlsparallel` runs on a persistent pool: verifications start no threads.
//! (Its own test binary, with one test, so nothing else starts threads meanwhile.)

mod common;

use certbench::Method;
use certbench::pool::{SignaturePool, threads_started};
use common::{corpus, verdict};

fn os_threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

#[test]
fn the_pool_does_not_grow_with_calls() {
    let corpus = corpus();
    // First use builds the pool.
    for c in &corpus.chains {
        let _ = verdict(Method::RustlsParallel, c);
    }
    let workers = SignaturePool::global().workers();
    assert!(workers >= 1);
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
    assert_eq!(
        os_threads(),
        before,
        "no thread of any kind started per call"
    );
}
