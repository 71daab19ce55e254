//! `certbench page --pages FILE`: verification per page load, with a browser's cache and TLS
//! sessions (args → [`crate::page::PageOptions`] → [`crate::page::run`] → tables).

use std::path::PathBuf;

use anyhow::{Context, Result};
use certbench_analysis::export::Format;
use certbench_analysis::page::{PageLoad, render_csv, render_markdown};
use clap::Args;

use super::args::{MethodArg, methods};
use super::drive::{resolve_map, timeout};
use super::output::Outcome;
use super::output::OutputArgs;
use super::{mirror, runtime};
use crate::cache::CachePolicy;
use crate::page::{MAX_PER_HOST, PageOptions, parse_pages};
use crate::roots::RootsSpec;
use crate::transport::TransportKind;

/// `--verify-cache`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum CacheArg {
    /// No cache: every full handshake runs the verifier.
    None,
    /// Chrome's CachingCertVerifier + CoalescingCertVerifier: key = chain + host + flags,
    /// 256 entries, 30 minutes, identical in-flight verifications coalesced.
    Chrome,
}

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
    /// The cache above the verifier.
    #[arg(long, value_enum, default_value = "chrome")]
    verify_cache: CacheArg,
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
    transport: TransportKind,
    /// Serve every host from the loopback mirror (clones of the real chains) and trust its roots.
    #[arg(long)]
    mirror: bool,
    /// Where the mirror's generated certificates are cached.
    #[arg(long, default_value = ".certbench-cache/mirror")]
    mirror_cache: PathBuf,
    /// Trust roots: mozilla (bundled), system, or a PEM file (the mirror's are added with --mirror).
    #[arg(long, default_value = "mozilla")]
    roots: RootsSpec,
    /// Use ADDR for HOST:PORT instead of DNS, as curl's --resolve (repeatable).
    #[arg(long, value_name = "HOST:PORT:ADDR")]
    resolve: Vec<String>,
    /// Seconds allowed for one connection.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
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
    let resolve = resolve_map(&args.resolve)?;
    let (roots, set) = mirror::with_roots(&args.roots, args.mirror, &args.mirror_cache, out.quiet)?;
    let timeout = timeout(args.timeout)?;
    let cache = match args.verify_cache {
        CacheArg::None => CachePolicy::None,
        CacheArg::Chrome => CachePolicy::Chrome,
    };
    let mut opts = PageOptions {
        methods: methods(&args.method),
        loads: args.loads,
        warmup: args.warmup,
        cache,
        resumption: args.tls_resumption,
        concurrency: usize::from(args.concurrency),
        transport: args.transport,
        timeout,
        resolve,
    };
    let connections: usize = pages.iter().map(|p| p.connections()).sum();
    let handshakes = if opts.resumption {
        "TLS resumption"
    } else {
        "full handshakes"
    };
    out.note(&format!(
        "certbench page: {} pages ({connections} connections per round) × {} methods × {} loads (+{} warm-up), {} transport, verify cache {}, {}, roots {}",
        pages.len(),
        opts.methods.len(),
        opts.loads,
        opts.warmup,
        opts.transport.name(),
        cache.name(),
        handshakes,
        roots.describe()
    ));

    let mut loads: Vec<PageLoad> = Vec::new();
    let bar = out.progress(u64::from(opts.loads) * (pages.len() * opts.methods.len()) as u64);
    let failures = runtime()?.block_on(async {
        let hosts = pages.iter().flat_map(|p| {
            std::iter::once(&p.document).chain(p.subresources.iter().map(|(s, _)| s))
        });
        let server = mirror::serve(set.as_ref(), hosts, &mut opts.resolve).await?;
        let failures = crate::page::run(&pages, &roots, &opts, |l| {
            bar.inc(1);
            loads.push(l);
        })
        .await;
        drop(server);
        anyhow::Ok(failures)
    })?;
    bar.finish_and_clear();
    for f in &failures {
        out.error(&format!(
            "certbench: error: {}: {} (its loads were not run)",
            f.method, f.reason
        ));
    }
    let text = match out.format {
        Format::Markdown => format!(
            "## certbench page — {} pages, {} loads (+{} warm-up), {} transport, verify cache {}, {}, {} connections per host at once, roots {}\n\n{}",
            pages.len(),
            opts.loads,
            opts.warmup,
            opts.transport.name(),
            cache.name(),
            handshakes,
            opts.concurrency,
            roots.describe(),
            render_markdown(&loads)
        ),
        Format::Csv => render_csv(&loads),
        Format::Json => serde_json::to_string_pretty(&loads)? + "\n",
    };
    out.write(&text)?;
    let failed =
        !bad_lines.is_empty() || !failures.is_empty() || loads.iter().any(|l| l.failed > 0);
    Ok(Outcome::partial_if(failed))
}
