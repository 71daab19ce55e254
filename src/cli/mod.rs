//! The command line: argument parsing (clap) and the commands, with `anyhow` at this edge.
//!
//! Exit codes: 0 everything was measured; 1 fatal error (nothing measured: bad arguments
//! that clap could not see, unreadable corpus or roots); 2 usage error (clap); 3 the run
//! finished but some items could not be measured (each is an error row in the tables).

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use certbench_analysis::export::{Format, Report, render};
use certbench_analysis::units::human;
use certbench_analysis::{Sample, Stage, Verdict};
use clap::{Args, Parser, Subcommand};

use crate::bench::driver::{self, DriverOptions};
use crate::bench::verify::{self, VerifyOptions};
use crate::corpus::{Corpus, bundled_dir};
use crate::methods::{Method, parse_methods};
use crate::mirror::MirrorSet;
use crate::mirror::server::MirrorServer;
use crate::roots::{RootSet, RootsSpec};
use crate::sites::read_sites;
use crate::transport::Transport;
use crate::transport::openssl::HookMode;

mod handshake;
mod icount;
mod limbo;
mod report;

/// Exit code when the run finished but some items could not be measured.
pub const EXIT_PARTIAL: u8 = 3;
/// Exit code of a run stopped by Ctrl-C (SIGINT), as shells report it (128 + 2).
pub const EXIT_INTERRUPTED: u8 = 130;

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
    drive: DriveArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Time verification alone on stored real chains, at each chain's validation time.
    Verify(VerifyArgs),
    /// Serve the loopback mirror alone (for curl, a browser or a Servo build).
    Mirror(MirrorArgs),
    /// Run every method on the testcases of an x509-limbo file and compare the verdicts.
    Limbo(limbo::LimboArgs),
    /// Print the tables of JSONL sample files (driver, verify, patched Servo), merged.
    Report(report::ReportArgs),
    /// Count the instructions of each method's verify path under callgrind (deterministic).
    Icount(icount::IcountArgs),
    /// Handshakes per second, latency and CPU per handshake on loopback: OpenSSL vs rustls.
    Handshake(handshake::HandshakeArgs),
}

#[derive(Args, Debug)]
struct DriveArgs {
    /// Sites file: one host, host:port or https:// URL per line; # comments.
    #[arg(long, default_value = "sites.txt")]
    sites: PathBuf,
    /// Methods: openssl, rustlsserial, rustlsparallel, all, or a comma-separated list.
    #[arg(long, default_value = "all")]
    method: Vec<MethodList>,
    /// TLS stack: openssl (hyper over OpenSSL, the seed's) or rustls (hyper-rustls over
    /// rustls, Servo's today, each method inside a TimedVerifier).
    #[arg(long, value_enum, default_value = "openssl")]
    transport: Transport,
    /// How webpki methods enter OpenSSL (--transport openssl): callback (set_verify_callback
    /// after OpenSSL's own verification, the 2017 way) or replace (instead of X509_verify_cert).
    #[arg(long, value_enum, default_value = "callback")]
    hook: HookMode,
    /// Measured runs per site and method.
    #[arg(long, default_value_t = 10)]
    runs: u32,
    /// Warm-up runs (recorded as warm-up, left out of the tables).
    #[arg(long, default_value_t = 1)]
    warmup: u32,
    /// Seconds allowed for one connection (resolution, connect, handshake, response head).
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Serve every site from the loopback mirror (clones of the real chains) and trust its roots.
    #[arg(long)]
    mirror: bool,
    /// Where the mirror's generated certificates are cached.
    #[arg(long, default_value = ".certbench-cache/mirror")]
    mirror_cache: PathBuf,
    /// Offer each site's previous TLS session again (resumed handshakes carry no certificate,
    /// so they have no verification stages); without it every sample is a full handshake.
    #[arg(long)]
    tls_resumption: bool,
    /// Use ADDR for HOST:PORT instead of DNS, as curl's --resolve (repeatable).
    #[arg(long, value_name = "HOST:PORT:ADDR")]
    resolve: Vec<String>,
    /// Trust roots: mozilla (bundled), system, or a PEM file (the mirror's are added with --mirror).
    #[arg(long, default_value = "mozilla")]
    roots: RootsSpec,
    /// Build each method's trust store once and reuse it (roots-creation is then 0 per use).
    #[arg(long)]
    cache_roots: bool,
    /// Append every sample as a JSON line to FILE, flushed as taken [default: results/run-<time>.jsonl].
    #[arg(long)]
    raw: Option<PathBuf>,
    /// Sites measured at once (each site one sample at a time; every site of a run before
    /// the next run). Stages that build stores run on the driver's thread, so concurrency
    /// mostly overlaps network waits.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    concurrency: u16,
    /// Continue an interrupted run: read FILE (its raw samples), skip every sample it already
    /// has, append the rest to it, and print the tables of the whole run. Options that
    /// change what a sample measures (transport, hook, mirror, TLS resumption, roots,
    /// cache-roots, resolve, concurrency) must be those of the first part (checked against
    /// the run header beside FILE).
    #[arg(long, value_name = "FILE", conflicts_with = "raw")]
    resume: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

/// Output options of the measuring commands.
#[derive(Args, Debug)]
struct OutputArgs {
    /// Table format: md, csv or json.
    #[arg(long, default_value = "md")]
    format: Format,
    /// Write the tables to FILE instead of standard output.
    #[arg(long)]
    output: Option<PathBuf>,
    /// No progress or notes on standard error.
    #[arg(long)]
    quiet: bool,
}

impl OutputArgs {
    /// A note on standard error, unless `--quiet`.
    fn note(&self, msg: &str) {
        if !self.quiet {
            eprintln!("{msg}");
        }
    }

    /// A progress bar on standard error when it is a terminal and not `--quiet`.
    fn progress(&self, total: u64) -> indicatif::ProgressBar {
        if !self.quiet && std::io::stderr().is_terminal() {
            indicatif::ProgressBar::new(total)
        } else {
            indicatif::ProgressBar::hidden()
        }
    }

    /// Renders the tables of `samples` (tables in `methods` order; markdown starts with
    /// `title`) and writes them to `--output` or standard output.
    fn emit(&self, title: &str, samples: &[Sample], methods: &[Method]) -> Result<()> {
        self.write(&self.tables(title, samples, methods))
    }

    /// The tables of `samples` in the chosen format, under `title` in markdown.
    fn tables(&self, title: &str, samples: &[Sample], methods: &[Method]) -> String {
        let order: Vec<&str> = methods.iter().map(|m| m.name()).collect();
        let report = Report::from_samples(samples, Stage::TotalVerification, &order);
        let mut text = String::new();
        if self.format == Format::Markdown {
            text.push_str(&format!("## {title}\n\n"));
        }
        text.push_str(&render(&report, self.format));
        text
    }

    /// Writes `text` to `--output`, or to stdout.
    fn write(&self, text: &str) -> Result<()> {
        match &self.output {
            Some(p) => std::fs::write(p, text).with_context(|| format!("writing {}", p.display())),
            None => Ok(std::io::stdout().write_all(text.as_bytes())?),
        }
    }
}

/// The raw samples file: every sample appended as one JSON line, in one `write` call as it
/// is taken (no buffer), so that a run cut short — even by a second Ctrl-C that exits at
/// once — keeps every finished sample and never a half line.
struct RawSink {
    path: PathBuf,
    writer: Option<File>,
    error: Option<std::io::Error>,
}

impl RawSink {
    /// Opens `path` for appending (creating its folder); `None` writes nothing.
    fn open(path: Option<&std::path::Path>) -> Result<RawSink> {
        let Some(path) = path else {
            return Ok(RawSink {
                path: PathBuf::new(),
                writer: None,
                error: None,
            });
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let file = File::options()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        // The run's header for reports (machine, versions, command), beside the samples; a
        // resumed run keeps the first one.
        let info = certbench_analysis::schema::run_info_path(path);
        if !info.exists() {
            let json = serde_json::to_string_pretty(&crate::versions::run_info())?;
            std::fs::write(&info, json).with_context(|| format!("writing {}", info.display()))?;
        }
        Ok(RawSink {
            path: path.to_owned(),
            writer: Some(file),
            error: None,
        })
    }

    /// Appends one sample; after a write error, writes nothing more (see [`RawSink::report`]).
    fn write(&mut self, sample: &Sample) {
        if let (Some(w), None) = (self.writer.as_mut(), self.error.as_ref()) {
            let mut line = serde_json::to_string(sample).expect("samples serialize");
            line.push('\n');
            if let Err(e) = w.write_all(line.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    /// Tells of a write error, if there was one.
    fn report(&self, out: &OutputArgs) {
        if let Some(e) = &self.error {
            out.note(&format!(
                "certbench: error: writing {}: {e}",
                self.path.display()
            ));
        }
    }
}

#[derive(Args, Debug)]
struct MirrorArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8443")]
    listen: std::net::SocketAddr,
    /// Where the generated certificates are cached.
    #[arg(long, default_value = ".certbench-cache/mirror")]
    mirror_cache: PathBuf,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    /// Methods: openssl, rustlsserial, rustlsparallel, all, or a comma-separated list.
    #[arg(long, default_value = "all")]
    method: Vec<MethodList>,
    /// Measured runs per chain and method.
    #[arg(long, default_value_t = 20)]
    runs: u32,
    /// Warm-up runs before measuring (recorded as warm-up, left out of the tables).
    #[arg(long, default_value_t = 2)]
    warmup: u32,
    /// Folder of chains (with or without manifest.json) [default: the bundled corpus].
    #[arg(long)]
    chains: Option<PathBuf>,
    /// Trust roots: mozilla (bundled), system, or a PEM file.
    #[arg(long, default_value = "mozilla")]
    roots: RootsSpec,
    /// Do not add the chains' own root.pem anchors to the trust roots.
    #[arg(long)]
    no_corpus_roots: bool,
    /// Build each method's trust store once and reuse it (roots-creation is then 0 per use).
    #[arg(long)]
    cache_roots: bool,
    /// Append every sample (warm-up included) to FILE as JSON lines, flushed as taken.
    #[arg(long)]
    raw: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Verify(args)) => run_verify(args),
        Some(Command::Mirror(args)) => run_mirror(args),
        Some(Command::Limbo(args)) => limbo::run(args),
        Some(Command::Report(args)) => report::run(args),
        Some(Command::Icount(args)) => icount::run(args),
        Some(Command::Handshake(args)) => handshake::run(args),
        None => run_drive(cli.drive),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("certbench: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run_verify(args: VerifyArgs) -> Result<ExitCode> {
    let methods = dedup(args.method.iter().flat_map(|l| l.0.clone()).collect());
    let dir = args.chains.clone().unwrap_or_else(bundled_dir);
    let corpus =
        Corpus::load(&dir).with_context(|| format!("loading chains from {}", dir.display()))?;
    if corpus.chains.is_empty() && corpus.failures.is_empty() {
        anyhow::bail!("{}: no chain folders found", dir.display());
    }
    let mut roots = RootSet::load(&args.roots).context("loading trust roots")?;
    if !args.no_corpus_roots {
        roots.extend("corpus", corpus.roots());
    }
    let out = &args.out;
    for f in &corpus.failures {
        out.note(&format!("certbench: error: chain {}: {}", f.id, f.error));
    }
    out.note(&format!(
        "certbench verify: {} chains × {} methods × {} runs (+{} warm-up), roots {}{}",
        corpus.chains.len(),
        methods.len(),
        args.runs,
        args.warmup,
        roots.describe(),
        if args.cache_roots {
            ", cached"
        } else {
            ", cold per sample"
        }
    ));

    let mut raw = RawSink::open(args.raw.as_deref())?;
    let total = (corpus.chains.len() * methods.len()) as u64 * u64::from(args.runs + args.warmup);
    let bar = out.progress(total);
    let mut samples: Vec<Sample> = Vec::new();
    let opts = VerifyOptions {
        methods: methods.clone(),
        runs: args.runs,
        warmup: args.warmup,
        cache_roots: args.cache_roots,
    };
    let cached = verify::run(&corpus, &roots, &opts, |s| {
        raw.write(&s);
        if !s.stages.is_empty() {
            bar.inc(1);
        }
        samples.push(s);
    });
    bar.finish_and_clear();
    raw.report(out);
    for c in &cached {
        out.note(&format!(
            "roots-creation, built once for {}: {}",
            c.method,
            human(c.build_ns as f64)
        ));
    }
    out.emit(
        &format!(
            "certbench verify — {} chains, {} runs (+{} warm-up), roots {}, {}",
            corpus.chains.len(),
            args.runs,
            args.warmup,
            roots.describe(),
            if args.cache_roots {
                "stores cached"
            } else {
                "stores built cold per sample"
            }
        ),
        &samples,
        &methods,
    )?;

    let failed = samples
        .iter()
        .any(|s| matches!(s.verdict, Verdict::Error(_)));
    Ok(if failed {
        ExitCode::from(EXIT_PARTIAL)
    } else {
        ExitCode::SUCCESS
    })
}

/// One `--method` value (a name, `all`, or a comma-separated list).
#[derive(Clone, Debug)]
struct MethodList(Vec<Method>);

impl std::str::FromStr for MethodList {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_methods(s).map(MethodList)
    }
}

fn dedup(methods: Vec<Method>) -> Vec<Method> {
    let mut out = Vec::new();
    for m in methods {
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn load_mirror(cache: &std::path::Path, quiet: bool) -> Result<MirrorSet> {
    let corpus = Corpus::bundled().context("loading the corpus the mirror clones")?;
    if !quiet && !cache.join("index.json").exists() {
        eprintln!(
            "certbench: generating the mirror's certificates in {} (once)…",
            cache.display()
        );
    }
    let set = MirrorSet::load_or_generate(&corpus, cache).context("mirror certificates")?;
    if !quiet {
        eprintln!(
            "certbench: mirror: {} hosts ({}), roots in {}",
            set.hosts.len(),
            if set.from_cache {
                "cached"
            } else {
                "generated"
            },
            cache.join("roots.pem").display()
        );
    }
    Ok(set)
}

fn run_mirror(args: MirrorArgs) -> Result<ExitCode> {
    let set = load_mirror(&args.mirror_cache, false)?;
    runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let server = MirrorServer::start(&set, listener).context("starting the mirror")?;
        println!("certbench mirror listening on {}", server.addr);
        println!("trust: {}", set.dir.join("roots.pem").display());
        println!(
            "hosts: {}",
            set.hosts.keys().cloned().collect::<Vec<_>>().join(" ")
        );
        tokio::signal::ctrl_c()
            .await
            .context("waiting for Ctrl-C")?;
        Ok(ExitCode::SUCCESS)
    })
}

fn parse_resolve(s: &str) -> Result<((String, u16), std::net::SocketAddr)> {
    let (host, rest) = s
        .split_once(':')
        .with_context(|| format!("--resolve {s}: expected HOST:PORT:ADDR"))?;
    let (port, addr) = rest
        .split_once(':')
        .with_context(|| format!("--resolve {s}: expected HOST:PORT:ADDR"))?;
    let port: u16 = port
        .parse()
        .with_context(|| format!("--resolve {s}: bad port"))?;
    let ip: std::net::IpAddr = addr
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .with_context(|| format!("--resolve {s}: bad address"))?;
    Ok((
        (host.to_ascii_lowercase(), port),
        std::net::SocketAddr::new(ip, port),
    ))
}

fn run_drive(args: DriveArgs) -> Result<ExitCode> {
    let methods = dedup(args.method.iter().flat_map(|l| l.0.clone()).collect());
    let out = &args.out;
    let (sites, bad_lines) = read_sites(&args.sites)
        .with_context(|| format!("reading sites from {}", args.sites.display()))?;
    for e in &bad_lines {
        out.note(&format!(
            "certbench: error: {}: {e} (skipped)",
            args.sites.display()
        ));
    }
    if sites.is_empty() {
        anyhow::bail!("{}: no site to measure", args.sites.display());
    }
    let mut resolve = std::collections::HashMap::new();
    for r in &args.resolve {
        let (k, v) = parse_resolve(r)?;
        resolve.insert(k, v);
    }
    let mut roots = RootSet::load(&args.roots).context("loading trust roots")?;
    let mirror_set = if args.mirror {
        let set = load_mirror(&args.mirror_cache, out.quiet)?;
        roots.extend("mirror", set.roots.clone());
        Some(set)
    } else {
        None
    };
    let timeout = std::time::Duration::try_from_secs_f64(args.timeout)
        .map_err(|e| anyhow::anyhow!("--timeout {}: {e}", args.timeout))?;
    let raw_path = args.resume.clone().or(args.raw.clone()).unwrap_or_else(|| {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        PathBuf::from(format!("results/run-{t}.jsonl"))
    });
    // --resume: the samples already taken, kept for the tables and skipped by the driver.
    let mut samples: Vec<Sample> = Vec::new();
    let mut control = driver::RunControl::default();
    if let Some(path) = &args.resume {
        let bytes = std::fs::read(path).with_context(|| format!("--resume {}", path.display()))?;
        let (previous, errors) = certbench_analysis::schema::read_jsonl(bytes.as_slice());
        for e in &errors {
            out.note(&format!(
                "certbench: {}: {e} (skipped; measured again)",
                path.display()
            ));
        }
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            // A line cut short by a hard stop: end it, so the next sample starts a line.
            use std::io::Write as _;
            File::options()
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(b"\n"))
                .with_context(|| format!("--resume {}", path.display()))?;
        }
        match certbench_analysis::schema::read_run_info(path) {
            Some(info) => check_resumed_options(&args, path, &info.command, out)?,
            None => out.note(&format!(
                "certbench: warning: no run header beside {} ({}): cannot check that this run's options match the first part's",
                path.display(),
                certbench_analysis::schema::run_info_path(path).display()
            )),
        }
        control.done = previous.iter().map(driver::sample_key).collect();
        out.note(&format!(
            "certbench: resuming {}: {} samples already taken",
            path.display(),
            previous.len()
        ));
        samples = previous;
    }
    let mut raw = RawSink::open(Some(&raw_path))?;
    out.note(&format!(
        "certbench: {} sites × {} methods × {} runs (+{} warm-up), {}, roots {}, samples → {}",
        sites.len(),
        methods.len(),
        args.runs,
        args.warmup,
        stack(&args),
        roots.describe(),
        raw_path.display()
    ));

    let total = (sites.len() * methods.len()) as u64 * u64::from(args.runs + args.warmup);
    let bar = out.progress(total);
    bar.inc(control.done.len() as u64);
    let rt = runtime()?;
    let finished = rt.block_on(async {
        // Ctrl-C: stop after the current sample and print the tables; a second one quits at
        // once (every finished sample is already in the raw file, a line at a time).
        let stop = control.stop.clone();
        let quiet = out.quiet;
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            if !quiet {
                eprintln!(
                    "certbench: interrupted: stopping after the current sample (Ctrl-C again to quit at once)"
                );
            }
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("certbench: interrupted again: quitting; finished samples are in the raw file");
                std::process::exit(i32::from(EXIT_INTERRUPTED));
            }
        });
        let server = match &mirror_set {
            Some(set) => {
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                    .await
                    .context("binding the mirror")?;
                let server = MirrorServer::start(set, listener).context("starting the mirror")?;
                for s in &sites {
                    resolve
                        .entry((s.host.clone(), s.port))
                        .or_insert(server.addr_for(&s.host));
                }
                Some(server)
            }
            None => None,
        };
        let opts = DriverOptions {
            methods: methods.clone(),
            runs: args.runs,
            warmup: args.warmup,
            transport: args.transport,
            hook: args.hook,
            timeout,
            cache_roots: args.cache_roots,
            resolve,
            resumption: args.tls_resumption,
            concurrency: usize::from(args.concurrency),
        };
        let finished = driver::run_with(&sites, &roots, &opts, &control, |s| {
            raw.write(&s);
            bar.inc(1);
            samples.push(s);
        })
        .await;
        drop(server);
        anyhow::Ok(finished)
    })?;
    bar.finish_and_clear();
    raw.report(out);
    out.emit(
        &format!(
            "certbench — {} sites{}, {} runs (+{} warm-up), {}, roots {}",
            sites.len(),
            if args.mirror {
                " (loopback mirror)"
            } else {
                ""
            },
            args.runs,
            args.warmup,
            stack(&args),
            roots.describe()
        ),
        &samples,
        &methods,
    )?;
    if let (Some(peak), Some(fds)) = (crate::procstat::peak_rss(), crate::procstat::open_fds()) {
        out.note(&format!(
            "certbench: {} samples; peak RSS {:.0} MB; {fds} open file descriptors at the end",
            samples.len(),
            peak as f64 / 1e6
        ));
    }
    if !finished {
        out.note(&format!(
            "certbench: interrupted: {} samples in {}; `--resume {}` continues the run",
            samples.len(),
            raw_path.display(),
            raw_path.display()
        ));
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    let failed = !bad_lines.is_empty() || samples.iter().any(|s| !s.verdict.is_ok());
    Ok(if failed {
        ExitCode::from(EXIT_PARTIAL)
    } else {
        ExitCode::SUCCESS
    })
}

/// The TLS stack of a driver run, for titles: `openssl transport, webpki hook `callback``.
/// The options that decide what a driver sample measures, as (flag, value): a resumed run
/// must give the same as its first part, or its samples would not be of one experiment.
/// (Sites, methods and run counts may change: those only add or leave out rows and samples,
/// and every row shows its n.)
fn measurement_options(args: &DriveArgs) -> Vec<(&'static str, String)> {
    let mut resolve = args.resolve.clone();
    resolve.sort();
    let mut v = vec![
        (
            "--transport",
            format!("{:?}", args.transport).to_lowercase(),
        ),
        ("--mirror", args.mirror.to_string()),
        ("--tls-resumption", args.tls_resumption.to_string()),
        ("--roots", format!("{:?}", args.roots)),
        ("--cache-roots", args.cache_roots.to_string()),
        ("--resolve", resolve.join(",")),
        ("--concurrency", args.concurrency.to_string()),
    ];
    if args.transport == Transport::Openssl {
        v.push(("--hook", args.hook.name().to_owned()));
    }
    v
}

/// `--resume FILE`: refuses to go on when the first part of the run (its command line, from
/// the run header beside FILE) measured something else than this run would.
fn check_resumed_options(
    args: &DriveArgs,
    path: &std::path::Path,
    first_command: &[String],
    out: &OutputArgs,
) -> Result<()> {
    let first = match Cli::try_parse_from(first_command) {
        Ok(Cli {
            command: None,
            drive,
        }) => drive,
        Ok(_) => anyhow::bail!(
            "--resume {}: its samples were not taken by a driver run (first command: {})",
            path.display(),
            first_command.join(" ")
        ),
        Err(_) => {
            out.note(&format!(
                "certbench: warning: --resume {}: cannot read the first part's command line ({}); not checking that the options match",
                path.display(),
                first_command.join(" ")
            ));
            return Ok(());
        }
    };
    let now = measurement_options(args);
    let then = measurement_options(&first);
    let differ: Vec<String> = then
        .iter()
        .filter(|o| !now.contains(o))
        .map(|(flag, was)| {
            let is = now
                .iter()
                .find(|(f, _)| f == flag)
                .map_or("(not applicable)", |(_, v)| v.as_str());
            format!("{flag} was {was}, now {is}")
        })
        .chain(
            now.iter()
                .filter(|(f, _)| !then.iter().any(|(g, _)| g == f))
                .map(|(flag, is)| format!("{flag} was not applicable, now {is}")),
        )
        .collect();
    if !differ.is_empty() {
        anyhow::bail!(
            "--resume {}: this run's options differ from the first part's, so its samples would measure something else ({}); give the same options as the first time: {}",
            path.display(),
            differ.join("; "),
            first_command.join(" ")
        );
    }
    Ok(())
}

fn stack(args: &DriveArgs) -> String {
    match args.transport {
        Transport::Openssl => format!("openssl transport, webpki hook `{}`", args.hook.name()),
        Transport::Rustls => "rustls transport (TimedVerifier)".to_owned(),
    }
}
