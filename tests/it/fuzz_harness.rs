//! The fuzz target's body on the stable toolchain: every committed seed, and every crash or
//! slow input ever found (`fuzz/regressions/verify_chain/`), passes the harness's invariants.
//! `CERTBENCH_BLESS=1` rewrites the seeds from the bundled corpus.

use std::path::Path;

use certbench::fuzzing::Harness;

fn dir(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

#[test]
fn seeds_are_the_corpus_chains_and_pass_the_harness() {
    let seeds = Harness::seeds();
    assert_eq!(seeds.len(), 34);
    let seed_dir = dir("fuzz/seeds/verify_chain");
    if std::env::var_os("CERTBENCH_BLESS").is_some() {
        std::fs::create_dir_all(&seed_dir).unwrap();
        for (id, bytes) in &seeds {
            std::fs::write(seed_dir.join(id), bytes).unwrap();
        }
    }
    let harness = Harness::new();
    let before = certbench::methods::rustls_parallel::paths_on_this_thread();
    for (id, bytes) in &seeds {
        let committed = std::fs::read(seed_dir.join(id))
            .unwrap_or_else(|e| panic!("seed {id}: {e} (CERTBENCH_BLESS=1 writes the seeds)"));
        assert_eq!(
            &committed, bytes,
            "seed {id} is stale (CERTBENCH_BLESS=1 rewrites it)"
        );
        harness.check(bytes);
    }
    // The harness forces the overlapped path: each seed's rustlsparallel verdict came from it.
    crate::common::assert_overlapped_since(before, seeds.len() as u64, "fuzz seeds");
}

#[test]
fn every_regression_input_passes_the_harness() {
    let harness = Harness::new();
    let mut n = 0;
    for entry in std::fs::read_dir(dir("fuzz/regressions/verify_chain")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            continue;
        }
        harness.check(&std::fs::read(&path).unwrap());
        n += 1;
    }
    assert!(
        n > 0,
        "the regression folder holds at least the hand-made inputs"
    );
}
