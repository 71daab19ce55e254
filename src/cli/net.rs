//! The flags of every command that connects (`--roots`, `--mirror`, `--mirror-cache`,
//! `--resolve`, `--timeout`), declared once, and what they settle into.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use super::output;
use crate::mirror::MirrorSet;
use crate::mirror::local::{self, ResolveMap};
use certbench_core::roots::{RootSet, RootsSpec};

#[derive(Args, Debug)]
pub(super) struct NetArgs {
    /// Seconds allowed for one connection (resolution, connect, handshake, response head).
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Serve every site from the loopback mirror (clones of the real chains) and trust its roots.
    #[arg(long)]
    pub(super) mirror: bool,
    /// Where the mirror's generated certificates are cached.
    #[arg(long, default_value = ".certbench-cache/mirror")]
    pub(super) mirror_cache: PathBuf,
    /// Use ADDR for HOST:PORT instead of DNS, as curl's --resolve (repeatable).
    #[arg(long, value_name = "HOST:PORT:ADDR")]
    pub(super) resolve: Vec<String>,
    /// Trust roots: mozilla (bundled), system, or a PEM file (the mirror's are added with --mirror).
    #[arg(long, default_value = "mozilla")]
    pub(super) roots: RootsSpec,
}

/// What the flags settle into.
pub(super) struct Net {
    pub(super) resolve: ResolveMap,
    pub(super) roots: RootSet,
    pub(super) mirror: Option<MirrorSet>,
    pub(super) timeout: Duration,
}

impl NetArgs {
    /// `--resolve`, the roots (with the mirror's, made once if need be, noted unless
    /// `quiet`), the timeout: in that order, the first bad one the error.
    pub(super) fn settle(&self, quiet: bool) -> Result<Net> {
        let resolve = self
            .resolve
            .iter()
            .map(|r| parse_resolve(r))
            .collect::<Result<_>>()?;
        let cache = self.mirror.then_some(self.mirror_cache.as_path());
        if cache.is_some_and(|c| !local::is_cached(c)) {
            output::note(quiet, &local::generating(&self.mirror_cache));
        }
        let (roots, mirror) = local::with_roots(&self.roots, cache)?;
        if let Some(set) = &mirror {
            output::note(quiet, &local::loaded(set, &self.mirror_cache));
        }
        let timeout = Duration::try_from_secs_f64(self.timeout)
            .map_err(|e| anyhow::anyhow!("--timeout {}: {e}", self.timeout))?;
        Ok(Net {
            resolve,
            roots,
            mirror,
            timeout,
        })
    }
}

/// One `--resolve HOST:PORT:ADDR`.
fn parse_resolve(s: &str) -> Result<((String, u16), std::net::SocketAddr)> {
    let expected = || format!("--resolve {s}: expected HOST:PORT:ADDR");
    let (host, rest) = s.split_once(':').with_context(expected)?;
    let (port, addr) = rest.split_once(':').with_context(expected)?;
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
