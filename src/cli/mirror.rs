//! `certbench mirror`: the loopback mirror alone, for curl, a browser or a Servo build.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::output::{self, Outcome};
use super::{net, runtime};
use crate::mirror::local;
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

/// Serves the mirror on `--listen` until Ctrl-C.
pub(super) fn run(args: MirrorArgs) -> Result<Outcome> {
    if !local::is_cached(&args.mirror_cache) {
        output::note(false, &net::generating(&args.mirror_cache));
    }
    let set = local::load(&args.mirror_cache)?;
    output::note(false, &net::loaded(&set, &args.mirror_cache));
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
