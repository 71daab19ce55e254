//! The flags of every command that connects (`--roots`, `--mirror`, `--mirror-cache`,
//! `--pq`, `--link`, `--resolve`, `--timeout`), declared once, and what they settle into.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use super::output;
use crate::link::LinkSpec;
use crate::mirror::local::{self, ResolveMap};
use crate::mirror::{MirrorSet, profile_dir};
use crate::pq::Profile;
use crate::roots::{RootSet, RootsSpec};

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
    mirror_cache: PathBuf,
    /// With --mirror: also serve each site's post-quantum twin (its chain re-issued with
    /// ML-DSA keys: mldsa44, mldsa65, mldsa87, or mixed, an ML-DSA-44 leaf under ML-DSA-65
    /// CAs; comma-separated), over rustls, and measure it beside today's chain.
    #[arg(long, value_name = "PROFILE", value_delimiter = ',')]
    pub(super) pq: Vec<Profile>,
    /// With --mirror: reach it over an emulated link, RTT[,BANDWIDTH] (e.g. 40ms or
    /// 40ms,50mbit): RTT/2 each way, TCP's initial window of 10 segments (docs/pq.md).
    #[arg(long, value_name = "RTT[,BANDWIDTH]")]
    pub(super) link: Option<LinkSpec>,
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
    /// The twins of `--pq`, one set per profile.
    pub(super) pq: Vec<MirrorSet>,
    pub(super) link: Option<LinkSpec>,
    pub(super) timeout: Duration,
}

impl Net {
    /// What a `--pq` run measures: today's chains then each profile; empty without `--pq`.
    pub(super) fn profiles(&self) -> Vec<Profile> {
        match self.pq.is_empty() {
            true => Vec::new(),
            false => {
                crate::pq::with_classical(&self.pq.iter().map(|s| s.profile).collect::<Vec<_>>())
            }
        }
    }
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
        if !self.mirror && (!self.pq.is_empty() || self.link.is_some()) {
            anyhow::bail!(
                "--pq and --link re-issue and reach the loopback mirror: they need --mirror"
            );
        }
        let cache = self.mirror.then_some(self.mirror_cache.as_path());
        if cache.is_some_and(|c| !local::is_cached(c)) {
            output::note(quiet, &local::generating(&self.mirror_cache));
        }
        let (mut roots, mirror) = local::with_roots(&self.roots, cache)?;
        if let Some(set) = &mirror {
            output::note(quiet, &local::loaded(set, &self.mirror_cache));
        }
        let pq = self.twins(&mut roots, quiet)?;
        let timeout = Duration::try_from_secs_f64(self.timeout)
            .map_err(|e| anyhow::anyhow!("--timeout {}: {e}", self.timeout))?;
        Ok(Net {
            resolve,
            roots,
            mirror,
            pq,
            link: self.link,
            timeout,
        })
    }

    /// The twins of every `--pq` profile (made once, noted unless `quiet`), their roots
    /// added to `roots`.
    fn twins(&self, roots: &mut RootSet, quiet: bool) -> Result<Vec<MirrorSet>> {
        let profiles = crate::pq::with_classical(&self.pq);
        let mut sets = Vec::new();
        for &profile in profiles.iter().filter(|p| p.is_pq()) {
            let dir = profile_dir(&self.mirror_cache, profile);
            if !local::is_cached(&dir) {
                output::note(quiet, &local::generating(&dir));
            }
            let set = local::load_profile(&self.mirror_cache, profile)?;
            output::note(quiet, &local::loaded(&set, &dir));
            roots.extend(&format!("pq-{profile}"), set.roots.clone());
            sets.push(set);
        }
        Ok(sets)
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
