//! `certbench mirror`: the loopback mirror alone, and loading its certificates (shared with
//! the driver's `--mirror`).

use std::path::PathBuf;

use super::output::{self, Outcome};
use anyhow::{Context, Result};
use clap::Args;

use super::runtime;
use crate::corpus::Corpus;
use crate::mirror::MirrorSet;
use crate::mirror::server::MirrorServer;

#[derive(Args, Debug)]
pub(super) struct MirrorArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8443")]
    listen: std::net::SocketAddr,
    /// Where the generated certificates are cached.
    #[arg(long, default_value = ".certbench-cache/mirror")]
    mirror_cache: PathBuf,
}

pub(super) fn load(cache: &std::path::Path, quiet: bool) -> Result<MirrorSet> {
    let corpus = Corpus::bundled().context("loading the corpus the mirror clones")?;
    if !cache.join("index.json").exists() {
        output::note(
            quiet,
            &format!(
                "certbench: generating the mirror's certificates in {} (once)…",
                cache.display()
            ),
        );
    }
    let set = MirrorSet::load_or_generate(&corpus, cache).context("mirror certificates")?;
    output::note(
        quiet,
        &format!(
            "certbench: mirror: {} hosts ({}), roots in {}",
            set.hosts.len(),
            if set.from_cache {
                "cached"
            } else {
                "generated"
            },
            cache.join("roots.pem").display()
        ),
    );
    Ok(set)
}

/// The trust roots of `spec`, and with `mirror` the mirror's certificates (loaded from or made
/// in `cache`), whose roots are then trusted too.
pub(super) fn with_roots(
    spec: &crate::roots::RootsSpec,
    mirror: bool,
    cache: &std::path::Path,
    quiet: bool,
) -> Result<(crate::roots::RootSet, Option<MirrorSet>)> {
    let mut roots = crate::roots::RootSet::load(spec).context("loading trust roots")?;
    let set = if mirror {
        let set = load(cache, quiet)?;
        roots.extend("mirror", set.roots.clone());
        Some(set)
    } else {
        None
    };
    Ok((roots, set))
}

/// Serves `set` (if any) on a free loopback port, on the current runtime, and resolves every
/// site of `sites` to it in `resolve` (a `--resolve` given for a site stays).
pub(super) async fn serve<'a>(
    set: Option<&MirrorSet>,
    sites: impl IntoIterator<Item = &'a crate::sites::Site>,
    resolve: &mut std::collections::HashMap<(String, u16), std::net::SocketAddr>,
) -> Result<Option<MirrorServer>> {
    let Some(set) = set else { return Ok(None) };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .context("binding the mirror")?;
    let server = MirrorServer::start(set, listener).context("starting the mirror")?;
    for s in sites {
        resolve
            .entry((s.host.clone(), s.port))
            .or_insert(server.addr_for(&s.host));
    }
    Ok(Some(server))
}

pub(super) fn run(args: MirrorArgs) -> Result<Outcome> {
    let set = load(&args.mirror_cache, false)?;
    runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let server = MirrorServer::start(&set, listener).context("starting the mirror")?;
        output::print(&format!(
            "certbench mirror listening on {}\ntrust: {}\nhosts: {}\n",
            server.addr,
            set.dir.join("roots.pem").display(),
            set.hosts.keys().cloned().collect::<Vec<_>>().join(" ")
        ));
        tokio::signal::ctrl_c()
            .await
            .context("waiting for Ctrl-C")?;
        Ok(Outcome::Complete)
    })
}
