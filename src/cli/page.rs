//! `certbench page --pages FILE`: verification per page load, with a browser's cache and TLS
//! sessions (args → [`crate::page::PageOptions`] → [`crate::page::run`] → tables).

use std::path::PathBuf;

use anyhow::{Context, Result};
use certbench_analysis::export::render_page_run;
use certbench_schema::records::page::PageLoad;
use clap::Args;

use super::args::{CacheArg, MethodArg, caches, methods};
use super::net::NetArgs;
use super::output::Outcome;
use super::output::OutputArgs;
use super::runtime;
use crate::page::{MAX_PER_HOST, PageOptions, PagePlan, StoreFailure, parse_pages};
use certbench_schema::Transport;

#[derive(Args, Debug)]
pub(super) struct PageArgs {
    /// Pages file: one page per line, the document's host first, then its subresource hosts,
    /// each HOST or HOST*N (N connections, 1–6); # comments.
    #[arg(long)]
    pages: PathBuf,
    /// Measured loads of each page per method (load 1 is cold, the others warm).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    loads: u32,
    /// Warm-up loads per page and method, each with a fresh browser that is then dropped.
    #[arg(long, default_value_t = 1)]
    warmup: u32,
    /// The cache above the verifier; comma-separated for several, each its own browser per
    /// method, side by side in one run (e.g. chrome,firefox with --ct).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "chrome")]
    verify_cache: Vec<CacheArg>,
    /// Keep each host's TLS client state and offer its sessions again (resumed handshakes
    /// verify nothing).
    #[arg(long)]
    tls_resumption: bool,
    /// Connections opened to one host at once (a browser opens at most 6 per host); every
    /// host of a page is opened at once.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u16).range(1..=MAX_PER_HOST as i64))]
    concurrency: u16,
    /// Methods, comma-separated (or repeated): any of the possible values.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "rustlsserial,openssl"
    )]
    method: Vec<MethodArg>,
    /// TLS stack: rustls (each method inside a TimedVerifier) or openssl (each method,
    /// openssl too, through the replace hook, so the cache is above each).
    #[arg(long, value_enum, default_value = "rustls")]
    transport: Transport,
    #[command(flatten)]
    net: NetArgs,
    #[command(flatten)]
    checks: super::checks::ChecksArgs,
    #[command(flatten)]
    out: OutputArgs,
}

pub(super) fn run(args: PageArgs) -> Result<Outcome> {
    let out = &args.out;
    let bytes = std::fs::read(&args.pages)
        .with_context(|| format!("reading pages from {}", args.pages.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let (pages, bad_lines) = parse_pages(&text);
    for e in &bad_lines {
        out.error(&format!(
            "certbench: error: {}: {e} (skipped)",
            args.pages.display()
        ));
    }
    if pages.is_empty() {
        anyhow::bail!("{}: no page to load", args.pages.display());
    }
    let net = args.net.settle(out.quiet)?;
    let methods = methods(&args.method, &[]);
    let checks = (args.checks).resolve(&methods, (net.mirror.as_ref(), &[]), out)?;
    let opts = PageOptions {
        methods,
        loads: args.loads,
        warmup: args.warmup,
        caches: caches(&args.verify_cache),
        checks,
        resumption: args.tls_resumption,
        concurrency: usize::from(args.concurrency),
        transport: args.transport,
        timeout: net.timeout,
        resolve: net.resolve,
    };
    let (roots, mirror) = (net.roots, net.mirror);
    let plan = PagePlan {
        pages,
        roots,
        mirror,
        opts,
    };
    out.note(&plan.summary());
    let (loads, failures) = load(&plan, out)?;
    for f in &failures {
        let (method, reason) = (f.method, &f.reason);
        out.error(&format!(
            "certbench: error: {method}: {reason} (its loads were not run)"
        ));
    }
    out.write(&render_page_run(&plan.title(), &loads, out.format))?;
    let failed =
        !bad_lines.is_empty() || !failures.is_empty() || loads.iter().any(|l| l.failed > 0);
    Ok(Outcome::partial_if(failed))
}

/// Every load of `plan`, with a progress bar, and the methods whose store failed.
fn load(plan: &PagePlan, out: &OutputArgs) -> Result<(Vec<PageLoad>, Vec<StoreFailure>)> {
    let mut loads: Vec<PageLoad> = Vec::new();
    let bar = out.progress(plan.total());
    let failures = runtime()?.block_on(crate::page::measure(plan, |l| {
        bar.inc(1);
        loads.push(l);
    }))?;
    bar.finish_and_clear();
    Ok((loads, failures))
}
