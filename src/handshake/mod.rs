//! `certbench handshake`: TLS handshakes on loopback, OpenSSL and rustls clients against an
//! OpenSSL or rustls server, full or resumed, TLS 1.2 or 1.3, RSA-2048 / P-256 / P-384 —
//! handshakes per second, latency percentiles (HdrHistogram) and CPU time per handshake on
//! each side, as the published rustls-vs-OpenSSL comparisons report them.
//!
//! Shape of a run: the server runs on its own thread (single-threaded runtime); the clients
//! run as `clients` tasks on the calling thread's single-threaded runtime, each doing
//! handshakes one after the other until `handshakes` are done. A handshake is: TCP connect
//! (TCP_NODELAY), the TLS handshake with the client verifying the server's chain and name
//! (its latency ends here), then close_notify both ways and the close (in the throughput,
//! not the latency). For a resumed configuration, each client first does one full handshake
//! (not counted) to get a session; every counted handshake must then report reuse, and the
//! run says loudly when some did not. Loopback only; bounded by count (or `duration`).
//!
//! With `--ct` ([`ct`]), the server's leaf embeds SCTs from logs made for the run, and a
//! rustls client whose verifier is a certbench method with a CT check checks them in every
//! full handshake (the OpenSSL client, and rustls' own verifier, check no CT). With
//! `--revocation` ([`revocation`]), revocation data is made for the run's certificate, the
//! server staples an OCSP response for it when the client checks `ocsp`, and a rustls client's
//! certbench method with a revocation check checks it in every full handshake, the data loaded
//! once before the timed handshakes.

pub mod client;
pub mod ct;
mod error;
pub mod hold;
pub mod plan;
pub mod revocation;
mod scenario;
pub mod server;

pub use error::{HandshakeError, HandshakeFailure};
pub use scenario::{Checks, Outcome, Resumption, Scenario};

use std::cell::RefCell;
use std::time::{Duration, Instant};

use std::sync::Arc;
use std::sync::atomic::Ordering;

use certbench_core::ct::CtLogs;
use certbench_core::revocation::Mechanism;
use certbench_schema::records::handshake::HandshakeRun;
use hdrhistogram::Histogram;

use crate::certs::test::{self as certs, ServerCert};
use certbench_schema::Transport;
use client::{Client, handshake, openssl_client, rustls_client};

/// Measures `cfg` against a server it starts (with a certificate made for the run).
pub fn run(cfg: &Scenario) -> Result<Outcome, HandshakeError> {
    let cert = certs::generate(cfg.key)?;
    run_with_cert(cfg, &cert)
}

/// What one client thread measured.
struct ThreadResult {
    hist: Histogram<u64>,
    resumed: u64,
    failed: u64,
    first_error: Option<String>,
}

/// One client thread: its `clients` tasks on a single-threaded runtime, each doing handshakes
/// one after the other while the shared count `next` is below `cfg.handshakes`.
#[allow(clippy::too_many_arguments)]
fn client_thread(
    cfg: &Scenario,
    cert: &ServerCert,
    checks: (Checks<'_>, &Arc<revocation::Counts>),
    clients: usize,
    addr: std::net::SocketAddr,
    next: &std::sync::atomic::AtomicU64,
    deadline: Option<Instant>,
    ready: &std::sync::Barrier,
) -> Result<ThreadResult, HandshakeError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let made: Result<Vec<Client>, HandshakeError> = (0..clients)
        .map(|_| match cfg.client {
            Transport::Openssl => openssl_client(cfg, cert),
            Transport::Rustls => rustls_client(cfg, cert, checks.0, checks.1),
            Transport::Quic => Err(HandshakeError::NoQuic),
        })
        .collect();
    let result = rt.block_on(async {
        let clients = made?;
        // Resumed runs: one full handshake per client first, to hold a session.
        if cfg.resumption != Resumption::None {
            for c in &clients {
                handshake(c, addr).await?;
            }
        }
        Ok::<_, HandshakeError>(clients)
    });
    // Every thread starts counting together (a failed setup still reaches the barrier).
    ready.wait();
    let clients = result?;
    let hist = RefCell::new(
        Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)
            .map_err(|e| HandshakeError::Setup(e.to_string()))?,
    );
    let stats = RefCell::new((0u64, 0u64, None::<String>)); // resumed, failed, first error
    rt.block_on(async {
        let tasks = clients.iter().map(|c| {
            let (hist, stats) = (&hist, &stats);
            async move {
                loop {
                    let n = next.fetch_add(1, Ordering::SeqCst);
                    if n >= cfg.handshakes || deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    match handshake(c, addr).await {
                        Ok((latency, resumed)) => {
                            let us = (latency.as_micros() as u64).max(1);
                            let _ = hist.borrow_mut().record(us);
                            if resumed {
                                stats.borrow_mut().0 += 1;
                            }
                        }
                        Err(e) => {
                            let mut s = stats.borrow_mut();
                            s.1 += 1;
                            s.2.get_or_insert(e.to_string());
                        }
                    }
                }
            }
        });
        futures_util::future::join_all(tasks).await;
    });
    drop(clients);
    let (resumed, failed, first_error) = stats.into_inner();
    Ok(ThreadResult {
        hist: hist.into_inner(),
        resumed,
        failed,
        first_error,
    })
}

/// [`run`] with a given certificate (so that several configurations can share one).
pub fn run_with_cert(cfg: &Scenario, cert: &ServerCert) -> Result<Outcome, HandshakeError> {
    run_with_ct(cfg, cert, None)
}

/// [`run_with_cert`], the rustls client's certbench method checking the leaf's SCTs against
/// `ct` (`--ct`, [`ct::generate`]) if it has a CT check.
pub fn run_with_ct(
    cfg: &Scenario,
    cert: &ServerCert,
    ct: Option<&Arc<CtLogs>>,
) -> Result<Outcome, HandshakeError> {
    run_checking(
        cfg,
        cert,
        Checks {
            ct,
            revocation: None,
        },
    )
}

/// [`run_with_ct`], the rustls client's certbench method also checking revocation against
/// `checks.revocation` (`--revocation`, [`revocation::make`]) in every full handshake if it
/// has a mechanism: its data loaded before the timed handshakes, and the server stapling the
/// run's OCSP response when the mechanism is `ocsp`.
pub fn run_checking(
    cfg: &Scenario,
    cert: &ServerCert,
    checks: Checks<'_>,
) -> Result<Outcome, HandshakeError> {
    if cfg.clients == 0 || cfg.handshakes == 0 {
        return Err(HandshakeError::Setup(
            "--clients and --handshakes must be at least 1".into(),
        ));
    }
    let mechanism = checks.mechanism(cfg);
    let rev = checks.revocation.filter(|_| mechanism.is_some());
    // The one load of the data, before any timed handshake (warm checks only).
    let load = rev.zip(mechanism).and_then(|(r, m)| r.preload(m));
    let staple = rev
        .filter(|_| mechanism == Some(Mechanism::Ocsp))
        .map(|r| r.staple.as_slice());
    let counts = Arc::new(revocation::Counts::default());
    let server = server::start_stapling(
        cfg.server,
        cert,
        cfg.tls,
        cfg.resumption,
        cfg.provider,
        cfg.server_threads,
        staple,
    )?;
    let timed = drive_clients(cfg, cert, (checks, &counts), &server);
    drop(server);
    let totals = Totals::of(timed.results)?;
    Ok(outcome(cfg, checks, &timed.figures, totals, &counts, load))
}

/// What the client threads measured, as each thread returned it, with the run's figures.
struct Timed {
    results: Vec<Result<ThreadResult, HandshakeError>>,
    figures: Figures,
}

/// The run's wall time, each side's CPU time, and how many client threads ran.
struct Figures {
    seconds: f64,
    client_cpu: Duration,
    server_cpu: Duration,
    threads: usize,
}

/// Runs the clients against `server`, spread over the client threads (each thread at least
/// one), all starting together, and times them: wall time from the start to the last
/// thread's end; the client's CPU is the process's less the server threads' (the client
/// threads and whatever helps them: a verifier's worker pool, where `rustlsparallel`'s
/// checks run).
fn drive_clients(
    cfg: &Scenario,
    cert: &ServerCert,
    checks: (Checks<'_>, &Arc<revocation::Counts>),
    server: &server::Server,
) -> Timed {
    let addr = server.addr;
    let threads = cfg.client_threads.clamp(1, cfg.clients);
    let per_thread: Vec<usize> = (0..threads)
        .map(|t| cfg.clients / threads + usize::from(t < cfg.clients % threads))
        .collect();
    let next = std::sync::atomic::AtomicU64::new(0);
    let ready = std::sync::Barrier::new(threads + 1);
    let deadline = cfg.duration.map(|d| Instant::now() + d);
    std::thread::scope(|scope| {
        let handles: Vec<_> = per_thread
            .iter()
            .map(|&n| {
                let (next, ready) = (&next, &ready);
                scope
                    .spawn(move || client_thread(cfg, cert, checks, n, addr, next, deadline, ready))
            })
            .collect();
        ready.wait();
        let (client_cpu0, server_cpu0) = (
            server::clock_time(libc::CLOCK_PROCESS_CPUTIME_ID),
            server.cpu(),
        );
        let start = Instant::now();
        let results: Vec<Result<ThreadResult, HandshakeError>> = handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(HandshakeError::Setup("a client thread panicked".into()))
                })
            })
            .collect();
        let seconds = start.elapsed().as_secs_f64();
        let server_cpu = server.cpu() - server_cpu0;
        let client_cpu = (server::clock_time(libc::CLOCK_PROCESS_CPUTIME_ID) - client_cpu0)
            .saturating_sub(server_cpu);
        Timed {
            results,
            figures: Figures {
                seconds,
                client_cpu,
                server_cpu,
                threads,
            },
        }
    })
}

/// The client threads' results added up: one latency histogram, the resumed and failed
/// handshakes, the first error any thread saw.
struct Totals {
    hist: Histogram<u64>,
    resumed: u64,
    failed: u64,
    first_error: Option<String>,
}

impl Totals {
    /// Adds up `results`, in thread order; a thread that could not run fails the run.
    fn of(results: Vec<Result<ThreadResult, HandshakeError>>) -> Result<Self, HandshakeError> {
        let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)
            .map_err(|e| HandshakeError::Setup(e.to_string()))?;
        let (mut resumed, mut failed, mut first_error) = (0, 0, None);
        for r in results {
            let r = r?;
            hist.add(&r.hist)
                .map_err(|e| HandshakeError::Setup(e.to_string()))?;
            resumed += r.resumed;
            failed += r.failed;
            if first_error.is_none() {
                first_error = r.first_error;
            }
        }
        Ok(Self {
            hist,
            resumed,
            failed,
            first_error,
        })
    }
}

/// The run's record: its configuration, throughput, latency percentiles, CPU per handshake
/// and revocation checks.
fn outcome(
    cfg: &Scenario,
    checks: Checks<'_>,
    figures: &Figures,
    totals: Totals,
    counts: &revocation::Counts,
    load: Option<Duration>,
) -> Outcome {
    let Totals {
        hist,
        resumed,
        failed,
        first_error,
    } = totals;
    let seconds = figures.seconds;
    let done = hist.len();
    // A resumed run's clients each did one uncounted full handshake first, whose check the
    // counts hold (a failed one fails the run): theirs are left out.
    let warm_ups = match cfg.resumption {
        Resumption::None => 0,
        _ => cfg.clients as u64,
    };
    let counted =
        |n: &std::sync::atomic::AtomicU64| n.load(Ordering::Relaxed).saturating_sub(warm_ups);
    let per = |d: Duration| {
        if done == 0 {
            0.0
        } else {
            d.as_secs_f64() * 1e6 / done as f64
        }
    };
    Outcome {
        run: HandshakeRun {
            client: cfg.client.into(),
            server: cfg.server.into(),
            provider: cfg.provider.name().to_owned(),
            key: cfg.key.to_string(),
            tls: cfg.tls.name().to_owned(),
            resumption: cfg.resumption.name().to_owned(),
            clients: cfg.clients,
            verifier: match cfg.client {
                Transport::Rustls => cfg.verifier.map(|m| verifier_name(m, checks)),
                Transport::Openssl | Transport::Quic => None,
            },
            intermediate: cfg.intermediate,
            server_threads: cfg.server_threads.max(1),
            client_threads: figures.threads,
            handshakes: done,
            resumed,
            seconds,
            per_second: if seconds > 0.0 {
                done as f64 / seconds
            } else {
                0.0
            },
            p50_us: hist.value_at_quantile(0.50) as f64,
            p90_us: hist.value_at_quantile(0.90) as f64,
            p99_us: hist.value_at_quantile(0.99) as f64,
            max_us: hist.max() as f64,
            client_cpu_us: per(figures.client_cpu),
            server_cpu_us: per(figures.server_cpu),
            revocation_checks: counted(&counts.checks),
            revocation_good: counted(&counts.good),
            revocation_data_bytes: counts.data_bytes.load(Ordering::Relaxed),
            revocation_resident_bytes: counts.resident_bytes.load(Ordering::Relaxed),
            revocation_load_us: load.map(|d| d.as_secs_f64() * 1e6),
        },
        failed,
        first_error,
    }
}

/// How a run names its rustls client's certbench verifier: the method, `+ CT (2 logs of
/// the handshake run)` when it checked CT, and `+ revocation (crlite: 1.3 MB of the handshake
/// run)` when it checked revocation (each a configuration of its own: its rows never mix with
/// the method's without).
pub fn verifier_name(method: certbench_core::Method, checks: Checks<'_>) -> String {
    let mut name = method.name().to_owned();
    let resolved = checks.for_method(method);
    if let Some(logs) = &resolved.ct {
        name.push_str(&format!(" + CT ({})", logs.label()));
    }
    if let (Some(r), Some(m)) = (checks.revocation, resolved.mechanism()) {
        name.push_str(&format!(" + revocation ({})", r.label(m)));
    }
    name
}
