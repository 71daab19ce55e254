//! `certbench handshake`: handshake throughput, latency and CPU on loopback, per client stack
//! and configuration (args → [`crate::handshake::plan::HandshakeOptions`] →
//! [`crate::handshake::plan::sweep`] → tables), or memory per held connection (`--hold`).

use std::time::Duration;

use anyhow::{Result, bail};
use certbench_analysis::export::{render_handshakes, render_memory};
use clap::Args;

use super::args::MethodArg;
use super::output::{self, Outcome, OutputArgs};
use crate::handshake::Resumption;
use crate::handshake::hold::{self, HoldPlan};
use crate::handshake::plan::{self, Clients, Event, HandshakeOptions, ServerChoice};
use crate::tls::{KeyType, Provider, Version};
use certbench_schema::Transport;

#[derive(Args, Debug)]
pub(super) struct HandshakeArgs {
    /// Client stack(s).
    #[arg(long, value_enum, default_value = "all")]
    transport: Clients,
    /// Server stack.
    #[arg(long, value_enum, default_value = "same")]
    server: ServerChoice,
    /// Server key type(s), comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "p256")]
    key: Vec<KeyType>,
    /// TLS version(s), comma-separated.
    #[arg(long, value_parser = Version::value_parser("TLS 1.2"), value_delimiter = ',', default_value = "1.3")]
    tls: Vec<Version>,
    /// Resumption mechanism(s), comma-separated: none (full handshakes), tickets, session-id.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "none")]
    resumption: Vec<Resumption>,
    /// Concurrent clients.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    clients: u16,
    /// Handshakes counted per configuration.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    handshakes: u64,
    /// Stop each configuration after this many seconds, if sooner.
    #[arg(long)]
    duration: Option<f64>,
    /// rustls crypto provider.
    #[arg(long, value_enum, default_value = "aws-lc-rs")]
    provider: Provider,
    /// The rustls clients' certificate verifier(s), comma-separated certbench methods, each a
    /// configuration of its own [default: rustls' own WebPkiServerVerifier]. OpenSSL clients
    /// always verify with OpenSSL.
    #[arg(long, value_enum, value_delimiter = ',')]
    method: Vec<MethodArg>,
    /// Serve leaf ← intermediate ← root (two signature checks per verification) instead of a
    /// leaf issued by the trusted CA (one).
    #[arg(long)]
    intermediate: bool,
    /// Server threads, comma-separated: one configuration per count (server scaling). Each
    /// thread runs its own single-threaded runtime accepting from the one socket.
    #[arg(long, value_delimiter = ',', default_value = "1", value_parser = clap::value_parser!(u16).range(1..=1024))]
    server_threads: Vec<u16>,
    /// Client threads the --clients tasks spread over [default: as many as server threads]:
    /// one client thread cannot keep several server threads busy.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    client_threads: Option<u16>,
    /// Instead of throughput: hold this many idle connections (comma-separated counts) per
    /// client stack and report each side's resident memory per connection.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["ct", "revocation"], value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    hold: Vec<usize>,
    /// Internal: serve for `--hold` in a child process.
    #[arg(long, hide = true)]
    serve_child: bool,
    #[command(flatten)]
    ct: super::ct::CtArgs,
    #[command(flatten)]
    revocation: super::revocation::RevocationArgs,
    #[command(flatten)]
    out: OutputArgs,
}

impl HandshakeArgs {
    fn duration(&self) -> Result<Option<Duration>> {
        Ok(match self.duration {
            Some(s) if !(s > 0.0 && s <= 86_400.0) => bail!("--duration must be in (0, 86400]"),
            Some(s) => Some(Duration::from_secs_f64(s)),
            None => None,
        })
    }

    fn options(&self, duration: Option<Duration>) -> HandshakeOptions {
        HandshakeOptions {
            clients: self.transport.stacks(),
            server: self.server,
            keys: self.key.clone(),
            versions: self.tls.clone(),
            resumptions: self.resumption.clone(),
            concurrency: usize::from(self.clients),
            handshakes: self.handshakes,
            duration,
            provider: self.provider,
            verifiers: super::args::or_rustls_own(&self.method),
            intermediate: self.intermediate,
            server_threads: self.server_threads.iter().map(|&t| t.into()).collect(),
            client_threads: self.client_threads.map(usize::from),
            ct: self.ct.ct,
            revocation: None,
        }
    }

    fn hold_plan(&self) -> HoldPlan {
        HoldPlan {
            counts: self.hold.clone(),
            clients: self.transport.stacks(),
            server: self.server,
            key: self.key[0],
            tls: self.tls[0],
            provider: self.provider,
        }
    }
}

pub(super) fn run(args: HandshakeArgs, argv: Vec<String>) -> Result<Outcome> {
    let info = certbench_core::versions::run_info(argv); // the run header, as of the start
    let duration = args.duration()?;
    let out = &args.out;
    args.ct.for_handshake(!args.method.is_empty())?;
    let revocation = args.revocation.for_handshake(!args.method.is_empty())?;
    if args.serve_child {
        let (key, tls, server) = (args.key[0], args.tls[0], args.server);
        let server = server.for_client(Transport::Openssl);
        hold::serve_child(server, key, tls, args.provider, output::print)?;
        return Ok(Outcome::Complete);
    }
    if !args.hold.is_empty() {
        let runs = hold::hold_all(&args.hold_plan(), |msg| out.note(msg))?;
        out.write_with_header(&render_memory(&runs, out.format), &info)?;
        return Ok(Outcome::Complete);
    }
    let opts = HandshakeOptions {
        revocation,
        ..args.options(duration)
    };
    let sweep = plan::sweep(&opts, |event| match event {
        Event::Start(..) | Event::Note(_) => out.note(&event.to_string()),
        Event::Failed(_) | Event::NotResumed(..) => out.error(&event.to_string()),
    })?;
    out.write_with_header(&render_handshakes(&sweep.runs, out.format), &info)?;
    Ok(Outcome::partial_if(sweep.partial))
}
