//! `certbench mirror`: the loopback mirror alone, and loading its certificates (shared with
//! the driver's `--mirror`).

use std::path::PathBuf;
use std::process::ExitCode;

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
    if !quiet && !cache.join("index.json").exists() {
        eprintln!(
            "certbench: generating the mirror's certificates in {} (once)…",
            cache.display()
        );
    }
    let set = MirrorSet::load_or_generate(&corpus, cache).context("mirror certificates")?;
    if !quiet {
        eprintln!(
            "certbench: mirror: {} hosts ({}), roots in {}",
            set.hosts.len(),
            if set.from_cache {
                "cached"
            } else {
                "generated"
            },
            cache.join("roots.pem").display()
        );
    }
    Ok(set)
}

pub(super) fn run(args: MirrorArgs) -> Result<ExitCode> {
    let set = load(&args.mirror_cache, false)?;
    runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let server = MirrorServer::start(&set, listener).context("starting the mirror")?;
        println!("certbench mirror listening on {}", server.addr);
        println!("trust: {}", set.dir.join("roots.pem").display());
        println!(
            "hosts: {}",
            set.hosts.keys().cloned().collect::<Vec<_>>().join(" ")
        );
        tokio::signal::ctrl_c()
            .await
            .context("waiting for Ctrl-C")?;
        Ok(ExitCode::SUCCESS)
    })
}
