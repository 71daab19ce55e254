//! `certbench wire`: the post-quantum answer on a real wire (args → [`WireOptions`] →
//! [`crate::wire::measure`] → the tables; docs/pq.md).

use std::path::PathBuf;

use anyhow::{Context, Result};
use certbench_analysis::export::render_wire;
use clap::Args;

use super::output::{Outcome, OutputArgs};
use crate::pq::Profile;
use crate::pq::scenario::{self, Axis, Scenario};
use crate::run::sink::RawSink;
use crate::sites::parse_sites;
use crate::wire::{self, WireOptions};
use certbench_core::methods::Method;

#[derive(Args, Debug)]
pub(super) struct WireArgs {
    /// The sites file; each site's host is served by the mirror.
    #[arg(long, default_value = "sites.txt")]
    sites: PathBuf,
    /// The twins measured beside today's chains (mldsa44, mldsa65, mldsa87, mixed, mtc).
    #[arg(
        long,
        value_name = "PROFILE",
        value_delimiter = ',',
        default_value = "mldsa44,mtc"
    )]
    pq: Vec<Profile>,
    /// Narrow the twins' scenarios (default: as served, classical SCTs).
    #[arg(long, value_name = "AXIS", value_delimiter = ',')]
    scenarios: Vec<Axis>,
    /// The links' round-trip times.
    #[arg(
        long,
        value_name = "RTT",
        value_delimiter = ',',
        default_value = "20ms,80ms"
    )]
    rtt: Vec<String>,
    /// The links' bandwidths, each with each RTT.
    #[arg(
        long,
        value_name = "BANDWIDTH",
        value_delimiter = ',',
        default_value = "10mbit,100mbit"
    )]
    bandwidth: Vec<String>,
    /// A loss rate, on one more link (the first RTT and bandwidth), measured over QUIC (the
    /// TCP link carries no loss); 0 for none.
    #[arg(long, default_value = "1%")]
    loss: String,
    /// The responses' sizes in bytes, each site asked for each.
    #[arg(
        long,
        value_name = "BYTES",
        value_delimiter = ',',
        default_value = "51200,512000"
    )]
    sizes: Vec<u64>,
    /// The method verifying the X.509 chains (`mtc` verifies the MTC twins).
    #[arg(long, default_value = "rustlsserial")]
    method: Method,
    /// Samples per site, size, set, link and transport.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Warm-up samples before them (not in the figures).
    #[arg(long, default_value_t = 1)]
    warmup: u32,
    /// Seconds allowed for one connection.
    #[arg(long, default_value_t = 20.0)]
    timeout: f64,
    /// Where the mirror's generated certificates are cached.
    #[arg(long, default_value = ".certbench-cache/mirror")]
    mirror_cache: PathBuf,
    /// Append every sample as a JSON line to FILE [default: results/wire-<time>.jsonl].
    #[arg(long)]
    raw: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

impl WireArgs {
    /// The options: today's mirror and each twin set (made once, noted), their roots.
    fn options(&self) -> Result<WireOptions> {
        let text = std::fs::read_to_string(&self.sites)
            .with_context(|| format!("reading {}", self.sites.display()))?;
        let (sites, bad) = parse_sites(&text);
        bad.iter()
            .for_each(|e| self.out.error(&format!("certbench: {e}")));
        let mut hosts: Vec<String> = sites.into_iter().map(|s| s.host).collect();
        hosts.dedup();
        let scenarios = scenario::scenarios(&self.scenarios);
        let scenarios = if self.scenarios.is_empty() {
            vec![Scenario::AS_SERVED]
        } else {
            scenarios
        };
        let note = |m: &str| self.out.note(m);
        let (sets, roots) = wire::load_sets(&self.mirror_cache, &self.pq, &scenarios, &note)?;
        let mut methods = vec![self.method];
        if self.pq.contains(&Profile::Mtc) && self.method != Method::Mtc {
            methods.push(Method::Mtc);
        }
        Ok(WireOptions {
            hosts,
            sizes: self.sizes.clone(),
            sets,
            roots,
            methods,
            links: wire::links(&self.rtt, &self.bandwidth, &self.loss)?,
            runs: self.runs,
            warmup: self.warmup,
            timeout: std::time::Duration::try_from_secs_f64(self.timeout)
                .map_err(|e| anyhow::anyhow!("--timeout {}: {e}", self.timeout))?,
        })
    }
}

/// Measures every link and transport, then the tables and the answer.
pub(super) fn run(args: WireArgs, argv: Vec<String>) -> Result<Outcome> {
    let out = &args.out;
    let opts = args.options()?;
    let info = certbench_core::versions::run_info(argv);
    let raw_path = (args.raw.clone()).unwrap_or_else(|| crate::run::sink::default_path_for("wire"));
    let mut raw = RawSink::open(Some(&raw_path), &info)?;
    out.note(&format!(
        "certbench: wire: {} samples over {} links, samples → {}",
        opts.total(),
        opts.links.len(),
        raw_path.display()
    ));
    let bar = out.progress(opts.total());
    let mut samples = Vec::new();
    super::runtime()?.block_on(crate::wire::measure(&opts, |s| {
        bar.inc(1);
        raw.write(&s);
        samples.push(s);
    }))?;
    bar.finish_and_clear();
    if let Some(e) = raw.error() {
        out.error(&format!("certbench: error: {e}"));
    }
    out.write(&render_wire(&samples))?;
    let failed = samples.iter().any(|s| s.verdict.is_failure());
    Ok(Outcome::partial_if(failed))
}
