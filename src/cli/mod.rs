//! The command line: argument parsing (clap) and the commands, with `anyhow` at this edge.
//! Each command has its own file (args → options → the library's run → tables); this one
//! only parses and dispatches.
//!
//! Exit codes: 0 everything was measured; 1 fatal error (nothing measured: bad arguments
//! that clap could not see, unreadable corpus or roots); 2 usage error (clap); 3 the run
//! finished but some items could not be measured (each is an error row in the tables).

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

mod args;
mod bulk;
mod capture;
mod checks;
mod ct;
mod drive;
mod handshake;
mod icount;
mod limbo;
mod measure;
mod mirror;
mod net;
mod other_hook;
mod output;
mod page;
mod pq;
mod report;
mod revocation;
mod revocation_scale;
mod startup;
mod usage;
mod verify;
mod wire;

const AFTER_HELP: &str = "Exit codes: 0 all measured; 1 fatal error; 2 usage error; \
3 finished, but some items could not be measured (see the error rows).";

/// What TLS certificate verification costs a browser, per site and per stage.
///
/// Without a subcommand: connect to every site of the sites file with each method and print
/// per-site × per-stage tables (`--mirror` serves the sites from a local clone instead).
#[derive(Parser, Debug)]
#[command(
    name = "certbench",
    version,
    about,
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    drive: drive::DriveArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Time verification alone on stored real chains, at each chain's validation time.
    Verify(verify::VerifyArgs),
    /// Serve the loopback mirror alone (for curl, a browser or a Servo build).
    Mirror(mirror::MirrorArgs),
    /// Run every method on the testcases of an x509-limbo file and compare the verdicts.
    Limbo(limbo::LimboArgs),
    /// Print the tables of sample files (driver, verify, patched Servo), merged, and of
    /// handshake, page and bulk JSON results; --html charts them.
    Report(report::ReportArgs),
    /// Count instructions under callgrind (deterministic): each method's verify path, and per
    /// TLS stack a handshake, a resumed handshake and 1 MiB of bulk data.
    Icount(icount::IcountArgs),
    /// Handshakes per second, latency and CPU per handshake on loopback: OpenSSL vs rustls.
    Handshake(handshake::HandshakeArgs),
    /// MB/s sending and receiving over an established TLS session, client and server in
    /// memory: OpenSSL, rustls on aws-lc-rs, rustls on ring, per cipher suite.
    Bulk(bulk::BulkArgs),
    /// Verification per page load, with a browser's cache (none or Chrome's), TLS sessions
    /// and connections per host: cold load against later ones.
    Page(page::PageArgs),
    /// Save each site's served chain (verified, with its root) for `verify --chains DIR`.
    Capture(capture::CaptureArgs),
    /// Lookup cost against data size: CRLSets, CRLite filters (in memory and through upki)
    /// and CRLs, cold and warm, with the bytes each keeps resident.
    RevocationScale(revocation_scale::RevocationScaleArgs),
    /// The post-quantum answer on a real wire: today's chains and their twins over TCP and
    /// QUIC through the emulated link, at each RTT, bandwidth and a loss rate, page-sized
    /// responses to their first and last byte (docs/pq.md).
    Wire(wire::WireArgs),
    /// One fresh process's load of one mechanism's revocation data (spawned by a run to
    /// measure start-up apart from its connections).
    #[command(hide = true)]
    StartUp(startup::StartUpArgs),
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // The command line, read once: run headers record it.
    let argv: Vec<String> = std::env::args().collect();
    let result = match cli.command {
        Some(Command::Verify(args)) => verify::run(args, argv),
        Some(Command::Mirror(args)) => mirror::run(args),
        Some(Command::Limbo(args)) => limbo::run(args),
        Some(Command::Report(args)) => report::run(args, argv),
        Some(Command::Icount(args)) => icount::run(args),
        Some(Command::Handshake(args)) => handshake::run(args, argv),
        Some(Command::Capture(args)) => capture::run(args),
        Some(Command::Page(args)) => page::run(args),
        Some(Command::Bulk(args)) => bulk::run(args),
        Some(Command::RevocationScale(args)) => revocation_scale::run(args),
        Some(Command::Wire(args)) => wire::run(args, argv),
        Some(Command::StartUp(args)) => startup::run(args),
        None => drive::run(cli.drive, argv),
    };
    output::exit_code(result)
}

/// The async runtime of the commands that connect.
fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}
