//! Verification cost per method, side by side in one run: the whole `Verifier::verify` call
//! (chain-creation + verify + verify-hostname) on one RSA-2048, one P-256 and one P-384 chain
//! with a store built once, each method's store built cold from the same roots, and the cost
//! of recording one stage.
//!
//! `cargo bench --bench verify`

use certbench::Method;
use certbench::analysis::Stage;
use certbench::corpus::Corpus;
use certbench::methods::Target;
use certbench::roots::{RootSet, RootsSpec};
use certbench::stages::Recorder;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// (label, corpus chain): the leaf's issuer key decides the expensive signature.
const CHAINS: &[(&str, &str)] = &[
    ("rsa2048", "reddit.com__rustls-bench"),
    ("p256", "cloudflare.com__limbo-online"),
    ("p384", "www.washingtonpost.com__rustls-bench"),
];

fn verify(c: &mut Criterion) {
    let corpus = Corpus::bundled().unwrap();
    let mut roots = RootSet::load(&RootsSpec::Mozilla).unwrap();
    roots.extend("corpus", corpus.roots());
    let mut g = c.benchmark_group("verify");
    for &(label, id) in CHAINS {
        let item = corpus.chains.iter().find(|c| c.id == id).unwrap();
        let target = Target::server(&item.host, item.validation_time);
        // Interleave: every method on this chain, back to back.
        for &m in Method::ALL {
            let v = m.verifier();
            let store = v.build_roots(roots.certs()).unwrap();
            g.bench_function(BenchmarkId::new(m.name(), label), |b| {
                b.iter(|| {
                    let mut rec = Recorder::new();
                    black_box(v.verify(&store, &item.chain, target, &mut rec)).unwrap()
                })
            });
        }
    }
    g.finish();

    let mut g = c.benchmark_group("roots-creation-cold");
    for &m in Method::ALL {
        let v = m.verifier();
        g.bench_function(m.name(), |b| {
            b.iter(|| black_box(v.build_roots(roots.certs()).unwrap()))
        });
    }
    g.finish();
}

/// What recording one stage costs: a start/stop pair around nothing.
fn stage_timer(c: &mut Criterion) {
    let mut g = c.benchmark_group("stage-timer");
    g.bench_function("one-stage-recorded", |b| {
        let mut rec = Recorder::new();
        b.iter(|| {
            let span = rec.start();
            black_box(rec.stop(Stage::Verify, span))
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = verify, stage_timer
}
criterion_main!(benches);
