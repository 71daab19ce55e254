//! `certbench mirror`: the loopback mirror alone, for curl, a browser or a Servo build.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::output::{self, Outcome};
use super::runtime;
use crate::mirror::server::MirrorServer;
use crate::mirror::{local, profile_dir};
use crate::pq::Profile;
use certbench_schema::Transport;

#[derive(Args, Debug)]
pub(super) struct MirrorArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8443")]
    listen: std::net::SocketAddr,
    /// Where the generated certificates are cached.
    #[arg(long, default_value = ".certbench-cache/mirror")]
    mirror_cache: PathBuf,
    /// Serve the sites' post-quantum twins instead (mldsa44, mldsa65, mldsa87, mixed or mtc),
    /// over rustls.
    #[arg(long, value_name = "PROFILE")]
    pq: Option<Profile>,
    #[command(flatten)]
    compress: super::pq::CompressArg,
}

/// Serves the mirror on `--listen` until Ctrl-C.
pub(super) fn run(args: MirrorArgs) -> Result<Outcome> {
    let profile = args.pq.unwrap_or(Profile::Classical);
    let dir = profile_dir(&args.mirror_cache, profile);
    if !local::is_cached(&dir) {
        output::note(false, &local::generating(&dir));
    }
    let set = local::load_profile(&args.mirror_cache, profile)?;
    output::note(false, &local::loaded(&set, &dir));
    let compression = args.compress.compress_certs;
    let stack = if profile.is_pq() || compression.is_some() {
        Transport::Rustls
    } else {
        Transport::Openssl
    };
    runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("listening on {}", args.listen))?;
        let server = MirrorServer::start_compressing(&set, listener, stack, compression.as_ref())
            .context("starting the mirror")?;
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
