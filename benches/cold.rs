//! Why one verification costs more inside a connection than back to back
//! (`docs/methodology.md`, "The same verifier, three prices"): every method verifies the same
//! RSA-2048 chains, with a store built once, right after one of these, in one process:
//!
//! - `back-to-back`: nothing (the previous verification), as `certbench verify` runs;
//! - `asleep-1ms`: the thread slept 1 ms (the core idles, as while a connection waits on the
//!   network);
//! - `evicted`: 32 MiB written and read (the caches hold none of the verifier's code or data,
//!   and nothing else happened);
//! - `openssl-verify`: OpenSSL's `X509_verify_cert` on the same chain (the `openssl` method,
//!   its store built once), what the driver's callback hook runs right before a webpki
//!   method's verification;
//! - `openssl-handshake` / `rustls-handshake`: one full TLS 1.3 handshake in memory (P-256),
//!   the code that runs before a verification inside a connection.
//!
//! Conditions and methods are interleaved (each round visits every pair, in an order rotated
//! by the round), and each sample also counts the thread's minor page faults during the call
//! (`getrusage(RUSAGE_THREAD)`). `cargo bench --bench cold` prints one markdown table;
//! `docs/regenerate` puts it into `docs/methodology.md`. Options: `--rounds N` (default 300).

use std::hint::black_box;
use std::time::{Duration, Instant};

use certbench::tls::pair::Ends;
use certbench::tls::{Cipher, KeyType, Provider, Suite, TlsLibrary, Version};
use certbench_analysis::stats::{RatioInterval, Summary};
use certbench_core::corpus::{Corpus, CorpusChain};
use certbench_core::methods::DynVerifier;
use certbench_core::methods::Method;
use certbench_core::roots::{RootSet, RootsSpec};
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;

/// RSA-2048 chains (leaf and intermediate keys), as the driver's sites mostly are.
const CHAINS: &[&str] = &[
    "reddit.com__rustls-bench",
    "arstechnica.com__rustls-bench",
    "duckduckgo.com__rustls-bench",
];
const CONDITIONS: &[&str] = &[
    "back-to-back",
    "asleep-1ms",
    "evicted",
    "openssl-verify",
    "openssl-handshake",
    "rustls-handshake",
];

fn minor_faults() -> i64 {
    // SAFETY: getrusage writes one `rusage` into the zeroed value it is given.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut u);
        u.ru_minflt
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .skip_while(|a| a != "--rounds")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let corpus = Corpus::bundled().expect("the bundled corpus");
    let mut roots = RootSet::load(&RootsSpec::Mozilla).expect("Mozilla roots");
    roots.extend("corpus", corpus.roots());
    let chains: Vec<_> = CHAINS
        .iter()
        .map(|id| corpus.chains.iter().find(|c| c.id == *id).expect(id))
        .collect();
    let wanted = [
        "rustlsserial",
        "webpkilegacy",
        "openssl",
        "chrome",
        "firefox",
        "gnutls",
    ];
    let methods: Vec<Method> = Method::available()
        .into_iter()
        .filter(|m| wanted.contains(&m.name()))
        .collect();
    let verifiers: Vec<(Method, Box<dyn DynVerifier>, _)> = methods
        .iter()
        .map(|&m| {
            let v = m.verifier();
            let store = v.build_roots(roots.certs()).expect("store");
            (m, v, store)
        })
        .collect();
    let cert = certbench::certs::test::generate(KeyType::P256).expect("a P-256 cert");
    let suite = Suite {
        tls: Version::V13,
        cipher: Cipher::Aes128gcm,
        key: KeyType::P256,
    };
    let openssl = Ends::new(TlsLibrary::Openssl, suite, &cert, false).expect("OpenSSL ends");
    let rustls =
        Ends::new(TlsLibrary::Rustls(Provider::AwsLcRs), suite, &cert, false).expect("rustls ends");
    let ossl = Method::OpenSsl.verifier();
    let ossl_store = ossl.build_roots(roots.certs()).expect("OpenSSL's store");
    let mut buffer = vec![0u8; 32 << 20];
    let mut before = |condition: &str, round: usize, chain: &CorpusChain| match condition {
        "asleep-1ms" => std::thread::sleep(Duration::from_millis(1)),
        "evicted" => {
            for (i, b) in buffer.iter_mut().enumerate().step_by(64) {
                *b = (i + round) as u8;
            }
            black_box(buffer.iter().step_by(64).map(|&b| b as u64).sum::<u64>());
        }
        "openssl-verify" => {
            let target = Target::server(&chain.host, chain.validation_time);
            let mut rec = Recorder::new();
            let _ = black_box(ossl.verify(&ossl_store, &chain.chain, target, &mut rec));
        }
        "openssl-handshake" => drop(black_box(openssl.connect().expect("handshake"))),
        "rustls-handshake" => drop(black_box(rustls.connect().expect("handshake"))),
        _ => {}
    };
    // samples[method][condition]: (ns, minor faults).
    let mut samples = vec![vec![Vec::<(u64, i64)>::new(); CONDITIONS.len()]; verifiers.len()];
    let pairs = verifiers.len() * CONDITIONS.len();
    for round in 0..rounds + 5 {
        for k in 0..pairs {
            let p = (k + round) % pairs;
            let (m, c) = (p / CONDITIONS.len(), p % CONDITIONS.len());
            let (_, v, store) = &verifiers[m];
            let chain = chains[round % chains.len()];
            let target = Target::server(&chain.host, chain.validation_time);
            if CONDITIONS[c] == "back-to-back" {
                // The previous verification, of this very chain.
                let mut rec = Recorder::new();
                let _ = black_box(v.verify(store, &chain.chain, target, &mut rec));
            } else {
                before(CONDITIONS[c], round, chain);
            }
            let faults = minor_faults();
            let t = Instant::now();
            let mut rec = Recorder::new();
            let ok = black_box(v.verify(store, &chain.chain, target, &mut rec));
            let ns = t.elapsed().as_nanos() as u64;
            let faults = minor_faults() - faults;
            assert!(ok.is_ok(), "{}: {ok:?}", verifiers[m].0);
            if round >= 5 {
                samples[m][c].push((ns, faults));
            }
        }
    }
    println!(
        "| method | condition | n | median µs (p90) | × back-to-back [95 % HL] | minor faults per call |"
    );
    println!("|---|---|---|---|---|---|");
    for (m, (method, _, _)) in verifiers.iter().enumerate() {
        let base: Vec<f64> = samples[m][0].iter().map(|s| s.0 as f64).collect();
        for (c, condition) in CONDITIONS.iter().enumerate() {
            let ns: Vec<u64> = samples[m][c].iter().map(|s| s.0).collect();
            let s = Summary::of(&ns).expect("samples");
            let these: Vec<f64> = ns.iter().map(|&n| n as f64).collect();
            let ratio = RatioInterval::of(&these, &base, 0.95).map_or("—".to_owned(), |r| {
                format!("×{:.2} [{:.2}, {:.2}]", r.ratio, r.low, r.high)
            });
            let faults = samples[m][c].iter().map(|s| s.1).sum::<i64>() as f64 / ns.len() as f64;
            println!(
                "| {method} | {condition} | {} | {:.1} ({:.1}) | {ratio} | {faults:.2} |",
                s.n,
                s.median / 1e3,
                s.p90 / 1e3
            );
        }
    }
}
