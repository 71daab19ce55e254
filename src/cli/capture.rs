//! `certbench capture --sites FILE --out DIR`: each site's served chain, saved in the corpus
//! layout for `certbench verify --chains DIR` (args → [`crate::capture`] → a table).

use std::path::PathBuf;

use anyhow::{Context, Result};
use certbench_analysis::capture::CaptureRun;
use certbench_analysis::export::render_capture;
use clap::Args;

use super::net::NetArgs;
use super::output::{self, Outcome};
use super::runtime;
use crate::capture::{self, Captured};
use crate::sites::read_sites;

#[derive(Args, Debug)]
pub(super) struct CaptureArgs {
    /// Sites file: one host, host:port or https:// URL per line; # comments.
    #[arg(long, default_value = "sites.txt")]
    sites: PathBuf,
    /// Folder to write the chains and manifest.json into (created if missing), with
    /// capture.json, the run's record (`certbench report` reads it).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    net: NetArgs,
    /// No notes on standard error (errors are still shown).
    #[arg(long)]
    quiet: bool,
}

pub(super) fn run(args: CaptureArgs) -> Result<Outcome> {
    let (sites, bad_lines) = read_sites(&args.sites)
        .with_context(|| format!("reading sites from {}", args.sites.display()))?;
    for e in &bad_lines {
        output::warn(&format!(
            "certbench: error: {}: {e} (skipped)",
            args.sites.display()
        ));
    }
    if sites.is_empty() {
        anyhow::bail!("{}: no site to capture", args.sites.display());
    }
    let net = args.net.settle(args.quiet)?;
    let (roots, timeout) = (&net.roots, net.timeout);
    let attempts = runtime()?.block_on(capture::capture_all(
        &sites,
        net.mirror.as_ref(),
        &net.resolve,
        roots,
        timeout,
    ))?;
    for a in &attempts {
        if let Err(e) = &a.result {
            output::warn(&format!("certbench: error: {}: {e}", a.site.authority()));
        }
    }
    let rows = capture::rows(&attempts);
    let captured: Vec<(Captured, Option<std::net::SocketAddr>)> = attempts
        .into_iter()
        .filter_map(|a| a.result.ok().map(|c| (c, a.addr)))
        .collect();
    capture::write(&args.out, &captured, roots)
        .with_context(|| format!("writing the captures into {}", args.out.display()))?;
    let (n, of, dir) = (captured.len(), sites.len(), args.out.display());
    let run = CaptureRun {
        captured: n,
        sites: of,
        dir: dir.to_string(),
        rows,
    };
    let record = args.out.join("capture.json");
    std::fs::write(&record, certbench_schema::records::write_doc(&run))
        .with_context(|| format!("writing {}", record.display()))?;
    output::print(&render_capture(&run));
    output::note(
        args.quiet,
        &format!("certbench capture: `certbench verify --chains {dir}` measures them"),
    );
    Ok(Outcome::partial_if(n < of || !bad_lines.is_empty()))
}
