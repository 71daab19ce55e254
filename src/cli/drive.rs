//! The main job, `certbench [--sites FILE] [--method …] [--mirror] …`: args → options
//! ([`DriveArgs::plan`]) → the driver ([`crate::driver::run_with`]) → the tables.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use certbench_analysis::Sample;
use clap::{Args, Parser};

use super::args::{MethodArg, methods};
use super::output::{self, Outcome};
use super::output::{OutputArgs, RawSink};
use super::{Cli, mirror, runtime};
use crate::driver::{self, DriverOptions, RunControl};
use crate::mirror::MirrorSet;
use crate::roots::{RootSet, RootsSpec};
use crate::sites::{Site, SiteError, read_sites};
use crate::transport::TransportKind;
use crate::transport::openssl::HookMode;

#[derive(Args, Debug)]
pub(super) struct DriveArgs {
    /// Sites file: one host, host:port or https:// URL per line; # comments.
    #[arg(long, default_value = "sites.txt")]
    sites: PathBuf,
    /// Methods, comma-separated (or repeated): any of the possible values.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    method: Vec<MethodArg>,
    /// TLS stack: openssl (hyper over OpenSSL, the seed's) or rustls (hyper-rustls over
    /// rustls, Servo's today, each method inside a TimedVerifier).
    #[arg(long, value_enum, default_value = "openssl")]
    transport: TransportKind,
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

/// Every `--resolve HOST:PORT:ADDR`, as a map (the first bad one is the error).
pub(super) fn resolve_map(
    values: &[String],
) -> Result<std::collections::HashMap<(String, u16), std::net::SocketAddr>> {
    values.iter().map(|r| parse_resolve(r)).collect()
}

/// `--timeout SECONDS` as a duration.
pub(super) fn timeout(seconds: f64) -> Result<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(seconds)
        .map_err(|e| anyhow::anyhow!("--timeout {seconds}: {e}"))
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

/// A driver run, read from the arguments: what to measure and where samples go.
struct Plan {
    sites: Vec<Site>,
    bad_lines: Vec<SiteError>,
    roots: RootSet,
    mirror: Option<MirrorSet>,
    opts: DriverOptions,
    raw_path: PathBuf,
}

impl DriveArgs {
    /// Args → options: the sites (bad lines named and skipped), `--resolve`, the roots (and
    /// the mirror's), the timeout, the raw file.
    fn plan(&self) -> Result<Plan> {
        let out = &self.out;
        let (sites, bad_lines) = read_sites(&self.sites)
            .with_context(|| format!("reading sites from {}", self.sites.display()))?;
        for e in &bad_lines {
            out.error(&format!(
                "certbench: error: {}: {e} (skipped)",
                self.sites.display()
            ));
        }
        if sites.is_empty() {
            anyhow::bail!("{}: no site to measure", self.sites.display());
        }
        let resolve = resolve_map(&self.resolve)?;
        let (roots, mirror) =
            mirror::with_roots(&self.roots, self.mirror, &self.mirror_cache, out.quiet)?;
        let timeout = timeout(self.timeout)?;
        let raw_path = self.resume.clone().or(self.raw.clone()).unwrap_or_else(|| {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            PathBuf::from(format!("results/run-{t}.jsonl"))
        });
        let opts = DriverOptions {
            methods: methods(&self.method),
            runs: self.runs,
            warmup: self.warmup,
            transport: self.transport,
            hook: self.hook,
            timeout,
            cache_roots: self.cache_roots,
            resolve,
            resumption: self.tls_resumption,
            concurrency: usize::from(self.concurrency),
        };
        Ok(Plan {
            sites,
            bad_lines,
            roots,
            mirror,
            opts,
            raw_path,
        })
    }

    /// The title of the tables.
    fn title(&self, plan: &Plan) -> String {
        format!(
            "certbench — {} sites{}, {} runs (+{} warm-up), {}, roots {}",
            plan.sites.len(),
            if self.mirror {
                " (loopback mirror)"
            } else {
                ""
            },
            self.runs,
            self.warmup,
            stack(self),
            plan.roots.describe()
        )
    }
}

/// Runs the driver: args → options → samples → tables.
pub(super) fn run(args: DriveArgs, argv: Vec<String>) -> Result<Outcome> {
    let out = &args.out;
    let mut plan = args.plan()?;
    let (mut samples, control) = match &args.resume {
        Some(path) => resume(&args, path)?,
        None => (Vec::new(), RunControl::default()),
    };
    let other_hook = other_hook_command(&argv, &args);
    let info = certbench_analysis::schema::RunInfo {
        other_hook: other_hook.clone(),
        ..crate::versions::run_info(argv)
    };
    let mut raw = RawSink::open(Some(&plan.raw_path), &info)?;
    out.note(&format!(
        "certbench: {} sites × {} methods × {} runs (+{} warm-up), {}, roots {}, samples → {}",
        plan.sites.len(),
        plan.opts.methods.len(),
        args.runs,
        args.warmup,
        stack(&args),
        plan.roots.describe(),
        plan.raw_path.display()
    ));
    let total =
        (plan.sites.len() * plan.opts.methods.len()) as u64 * u64::from(args.runs + args.warmup);
    let bar = out.progress(total);
    bar.inc(control.done.len() as u64);
    let finished = measure(&mut plan, &control, out.quiet, |s| {
        raw.write(&s);
        bar.inc(1);
        samples.push(s);
    })?;
    bar.finish_and_clear();
    raw.report(out);
    out.emit(
        &args.title(&plan),
        &samples,
        &plan.opts.methods,
        other_hook.as_deref(),
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
            plan.raw_path.display(),
            plan.raw_path.display()
        ));
        return Ok(Outcome::Interrupted);
    }
    let failed = !plan.bad_lines.is_empty() || samples.iter().any(|s| !s.verdict.is_ok());
    Ok(Outcome::partial_if(failed))
}

/// `--resume FILE`: the samples already taken (kept for the tables, skipped by the driver),
/// after checking that this run measures what the first part measured.
fn resume(args: &DriveArgs, path: &Path) -> Result<(Vec<Sample>, RunControl)> {
    let out = &args.out;
    let bytes = std::fs::read(path).with_context(|| format!("--resume {}", path.display()))?;
    let (previous, errors) = certbench_analysis::schema::read_jsonl(bytes.as_slice());
    for e in &errors {
        out.error(&format!(
            "certbench: error: {}: {e} (skipped; measured again)",
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
        Some(info) => check_resumed_options(args, path, &info.command, out)?,
        None => out.error(&format!(
            "certbench: warning: no run header beside {} ({}): cannot check that this run's options match the first part's",
            path.display(),
            certbench_analysis::schema::run_info_path(path).display()
        )),
    }
    let control = RunControl {
        done: previous.iter().map(driver::sample_key).collect(),
        ..RunControl::default()
    };
    out.note(&format!(
        "certbench: resuming {}: {} samples already taken",
        path.display(),
        previous.len()
    ));
    Ok((previous, control))
}

/// The measurement itself, on the async runtime: Ctrl-C handling, the mirror if asked for,
/// then the driver. `false` when interrupted.
fn measure(
    plan: &mut Plan,
    control: &RunControl,
    quiet: bool,
    sink: impl FnMut(Sample),
) -> Result<bool> {
    runtime()?.block_on(async {
        // Ctrl-C: stop after the current sample and print the tables; a second one quits at
        // once (every finished sample is already in the raw file, a line at a time).
        let stop = control.stop.clone();
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
                output::quit_interrupted();
            }
        });
        let server = mirror::serve(plan.mirror.as_ref(), &plan.sites, &mut plan.opts.resolve).await?;
        let finished =
            driver::run_with(&plan.sites, &plan.roots, &plan.opts, control, sink).await;
        drop(server);
        anyhow::Ok(finished)
    })
}

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
    if args.transport == TransportKind::Openssl {
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
            out.error(&format!(
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

/// The command that measures the driver run of `command` (program first) under the other
/// hook: `--hook replace` for a callback run and back; for a rustls-transport run, the
/// OpenSSL transport with the seed's callback hook. Its raw-file options are left out (a new
/// run, a new file). `None` when `command` is not a driver run.
fn other_hook_command(command: &[String], drive: &DriveArgs) -> Option<String> {
    let program = match command.first().map(String::as_str) {
        Some(p) if p.ends_with("target/release/certbench") => "cargo run --release --",
        Some(p) if p.ends_with("target/debug/certbench") => "cargo run --",
        _ => "certbench",
    };
    let mut words = vec![program.to_owned()];
    // Leave out the options this function sets, and the raw file's.
    let dropped = ["--hook", "--transport", "--raw", "--resume"];
    let mut args = command.iter().skip(1);
    while let Some(a) = args.next() {
        let flag = a.split_once('=').map_or(a.as_str(), |(f, _)| f);
        if dropped.contains(&flag) {
            if !a.contains('=') {
                args.next();
            }
            continue;
        }
        words.push(quote(a));
    }
    match (drive.transport, drive.hook) {
        (TransportKind::Rustls, _) => {
            words.extend(["--transport", "openssl", "--hook", "callback"].map(str::to_owned))
        }
        (TransportKind::Openssl, HookMode::Callback) => {
            words.extend(["--hook", "replace"].map(str::to_owned))
        }
        (TransportKind::Openssl, HookMode::Replace) => {
            words.extend(["--hook", "callback"].map(str::to_owned))
        }
    }
    Some(words.join(" "))
}

/// `word`, single-quoted for a POSIX shell when it holds anything but plain characters.
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,@+%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The TLS stack of a driver run, for titles: `openssl transport, webpki hook `callback``.
fn stack(args: &DriveArgs) -> String {
    match args.transport {
        TransportKind::Openssl => format!("openssl transport, webpki hook `{}`", args.hook.name()),
        TransportKind::Rustls => "rustls transport (TimedVerifier)".to_owned(),
    }
}
