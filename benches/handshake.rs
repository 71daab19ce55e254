//! A full TLS handshake on loopback against the mirror, per way of verifying, side by side in
//! one run: OpenSSL native (`X509_verify_cert` inside the handshake), the seed's
//! `set_verify_callback` variant (OpenSSL's verification, then webpki), and webpki replacing
//! OpenSSL's verification (`SSL_CTX_set_cert_verify_callback`). The webpki method is
//! `rustlsserial`; stores and connectors are built once; each iteration is TCP connect
//! (TCP_NODELAY) + a full TLS 1.3 handshake (session caching off) + close.
//!
//! `cargo bench --bench handshake` (the first run generates the mirror's clones into
//! `.certbench-cache/mirror`, ~8 s).

use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use certbench::mirror::MirrorSet;
use certbench::mirror::server::MirrorServer;
use certbench::transport::openssl::{ConnectorHook, HookState, connector, share_store};
use certbench_core::corpus::Corpus;
use certbench_core::methods::Method;
use certbench_core::methods::openssl::OpenSslRoots;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use openssl::ssl::SslConnector;

/// (label, mirrored host): the chain's key types decide the signatures.
const HOSTS: &[(&str, &str)] = &[
    ("rsa2048", "reddit.com"),
    ("p384", "www.washingtonpost.com"),
];

fn handshake(c: &mut Criterion) {
    let corpus = Corpus::bundled().unwrap();
    let set = MirrorSet::load_or_generate(&corpus, Path::new(".certbench-cache/mirror")).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        MirrorServer::start(&set, listener).unwrap()
    });
    let addr = server.addr;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let openssl = Method::OpenSsl.verifier();
    let ossl_roots = openssl.build_roots(&set.roots).unwrap();
    let store = &ossl_roots.downcast_ref::<OpenSslRoots>().unwrap().0;
    let webpki: Arc<dyn certbench_core::methods::DynVerifier> =
        Arc::from(Method::RustlsSerial.verifier());
    let webpki_roots = Arc::new(webpki.build_roots(&set.roots).unwrap());

    // One connector per (chain, hook), built once; both groups run the same ones.
    let mut cases = Vec::new();
    for &(label, host) in HOSTS {
        for variant in ["native", "callback", "replace"] {
            let hook = match variant {
                "native" => ConnectorHook::Native,
                "callback" => ConnectorHook::Callback(webpki.clone(), webpki_roots.clone()),
                _ => ConnectorHook::Replace(webpki.clone(), webpki_roots.clone()),
            };
            // The callback hook needs OpenSSL's store too; replace verifies with webpki only.
            let ossl_store = (variant != "replace").then(|| share_store(store).unwrap());
            let state = Arc::new(Mutex::new(HookState::default()));
            let conn = connector(
                hook,
                ossl_store,
                (host, now),
                &certbench_core::Checks::none(),
                false,
                state.clone(),
            )
            .unwrap();
            cases.push((label, host, variant, conn, state));
        }
    }
    let one = |host: &str, variant: &str, conn: &SslConnector, state: &Mutex<HookState>| {
        *state.lock().unwrap() = HookState::default();
        rt.block_on(async {
            let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
            tcp.set_nodelay(true).unwrap();
            let ssl = conn
                .configure()
                .unwrap()
                .verify_hostname(variant == "native")
                .into_ssl(host)
                .unwrap();
            let mut tls = tokio_openssl::SslStream::new(ssl, tcp).unwrap();
            Pin::new(&mut tls).connect().await.unwrap();
            let _ = tokio::io::AsyncWriteExt::shutdown(&mut tls).await;
        });
        assert!(state.lock().unwrap().rejection.is_none());
    };

    let mut g = c.benchmark_group("handshake");
    for (label, host, variant, conn, state) in &cases {
        g.bench_function(BenchmarkId::new(*variant, label), |b| {
            b.iter(|| one(host, variant, conn, state))
        });
    }
    g.finish();

    // The client's own CPU time per handshake: `block_on` drives the client on this thread
    // while the server runs on the runtime's workers, so the server's signing (the same for
    // every hook) is left out.
    let mut g = c.benchmark_group("handshake-client-cpu");
    for (label, host, variant, conn, state) in &cases {
        g.bench_function(BenchmarkId::new(*variant, label), |b| {
            b.iter_custom(|iters| {
                let start = thread_cpu();
                for _ in 0..iters {
                    one(host, variant, conn, state);
                }
                thread_cpu() - start
            })
        });
    }
    g.finish();
    drop(server);
}

/// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID).
fn thread_cpu() -> std::time::Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid, exclusive `ts`.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = handshake
}
criterion_main!(benches);
