//! Verification cost per method, side by side in one run: the whole `Verifier::verify` call
//! (chain-creation + verify + verify-hostname) on one RSA-2048, one P-256 and one P-384 chain
//! with a store built once; the chain's crypto floor (its path's signature checks alone, same
//! library, same bytes); chain creation (DER → OpenSSL `X509`s; DER → webpki's
//! `EndEntityCert`); each method's store built cold from the same roots; the cost of
//! recording one stage against not recording it; each method with a CT check with and
//! without it (`ct`); and each method with a revocation mechanism with and without it
//! (`revocation`: the browsers' own, the rustls methods' CRLite in memory and through upki,
//! over the data `--revocation` makes at its full scale, loaded before timing: warm).
//!
//! `cargo bench --bench verify`; `benches/benchmarks-md` turns a run into BENCHMARKS.md.

use certbench::bench::floor::{path_signatures, verify_all};
use certbench::transport::openssl::share_store;
use certbench_core::corpus::Corpus;
use certbench_core::methods::Method;
use certbench_core::methods::openssl::OpenSslRoots;
use certbench_core::roots::{RootSet, RootsSpec};
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use certbench_schema::Stage;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// (label, corpus chain): the leaf's issuer key decides the expensive signature.
const CHAINS: &[(&str, &str)] = &[
    ("rsa2048", "reddit.com__rustls-bench"),
    ("p256", "cloudflare.com__limbo-online"),
    ("p384", "www.washingtonpost.com__rustls-bench"),
];

/// (label, corpus chain) for the CT group: an RSA chain with 3 embedded SCTs, an ECDSA one
/// with 2 (every corpus SCT is ECDSA P-256).
const CT_CHAINS: &[(&str, &str)] = &[
    ("rsa2048-3scts", "reddit.com__rustls-bench"),
    ("p256-2scts", "cloudflare.com__limbo-online"),
];

/// A method's name in criterion's ids; `CERTBENCH_BENCH_FIREFOX_ID` renames `firefox` for a run
/// on another NSS (`benches/benchmarks-md` loads the shim over the system's NSS through
/// `CERTBENCH_FIREFOX_SO`, in a process of its own: two NSS cannot share one).
fn bench_name(m: Method) -> String {
    match std::env::var("CERTBENCH_BENCH_FIREFOX_ID") {
        Ok(id) if m == Method::Firefox && !id.is_empty() => id,
        _ => m.name().to_owned(),
    }
}

fn verify(c: &mut Criterion) {
    let corpus = Corpus::bundled().unwrap();
    let mut roots = RootSet::load(&RootsSpec::Mozilla).unwrap();
    roots.extend("corpus", corpus.roots());
    let mut g = c.benchmark_group("verify");
    for &(label, id) in CHAINS {
        let item = corpus.chains.iter().find(|c| c.id == id).unwrap();
        let target = Target::server(&item.host, item.validation_time);
        // The floor first, then every method on this chain, back to back.
        let path = path_signatures(&item.chain, &item.roots).expect("a path to the root");
        g.bench_function(BenchmarkId::new("floor", label), |b| {
            b.iter(|| black_box(verify_all(&path)).unwrap())
        });
        // The path's costliest check alone: no split of the checks can beat it, so
        // floor ÷ largest bounds what running them in parallel can gain.
        let largest = path
            .iter()
            .max_by_key(|sig| {
                let t = std::time::Instant::now();
                for _ in 0..200 {
                    black_box(sig.verify()).unwrap();
                }
                t.elapsed()
            })
            .unwrap();
        g.bench_function(BenchmarkId::new("largest-check", label), |b| {
            b.iter(|| black_box(largest.verify()).unwrap())
        });
        for m in Method::available() {
            let v = m.verifier();
            // A method that cannot verify this chain (`mtc`: Merkle Tree Certificates only).
            if v.capabilities().unsupported(&item.chain).is_some() {
                continue;
            }
            let store = v.build_roots(roots.certs()).unwrap();
            g.bench_function(BenchmarkId::new(bench_name(m), label), |b| {
                b.iter(|| {
                    let mut rec = Recorder::new();
                    black_box(v.verify(&store, &item.chain, target, &mut rec)).unwrap()
                })
            });
        }
        // rustlsparallel when verifications are not back to back: the pool's workers have
        // gone to sleep (they spin 50 µs after a job), as between a browser's connections.
        let v = Method::RustlsParallel.verifier();
        let store = v.build_roots(roots.certs()).unwrap();
        g.bench_function(BenchmarkId::new("rustlsparallel-asleep", label), |b| {
            b.iter_custom(|iters| {
                let mut total = std::time::Duration::ZERO;
                for _ in 0..iters {
                    std::thread::sleep(std::time::Duration::from_micros(300));
                    let t = std::time::Instant::now();
                    let mut rec = Recorder::new();
                    black_box(v.verify(&store, &item.chain, target, &mut rec)).unwrap();
                    total += t.elapsed();
                }
                total
            })
        });
        let v = Method::RustlsSerial.verifier();
        let store = v.build_roots(roots.certs()).unwrap();
        g.bench_function(BenchmarkId::new("rustlsserial-asleep", label), |b| {
            b.iter_custom(|iters| {
                let mut total = std::time::Duration::ZERO;
                for _ in 0..iters {
                    std::thread::sleep(std::time::Duration::from_micros(300));
                    let t = std::time::Instant::now();
                    let mut rec = Recorder::new();
                    black_box(v.verify(&store, &item.chain, target, &mut rec)).unwrap();
                    total += t.elapsed();
                }
                total
            })
        });
    }
    g.finish();

    // Certificate Transparency (`--ct`): each method with a CT check, with and without it, back
    // to back on the same chain and store (the ratio is what checking CT costs it).
    let logs = certbench_core::ct::CtLogs::load(
        &certbench_core::corpus::bundled_dir().join("../ct-logs/log_list.json"),
    )
    .unwrap();
    let mut g = c.benchmark_group("ct");
    for &(label, id) in CT_CHAINS {
        let item = corpus.chains.iter().find(|c| c.id == id).unwrap();
        let plain = Target::server(&item.host, item.validation_time);
        let with_ct = plain.with_ct(Some(&logs));
        for m in Method::available() {
            let v = m.verifier();
            if v.capabilities().ct == certbench_core::CtSupport::None {
                continue;
            }
            v.prepare_ct(&logs);
            let store = v.build_roots(roots.certs()).unwrap();
            for (suffix, target) in [("", plain), ("+ct", with_ct)] {
                let id = BenchmarkId::new(format!("{}{suffix}", m.name()), label);
                g.bench_function(id, |b| {
                    b.iter(|| {
                        let mut rec = Recorder::new();
                        black_box(v.verify(&store, &item.chain, target, &mut rec)).unwrap()
                    })
                });
            }
        }
    }
    g.finish();

    // Revocation (`--revocation`): each method with a mechanism, with and without it, back to
    // back on the same chain and store, the data loaded once before (warm); the rustls methods
    // with CRLite in memory and through upki (on the corpus, `crl` and `ocsp` have no data to
    // check: no CRL of a real CA, no staple but revoked.badssl.com's).
    let files = certbench::revocation::bundle::ensure(
        &certbench::revocation::bundle::cache_dir(),
        None,
        certbench::revocation::bundle::Scale::Full,
        &|l| eprintln!("{l}"),
    )
    .unwrap()
    .files;
    use certbench_core::revocation::{Mechanism, RevocationData, Support};
    let mut g = c.benchmark_group("revocation");
    for &(label, id) in CT_CHAINS {
        let item = corpus.chains.iter().find(|c| c.id == id).unwrap();
        let plain = Target::server(&item.host, item.validation_time);
        for m in Method::available() {
            let v = m.verifier();
            let mechanisms = match v.capabilities().revocation {
                Support::None => continue,
                Support::Own(Mechanism::Ocsp) => continue, // gnutls: no staple to check here
                Support::Own(own) => vec![own],
                Support::Rustls => vec![Mechanism::Crlite, Mechanism::Upki],
            };
            let store = v.build_roots(roots.certs()).unwrap();
            g.bench_function(BenchmarkId::new(m.name(), label), |b| {
                b.iter(|| {
                    let mut rec = Recorder::new();
                    black_box(v.verify(&store, &item.chain, plain, &mut rec)).unwrap()
                })
            });
            for mechanism in mechanisms {
                let data = RevocationData::new(files.clone());
                data.preload(mechanism, &mut Recorder::new());
                let target = plain.with_revocation(Some((mechanism, &data)), None);
                let id = BenchmarkId::new(format!("{}+{mechanism}", m.name()), label);
                g.bench_function(id, |b| {
                    b.iter(|| {
                        let mut rec = Recorder::new();
                        black_box(v.verify(&store, &item.chain, target, &mut rec)).unwrap()
                    })
                });
            }
        }
    }
    g.finish();

    let mut g = c.benchmark_group("chain-creation");
    for &(label, id) in CHAINS {
        let item = corpus.chains.iter().find(|c| c.id == id).unwrap();
        g.bench_function(BenchmarkId::new("openssl-x509", label), |b| {
            b.iter(|| {
                for der in item.chain.iter() {
                    black_box(openssl::x509::X509::from_der(der).unwrap());
                }
            })
        });
        g.bench_function(BenchmarkId::new("webpki-end-entity", label), |b| {
            b.iter(|| black_box(webpki::EndEntityCert::try_from(&item.chain.leaf).unwrap()))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("roots-creation-cold");
    for m in Method::available() {
        let v = m.verifier();
        g.bench_function(m.name(), |b| {
            b.iter(|| black_box(v.build_roots(roots.certs()).unwrap()))
        });
    }
    g.finish();

    // Roots when cached (`--cache-roots`, Servo's LazyLock): what each connection pays to get
    // the store built once — another reference to OpenSSL's X509_STORE (a connector takes
    // its store by value) or an `Arc` clone of webpki's anchors.
    let mut g = c.benchmark_group("roots-creation-cached");
    for m in Method::available() {
        let v = m.verifier();
        let built = std::sync::Arc::new(v.build_roots(roots.certs()).unwrap());
        if m == Method::OpenSsl {
            let store = &built.downcast_ref::<OpenSslRoots>().unwrap().0;
            g.bench_function(m.name(), |b| {
                b.iter(|| black_box(share_store(store).unwrap()))
            });
        } else {
            g.bench_function(m.name(), |b| {
                b.iter(|| black_box(std::sync::Arc::clone(&built)))
            });
        }
    }
    g.finish();
}

/// What recording one stage costs: a start/stop pair around nothing.
fn stage_timer(c: &mut Criterion) {
    let mut g = c.benchmark_group("stage-timer");
    g.bench_function("not-recorded", |b| {
        let rec = Recorder::new();
        b.iter(|| black_box(&rec))
    });
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
