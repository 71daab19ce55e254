//! What one `certbench handshake` run measures ([`HandshakeOptions`]) and the sweep over it
//! ([`sweep`]): every key × version × resumption × client stack (rustls once per verifier) ×
//! server thread count, in that order, each a [`Scenario`] measured against a fresh server with
//! the key's certificate. What happens along the way is told as [`Event`]s, whose text is the
//! CLI's notes and warnings.

use std::sync::Arc;
use std::time::Duration;

use certbench_core::ct::CtLogs;
use certbench_core::revocation::Mechanism;
use certbench_schema::records::handshake::HandshakeRun;

use super::error::HandshakeError;
use super::revocation::RunData;
use super::scenario::{Checks, Outcome, Resumption, Scenario};
use crate::certs::test::{self as certs, ServerCert};
use crate::revocation::bundle;
use crate::tls::{KeyType, Provider, Version};
use certbench_schema::Transport;

/// The client stacks (`--transport`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Clients {
    /// OpenSSL only.
    Openssl,
    /// rustls only.
    Rustls,
    /// Both, side by side.
    All,
}

impl Clients {
    /// The stacks, OpenSSL first.
    pub fn stacks(self) -> Vec<Transport> {
        match self {
            Clients::Openssl => vec![Transport::Openssl],
            Clients::Rustls => vec![Transport::Rustls],
            Clients::All => vec![Transport::Openssl, Transport::Rustls],
        }
    }
}

/// The server's stack (`--server`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ServerChoice {
    /// The client's own stack (OpenSSL ↔ OpenSSL, rustls ↔ rustls), as published comparisons.
    Same,
    /// OpenSSL for every client.
    Openssl,
    /// rustls for every client.
    Rustls,
}

impl ServerChoice {
    /// The server's stack for a `client` stack.
    pub fn for_client(self, client: Transport) -> Transport {
        match self {
            ServerChoice::Same => client,
            ServerChoice::Openssl => Transport::Openssl,
            ServerChoice::Rustls => Transport::Rustls,
        }
    }
}

/// Everything a throughput run measures.
#[derive(Clone, Debug)]
pub struct HandshakeOptions {
    /// Client stacks.
    pub clients: Vec<Transport>,
    /// The server's stack.
    pub server: ServerChoice,
    /// Key types.
    pub keys: Vec<KeyType>,
    /// Versions.
    pub versions: Vec<Version>,
    /// Resumption mechanisms.
    pub resumptions: Vec<Resumption>,
    /// Concurrent clients.
    pub concurrency: usize,
    /// Handshakes counted per configuration.
    pub handshakes: u64,
    /// Stop each configuration after this long, if sooner.
    pub duration: Option<Duration>,
    /// rustls' provider.
    pub provider: Provider,
    /// The rustls clients' verifiers, each a configuration: a certbench method, or `None`
    /// for rustls' own.
    pub verifiers: Vec<Option<certbench_core::Method>>,
    /// Leaf ← intermediate ← root instead of leaf ← CA.
    pub intermediate: bool,
    /// Server thread counts, each a configuration.
    pub server_threads: Vec<usize>,
    /// Client threads (default: as many as server threads).
    pub client_threads: Option<usize>,
    /// `--ct`: the leaf embeds SCTs from logs made for the run ([`super::ct`]), which the
    /// rustls clients' certbench methods with a CT check check.
    pub ct: bool,
    /// `--revocation`: data made for each key's certificate at this scale ([`super::revocation`]),
    /// which the rustls clients' certbench methods with a revocation check check (the rustls
    /// methods with this mechanism).
    pub revocation: Option<(Mechanism, bundle::Scale)>,
}

/// What happens during a [`sweep`]; `Display` is the line the CLI prints.
pub enum Event<'a> {
    /// A configuration starts (a note), with what its client checks beyond the chain.
    Start(&'a Scenario, Checks<'a>),
    /// Something about the run's data (a note): the revocation data made, its one load.
    Note(String),
    /// Some of its handshakes failed (an error).
    Failed(&'a Outcome),
    /// A resumed configuration did full handshakes (a warning, loud even with `--quiet`: the
    /// figures are not of resumed handshakes).
    NotResumed(&'a Scenario, &'a Outcome),
}

impl std::fmt::Display for Event<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::Note(line) => write!(f, "certbench: {line}"),
            Event::Start(cfg, checks) => write!(
                f,
                "certbench: handshake {}{} → {} server ({} thread(s)), {}, TLS {}, resumption {}, {} client(s) on {} thread(s)",
                cfg.client.name(),
                (cfg.verifier.filter(|_| cfg.client == Transport::Rustls))
                    .map(|m| format!(" ({})", super::verifier_name(m, *checks)))
                    .unwrap_or_default(),
                cfg.server.name(),
                cfg.server_threads,
                cfg.key,
                cfg.tls.name(),
                cfg.resumption.name(),
                cfg.clients,
                cfg.client_threads.clamp(1, cfg.clients)
            ),
            Event::Failed(o) => write!(
                f,
                "certbench: error: {} handshake(s) failed; first: {}",
                o.failed,
                o.first_error.as_deref().unwrap_or("?")
            ),
            Event::NotResumed(cfg, o) => write!(
                f,
                "certbench: WARNING: resumption fell back to full handshakes: only {} of {} {} handshakes were resumed ({} client, {} server, TLS {})",
                o.run.resumed,
                o.run.handshakes,
                cfg.resumption.name(),
                cfg.client.name(),
                cfg.server.name(),
                cfg.tls.name()
            ),
        }
    }
}

/// The figures of a sweep, and whether any configuration failed handshakes or did not resume.
pub struct Sweep {
    /// One run per configuration, in the sweep's order.
    pub runs: Vec<HandshakeRun>,
    /// Some handshakes failed, or some were not resumed.
    pub partial: bool,
}

/// The configurations of one key, version and resumption: OpenSSL clients once, rustls
/// clients once per verifier; each once per server thread count.
fn configs(
    opts: &HandshakeOptions,
    key: KeyType,
    tls: Version,
    resumption: Resumption,
) -> Vec<Scenario> {
    let mut out = Vec::new();
    for &client in &opts.clients {
        let vs = if client == Transport::Rustls {
            opts.verifiers.clone()
        } else {
            vec![None]
        };
        for verifier in vs {
            for &server_threads in &opts.server_threads {
                out.push(Scenario {
                    client,
                    server: opts.server.for_client(client),
                    key,
                    tls,
                    resumption,
                    clients: opts.concurrency,
                    handshakes: opts.handshakes,
                    duration: opts.duration,
                    provider: opts.provider,
                    verifier,
                    intermediate: opts.intermediate,
                    server_threads,
                    client_threads: opts.client_threads.unwrap_or(server_threads),
                });
            }
        }
    }
    out
}

/// The run's certificate for `key`; with `ct` the logs of the SCTs its leaf embeds; with
/// `revocation` the data made for it (its leaf then has SCTs too, which CRLite's coverage
/// reads, whether or not the clients check CT).
type Made = (ServerCert, Option<Arc<CtLogs>>, Option<RunData>);
fn cert(
    opts: &HandshakeOptions,
    key: KeyType,
    on: &mut impl FnMut(Event<'_>),
) -> Result<Made, HandshakeError> {
    let (intermediate, ct) = (opts.intermediate, opts.ct);
    if let Some((mechanism, scale)) = opts.revocation {
        let signed = super::ct::generate_signed(key, intermediate)?;
        let data = super::revocation::make(&signed, mechanism, scale)?;
        on(Event::Note(data.describe()));
        return Ok((signed.cert, ct.then_some(signed.logs), Some(data)));
    }
    if ct {
        let (cert, logs) = super::ct::generate(key, intermediate)?;
        return Ok((cert, Some(logs), None));
    }
    let made = if intermediate {
        certs::generate_with_intermediate(key)
    } else {
        certs::generate(key)
    };
    Ok((made.map_err(HandshakeError::Generate)?, None, None))
}

/// Measures every configuration of `opts`, telling `on` of each as it starts and of its
/// troubles as they are found.
pub fn sweep(
    opts: &HandshakeOptions,
    mut on: impl FnMut(Event<'_>),
) -> Result<Sweep, HandshakeError> {
    let mut sweep = Sweep {
        runs: Vec::new(),
        partial: false,
    };
    for &key in &opts.keys {
        let (cert, ct, revocation) = cert(opts, key, &mut on)?;
        let checks = Checks {
            ct: ct.as_ref(),
            revocation: revocation.as_ref(),
        };
        let mut loaded = Vec::new();
        for &tls in &opts.versions {
            for &resumption in &opts.resumptions {
                for cfg in configs(opts, key, tls, resumption) {
                    let rev = checks.mechanism(&cfg).zip(revocation.as_ref());
                    if let Some((m, r)) = rev.filter(|(m, _)| !loaded.contains(m)) {
                        loaded.push(m);
                        on(Event::Note(load_note(m, r)));
                    }
                    on(Event::Start(&cfg, checks));
                    let o = super::run_checking(&cfg, &cert, checks)?;
                    if o.failed > 0 {
                        sweep.partial = true;
                        on(Event::Failed(&o));
                    }
                    if resumption != Resumption::None && o.run.resumed < o.run.handshakes {
                        sweep.partial = true;
                        on(Event::NotResumed(&cfg, &o));
                    }
                    sweep.runs.push(o.run);
                }
            }
        }
    }
    Ok(sweep)
}

/// Loads `m`'s data once, before any timed handshake, and says how long that took.
fn load_note(m: Mechanism, data: &RunData) -> String {
    match data.preload(m) {
        Some(took) => format!(
            "revocation data: {} loaded in {:.2} ms, once, before the timed handshakes (whose checks are warm)",
            data.label(m),
            took.as_secs_f64() * 1e3
        ),
        None => format!("revocation data: {}, nothing to load", data.label(m)),
    }
}
