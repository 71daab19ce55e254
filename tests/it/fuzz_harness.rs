//! The fuzz target's body on the stable toolchain: every committed seed, and every crash or
//! slow input ever found (`fuzz/regressions/verify_chain/`), passes the harness's invariants.
//! `CERTBENCH_BLESS=1` rewrites the seeds from the bundled corpus.

use std::path::Path;

use certbench_core::fuzzing::Harness;

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
    let before = certbench_core::methods::rustls_parallel::paths_on_this_thread();
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
    // The same chains with the selector's high bit: verified with CT too (every method's SCT
    // parsing and policy; rustlsparallel's verdict still rustlsserial's).
    for (_, bytes) in &seeds {
        let mut with_ct = bytes.clone();
        with_ct[0] |= 0x80;
        harness.check(&with_ct);
        // A leaf whose SCT list is cut short (its signature then fails too: a hostile leaf).
        let (_, certs) = certbench_core::fuzzing::decode(&with_ct);
        let mut leaf = certs[0].to_vec();
        if let Some(at) = leaf.windows(3).position(|w| w == [0x02, 0x04, 0x02]) {
            leaf.truncate(at + 40);
            let mut all: Vec<&[u8]> = vec![&leaf];
            all.extend(&certs[1..]);
            harness.check(&certbench_core::fuzzing::encode(with_ct[0], &all));
        }
    }
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

/// The chains whose post-quantum twins are fuzz seeds: one of each key shape of the corpus
/// (RSA, ECDSA P-256/P-384, mixed, a v1 root, a cross-sign).
const TWINNED: [&str; 6] = [
    "reddit.com__rustls-bench",
    "github.com__rustls-bench",
    "www.google.com__rustls-bench",
    "netflix.com__webpki-tests",
    "bing.com__limbo-online",
    "udctest.ads.vt.edu__go-x509",
];

/// The seeds that are post-quantum twins: `<chain id>__<profile>`.
fn twin_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir("fuzz/seeds/verify_chain")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if certbench::pq::Profile::PQ
            .iter()
            .any(|p| name.ends_with(&format!("__{p}")))
        {
            let bytes = std::fs::read(dir("fuzz/seeds/verify_chain").join(&name)).unwrap();
            out.push((name, bytes));
        }
    }
    out.sort();
    out
}

/// `CERTBENCH_BLESS=1`: the twins of [`TWINNED`] under every profile as seeds, and their
/// roots in `corpus/pq-twins/roots.pem` (fresh keys: only a bless rewrites them).
fn bless_twins() {
    use certbench::certs::twin::twins;
    use certbench::pq::Profile;
    let corpus = crate::common::corpus();
    let mut roots = String::new();
    for &profile in Profile::PQ {
        let made = twins(&corpus, profile);
        for id in TWINNED {
            let i = corpus.chains.iter().position(|c| c.id == id).unwrap();
            let twin = made.chains.iter().find(|c| c.id == id).unwrap();
            let certs: Vec<&[u8]> = twin.chain.iter().map(|c| c.as_ref()).collect();
            let seed = certbench_core::fuzzing::encode(i as u8, &certs);
            let path = dir("fuzz/seeds/verify_chain").join(format!("{id}__{profile}"));
            std::fs::write(path, seed).unwrap();
            for r in &twin.roots {
                roots.push_str(&pem::encode(&pem::Pem::new("CERTIFICATE", r.to_vec())));
            }
        }
    }
    let file = certbench_core::corpus::pq_twin_roots_file();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, roots).unwrap();
}

#[test]
fn post_quantum_twin_seeds_reach_their_ml_dsa_signature_checks() {
    if std::env::var_os("CERTBENCH_BLESS").is_some() {
        bless_twins();
    }
    let seeds = twin_seeds();
    assert_eq!(
        seeds.len(),
        TWINNED.len() * certbench::pq::Profile::PQ.len(),
        "CERTBENCH_BLESS=1 writes the twin seeds"
    );
    let harness = Harness::new();
    let corpus = crate::common::corpus();
    let mut roots = corpus.roots();
    roots.extend(
        certbench_core::chain::read_pem_certs(&certbench_core::corpus::pq_twin_roots_file())
            .unwrap(),
    );
    let serial = certbench_core::methods::Method::RustlsSerial.verifier();
    let store = serial.build_roots(&roots).unwrap();
    for (id, bytes) in &seeds {
        harness.check(bytes);
        // The twin verifies as its chain does: the fuzzer starts from ML-DSA chains that get
        // past path building to their signatures.
        let (selector, certs) = certbench_core::fuzzing::decode(bytes);
        let chain = certbench_core::chain::Chain {
            leaf: certs[0].to_vec().into(),
            intermediates: certs[1..].iter().map(|c| c.to_vec().into()).collect(),
        };
        assert!(
            chain.key_types().iter().all(|k| k.starts_with("ML-DSA-")),
            "{id}"
        );
        let original = &corpus.chains[usize::from(selector)];
        let target =
            certbench_core::verifier::Target::server(&original.host, original.validation_time);
        let twin = serial.verify(
            &store,
            &chain,
            target,
            &mut certbench_core::stages::Recorder::new(),
        );
        let today = serial.verify(
            &store,
            &original.chain,
            target,
            &mut certbench_core::stages::Recorder::new(),
        );
        assert_eq!(
            twin.is_ok(),
            today.is_ok(),
            "{id}: {twin:?} / today's {today:?}"
        );
    }
}
