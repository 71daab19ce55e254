//! `certbench handshake`: handshake throughput, latency and CPU on loopback, per client stack
//! and configuration (see `certbench::handshake`).

use std::io::Write;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use certbench_analysis::handshake::{render, render_memory};
use certbench_analysis::schema::{RunInfo, run_info_path};
use clap::Args;

use super::args::{MethodArg, methods};
use super::output::Outcome;
use super::output::OutputArgs;
use crate::handshake::{Config, KeyType, Provider, Resumption, Stack, TlsVersion, certs};

/// Client stacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Clients {
    /// OpenSSL only.
    Openssl,
    /// rustls only.
    Rustls,
    /// Both, side by side.
    All,
}

/// The server's stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ServerStack {
    /// The client's own stack (OpenSSL ↔ OpenSSL, rustls ↔ rustls), as published comparisons.
    Same,
    /// OpenSSL for every client.
    Openssl,
    /// rustls for every client.
    Rustls,
}

#[derive(Args, Debug)]
pub(super) struct HandshakeArgs {
    /// Client stack(s).
    #[arg(long, value_enum, default_value = "all")]
    transport: Clients,
    /// Server stack.
    #[arg(long, value_enum, default_value = "same")]
    server: ServerStack,
    /// Server key type(s), comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "p256")]
    key: Vec<KeyType>,
    /// TLS version(s), comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "1.3")]
    tls: Vec<TlsVersion>,
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
    #[arg(long, value_delimiter = ',')]
    hold: Vec<usize>,
    /// Internal: serve for `--hold` in a child process.
    #[arg(long, hide = true)]
    serve_child: bool,
    #[command(flatten)]
    out: OutputArgs,
}

pub(super) fn run(args: HandshakeArgs, argv: Vec<String>) -> Result<Outcome> {
    let info = crate::versions::run_info(argv); // the run header, as of the start
    let duration = match args.duration {
        Some(s) if !(s > 0.0 && s <= 86_400.0) => bail!("--duration must be in (0, 86400]"),
        Some(s) => Some(Duration::from_secs_f64(s)),
        None => None,
    };
    let stacks: Vec<Stack> = match args.transport {
        Clients::Openssl => vec![Stack::Openssl],
        Clients::Rustls => vec![Stack::Rustls],
        Clients::All => vec![Stack::Openssl, Stack::Rustls],
    };
    let server_for = |client: Stack| match args.server {
        ServerStack::Same => client,
        ServerStack::Openssl => Stack::Openssl,
        ServerStack::Rustls => Stack::Rustls,
    };
    if args.serve_child {
        let server = server_for(Stack::Openssl);
        crate::handshake::hold::serve_child(server, args.key[0], args.tls[0], args.provider)?;
        return Ok(Outcome::Complete);
    }
    if !args.hold.is_empty() {
        let exe = std::env::current_exe()?;
        let mut runs = Vec::new();
        let single = args.hold.len() == 1 && stacks.len() == 1;
        for &n in &args.hold {
            if n == 0 || n > 100_000 {
                bail!("--hold counts must be in 1..=100000");
            }
            for &client in &stacks {
                args.out.note(&format!(
                    "certbench: holding {n} {} → {} connections",
                    client.name(),
                    server_for(client).name()
                ));
                if single {
                    runs.push(crate::handshake::hold::hold(
                        &exe,
                        client,
                        server_for(client),
                        args.key[0],
                        args.tls[0],
                        args.provider,
                        n,
                    )?);
                    continue;
                }
                // Each measurement in a fresh process: memory freed by an earlier one would
                // be reused by the next and hide its growth.
                let out = std::process::Command::new(&exe)
                    .args(["handshake", "--quiet", "--format", "json"])
                    .args(["--hold", &n.to_string(), "--transport", client.name()])
                    .args(["--server", server_for(client).name()])
                    .args(["--key", &args.key[0].to_string()])
                    .args([
                        "--tls",
                        if args.tls[0] == TlsVersion::Tls12 {
                            "1.2"
                        } else {
                            "1.3"
                        },
                    ])
                    .args([
                        "--provider",
                        match args.provider {
                            Provider::AwsLcRs => "aws-lc-rs",
                            Provider::Ring => "ring",
                        },
                    ])
                    .output()?;
                if !out.status.success() {
                    bail!(
                        "holding {n} {} connections: {}",
                        client.name(),
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                let mut r: Vec<certbench_analysis::handshake::MemoryRun> =
                    serde_json::from_slice(&out.stdout)?;
                runs.append(&mut r);
            }
        }
        let text = render_memory(&runs, args.out.format);
        write_output(&args.out, &text, &info)?;
        return Ok(Outcome::Complete);
    }
    let mut runs = Vec::new();
    let mut partial = false;
    for &key in &args.key {
        let cert = if args.intermediate {
            certs::generate_with_intermediate(key)?
        } else {
            certs::generate(key)?
        };
        // The rustls clients' verifiers: rustls' own, or each method asked for.
        let verifiers: Vec<Option<certbench_core::Method>> = if args.method.is_empty() {
            vec![None]
        } else {
            methods(&args.method).into_iter().map(Some).collect()
        };
        for &tls in &args.tls {
            for &resumption in &args.resumption {
                // OpenSSL clients once; rustls clients once per verifier.
                let pairs = stacks.iter().flat_map(|&c| {
                    let vs = if c == Stack::Rustls {
                        verifiers.clone()
                    } else {
                        vec![None]
                    };
                    vs.into_iter().map(move |v| (c, v))
                });
                let pairs = pairs.flat_map(|p| args.server_threads.iter().map(move |&t| (p, t)));
                for ((client, verifier), server_threads) in pairs {
                    let server = server_for(client);
                    let server_threads = usize::from(server_threads);
                    let cfg = Config {
                        client,
                        server,
                        key,
                        tls,
                        resumption,
                        clients: usize::from(args.clients),
                        handshakes: args.handshakes,
                        duration,
                        provider: args.provider,
                        verifier,
                        intermediate: args.intermediate,
                        server_threads,
                        client_threads: args.client_threads.map_or(server_threads, usize::from),
                    };
                    args.out.note(&format!(
                        "certbench: handshake {}{} → {} server ({server_threads} thread(s)), {key}, TLS {}, resumption {}, {} client(s) on {} thread(s)",
                        client.name(),
                        verifier.map(|m| format!(" ({m})")).unwrap_or_default(),
                        server.name(),
                        run_tls(tls),
                        run_res(resumption),
                        args.clients,
                        cfg.client_threads.clamp(1, cfg.clients)
                    ));
                    let o = crate::handshake::run_with_cert(&cfg, &cert)?;
                    if o.failed > 0 {
                        partial = true;
                        args.out.error(&format!(
                            "certbench: error: {} handshake(s) failed; first: {}",
                            o.failed,
                            o.first_error.as_deref().unwrap_or("?")
                        ));
                    }
                    if resumption != Resumption::None && o.run.resumed < o.run.handshakes {
                        partial = true;
                        // Loud, even with --quiet: the figures are not of resumed handshakes.
                        eprintln!(
                            "certbench: WARNING: resumption fell back to full handshakes: only {} of {} {} handshakes were resumed ({} client, {} server, TLS {})",
                            o.run.resumed,
                            o.run.handshakes,
                            run_res(resumption),
                            client.name(),
                            server.name(),
                            run_tls(tls)
                        );
                    }
                    runs.push(o.run);
                }
            }
        }
    }
    let text = render(&runs, args.out.format);
    write_output(&args.out, &text, &info)?;
    Ok(Outcome::partial_if(partial))
}

/// Writes `text` to `--output` (with its run header beside it, `<file>.run.json`, for
/// `certbench report`) or to stdout.
fn write_output(out: &OutputArgs, text: &str, info: &RunInfo) -> Result<()> {
    match &out.output {
        Some(p) => {
            std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?;
            let path = run_info_path(p);
            let header = serde_json::to_string_pretty(info)?;
            std::fs::write(&path, header + "\n")
                .with_context(|| format!("writing {}", path.display()))?;
        }
        None => std::io::stdout().write_all(text.as_bytes())?,
    }
    Ok(())
}

fn run_tls(t: TlsVersion) -> &'static str {
    match t {
        TlsVersion::Tls12 => "1.2",
        TlsVersion::Tls13 => "1.3",
    }
}

fn run_res(r: Resumption) -> &'static str {
    match r {
        Resumption::None => "none",
        Resumption::Tickets => "tickets",
        Resumption::SessionId => "session-id",
    }
}
