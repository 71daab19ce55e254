//! The main job, `certbench [--sites FILE] [--method …] [--mirror] …`: args → plan → tables.

use std::path::PathBuf;

use anyhow::{Context, Result};
use certbench_schema::RunInfo;
use clap::Args;

use super::args::{MethodArg, methods};
use super::net::NetArgs;
use super::output::{Outcome, OutputArgs};
use crate::driver::{self, DrivePlan, DriverOptions, RunControl};
use crate::run::sink::RawSink;
use crate::sites::read_sites;
use certbench_schema::Hook;
use certbench_schema::Transport;

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
    transport: Transport,
    /// How webpki methods enter OpenSSL (--transport openssl): callback (set_verify_callback
    /// after OpenSSL's own verification, the 2017 way) or replace (instead of X509_verify_cert).
    #[arg(long, value_enum, default_value = "callback")]
    hook: Hook,
    /// Measured runs per site and method.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Warm-up runs (recorded as warm-up, left out of the tables).
    #[arg(long, default_value_t = 1)]
    warmup: u32,
    /// Offer each site's previous TLS session again (resumed handshakes carry no certificate,
    /// so they have no verification stages); without it every sample is a full handshake.
    #[arg(long)]
    tls_resumption: bool,
    /// Build each method's trust store once and reuse it (roots-creation is then 0 per use).
    #[arg(long)]
    cache_roots: bool,
    /// Append every sample as a JSON line to FILE, flushed as taken [default: results/run-<time>.jsonl].
    #[arg(long)]
    raw: Option<PathBuf>,
    /// Sites measured at once (each one sample at a time; every site of a run before the next).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024))]
    concurrency: u16,
    /// Continue an interrupted run: skip every sample FILE has, append the rest, print the
    /// whole run's tables; options that change what a sample measures must be the first
    /// part's (checked against the run header beside FILE; docs/driver.md names them).
    #[arg(long, value_name = "FILE", conflicts_with = "raw")]
    resume: Option<PathBuf>,
    #[command(flatten)]
    net: NetArgs,
    #[command(flatten)]
    pq: super::pq::PqArgs,
    #[command(flatten)]
    checks: super::checks::ChecksArgs,
    #[command(flatten)]
    out: OutputArgs,
}

impl DriveArgs {
    /// Args → the plan: the sites (bad lines named and skipped), the net flags, the options.
    fn plan(&self) -> Result<DrivePlan> {
        let (sites, bad_lines) = read_sites(&self.sites)
            .with_context(|| format!("reading sites from {}", self.sites.display()))?;
        let file = self.sites.display();
        for e in &bad_lines {
            (self.out).error(&format!("certbench: error: {file}: {e} (skipped)"));
        }
        anyhow::ensure!(!sites.is_empty(), "{file}: no site to measure");
        let mut net = self.net.settle(self.out.quiet)?;
        let pq = self.pq.settle(&self.net, &mut net, self.out.quiet)?;
        let raw_path = (self.resume.clone().or(self.raw.clone()))
            .unwrap_or_else(crate::run::sink::default_path);
        let methods = methods(&self.method, &self.pq.pq);
        let checks = (self.checks).resolve(&methods, (net.mirror.as_ref(), &pq.sets), &self.out)?;
        let opts = DriverOptions {
            methods,
            runs: self.runs,
            warmup: self.warmup,
            transport: self.transport,
            hook: self.hook,
            timeout: net.timeout,
            cache_roots: self.cache_roots,
            resolve: net.resolve,
            resumption: self.tls_resumption,
            concurrency: usize::from(self.concurrency),
            served: pq.served(),
            checks,
        };
        let plan = DrivePlan {
            sites,
            bad_lines,
            roots: net.roots,
            mirror: net.mirror,
            pq: pq.sets,
            link: pq.link,
            opts,
            raw_path,
        };
        plan.checked().map_err(super::pq::refusal)
    }
}

/// Runs the driver: args → plan → samples → tables.
pub(super) fn run(args: DriveArgs, argv: Vec<String>) -> Result<Outcome> {
    let out = &args.out;
    let plan = args.plan()?;
    let net = &args.net;
    let spec = driver::spec(&plan.opts, net.mirror, &net.roots, &net.resolve);
    let (mut samples, control) = match &args.resume {
        Some(path) => super::measure::resumed(out, path, &spec)?,
        None => (Vec::new(), RunControl::default()),
    };
    let other_hook = super::other_hook::other_hook(&argv, &spec);
    let info = RunInfo {
        other_hook: Some(other_hook.clone()),
        spec: Some(serde_json::to_value(&spec)?),
        ..certbench_core::versions::run_info(argv)
    };
    let mut raw = RawSink::open(Some(&plan.raw_path), &info)?;
    out.note(&plan.summary());
    let finished = super::measure::measure(&plan, &control, out, |s| {
        raw.write(&s);
        samples.push(s);
    })?;
    if let Some(e) = raw.error() {
        out.error(&format!("certbench: error: {e}"));
    }
    let methods = &plan.opts.methods;
    let startup = crate::startup::for_run(&plan.opts.checks, methods, finished)?;
    let text = out.tables(&plan.title(), &samples, methods, Some(&other_hook));
    out.write(&(text + &certbench_analysis::export::render_startup(&startup, out.format)))?;
    crate::procstat::summary(samples.len())
        .iter()
        .for_each(|s| out.note(s));
    if !finished {
        out.note(&super::measure::interrupted(&plan, samples.len()));
        return Ok(Outcome::Interrupted);
    }
    let failed = !plan.bad_lines.is_empty() || samples.iter().any(|s| s.verdict.is_failure());
    Ok(Outcome::partial_if(failed))
}
