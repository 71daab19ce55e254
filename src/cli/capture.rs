//! `certbench capture --sites FILE --out DIR`: each site's served chain, saved in the corpus
//! layout for `certbench verify --chains DIR` (args → [`crate::capture`] → a table).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::drive::{resolve_map, timeout};
use super::output::{self, Outcome};
use super::{mirror, runtime};
use crate::capture::{self, Captured};
use crate::roots::RootsSpec;
use crate::sites::read_sites;

#[derive(Args, Debug)]
pub(super) struct CaptureArgs {
    /// Sites file: one host, host:port or https:// URL per line; # comments.
    #[arg(long, default_value = "sites.txt")]
    sites: PathBuf,
    /// Folder to write the chains and manifest.json into (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Capture from the loopback mirror (clones of the real chains) and trust its roots.
    #[arg(long)]
    mirror: bool,
    /// Where the mirror's generated certificates are cached.
    #[arg(long, default_value = ".certbench-cache/mirror")]
    mirror_cache: PathBuf,
    /// Trust roots the chains must verify against: mozilla (bundled), system, or a PEM file.
    #[arg(long, default_value = "mozilla")]
    roots: RootsSpec,
    /// Use ADDR for HOST:PORT instead of DNS, as curl's --resolve (repeatable).
    #[arg(long, value_name = "HOST:PORT:ADDR")]
    resolve: Vec<String>,
    /// Seconds allowed for one site (connect and handshake).
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
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
    let mut resolve = resolve_map(&args.resolve)?;
    let (roots, set) =
        mirror::with_roots(&args.roots, args.mirror, &args.mirror_cache, args.quiet)?;
    let timeout = timeout(args.timeout)?;

    let results = runtime()?.block_on(async {
        let _server = mirror::serve(set.as_ref(), &sites, &mut resolve).await?;
        let mut results = Vec::new();
        for site in &sites {
            let addr = resolve.get(&(site.host.clone(), site.port)).copied();
            let got = capture::capture(site, addr, &roots, timeout).await;
            results.push((site.clone(), addr, got));
        }
        anyhow::Ok(results)
    })?;

    let mut captured: Vec<(Captured, Option<std::net::SocketAddr>)> = Vec::new();
    let mut rows = Vec::new();
    for (site, addr, got) in results {
        match got {
            Ok(c) => {
                rows.push(vec![
                    site.authority(),
                    capture::folder(&site),
                    (1 + c.intermediates.len()).to_string(),
                    std::iter::once(&c.leaf)
                        .chain(&c.intermediates)
                        .map(|d| crate::chain::key_type(d))
                        .collect::<Vec<_>>()
                        .join(", "),
                    "captured".to_owned(),
                ]);
                captured.push((c, addr));
            }
            Err(e) => {
                output::warn(&format!("certbench: error: {}: {e}", site.authority()));
                rows.push(vec![
                    site.authority(),
                    "—".to_owned(),
                    "—".to_owned(),
                    "—".to_owned(),
                    format!("error: {e}"),
                ]);
            }
        }
    }
    capture::write(&args.out, &captured, &roots)
        .with_context(|| format!("writing the captures into {}", args.out.display()))?;
    output::print(&format!(
        "## certbench capture — {} of {} sites into {}\n\n{}\n",
        captured.len(),
        sites.len(),
        args.out.display(),
        certbench_analysis::export::markdown::plain_table(
            &["site", "folder", "certificates sent", "keys", "result"],
            rows,
            2,
        )
    ));
    output::note(
        args.quiet,
        &format!(
            "certbench capture: `certbench verify --chains {}` measures them",
            args.out.display()
        ),
    );
    Ok(Outcome::partial_if(
        captured.len() < sites.len() || !bad_lines.is_empty(),
    ))
}
