//! How `rustlsparallel` fares when verifications are apart, as a browser's connections are:
//! `cargo run --release -p certbench-core --features corpus --example asleep -- CHAIN_ID...`
//! verifies each named corpus chain 200 times per gap (0.3, 2, 5 and 20 ms of idle time before every call), with
//! `rustlsserial`, `rustlsparallel` as it decides, and `rustlsparallel` forced onto the pool,
//! the three interleaved, and prints each one's median verify call and serial ÷ parallel.
//! Measures the decision's choices: where "forced" beats "decided", it left a gain on the
//! table; where it loses to serial, overlapping did not pay at that gap.

use certbench_core::Method;
use certbench_core::corpus::Corpus;
use certbench_core::methods::rustls_parallel::force_overlap;
use certbench_core::roots::{RootSet, RootsSpec};
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use std::time::{Duration, Instant};

fn main() {
    let ids: Vec<String> = std::env::args().skip(1).collect();
    let corpus = Corpus::bundled().expect("the bundled corpus");
    let mut roots = RootSet::load(&RootsSpec::Mozilla).expect("the bundled roots");
    roots.extend("corpus", corpus.roots());
    let serial = Method::RustlsSerial.verifier();
    let parallel = Method::RustlsParallel.verifier();
    let serial_roots = serial.build_roots(roots.certs()).unwrap();
    let parallel_roots = parallel.build_roots(roots.certs()).unwrap();
    for id in &ids {
        let item = corpus
            .chains
            .iter()
            .find(|c| &c.id == id)
            .expect("a corpus chain id");
        let target = Target::server(&item.host, item.validation_time);
        for gap_us in [300u64, 2_000, 5_000, 20_000] {
            let mut times = [vec![], vec![], vec![]];
            for round in 0..220 {
                for (k, times) in times.iter_mut().enumerate() {
                    let (v, r) = if k == 0 {
                        (&serial, &serial_roots)
                    } else {
                        (&parallel, &parallel_roots)
                    };
                    force_overlap(k == 2);
                    std::thread::sleep(Duration::from_micros(gap_us));
                    let t = Instant::now();
                    let mut rec = Recorder::new();
                    let _ = std::hint::black_box(v.verify(r, &item.chain, target, &mut rec));
                    if round >= 20 {
                        times.push(t.elapsed().as_secs_f64() * 1e6);
                    }
                }
            }
            force_overlap(false);
            let med = |v: &mut Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let [s, d, f] = times.map(|mut v| med(&mut v));
            println!(
                "{id:40} gap {:>5} µs: serial {s:6.1} µs, decided {d:6.1} (×{:.2}), forced {f:6.1} (×{:.2})",
                gap_us,
                s / d,
                s / f
            );
        }
    }
}
