//! The mirror as the measuring commands use it: its certificates loaded (or made once) with
//! their roots added to the run's, and served on a free loopback port with every measured
//! host resolved to it.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;

use super::server::MirrorServer;
use super::{MirrorError, MirrorSet};
use crate::corpus::Corpus;
use crate::roots::{RootSet, RootsSpec};
use crate::sites::Site;

/// `(host, port)` → address, used instead of DNS.
pub type ResolveMap = HashMap<(String, u16), SocketAddr>;

/// Why the roots or the mirror could not be made ready (the cause is the source, shown
/// after the message).
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    #[error("loading trust roots")]
    Roots(#[source] certbench_core::Error),
    #[error("loading the corpus the mirror clones")]
    Corpus(#[source] certbench_core::Error),
    #[error("mirror certificates")]
    Certificates(#[source] MirrorError),
    #[error("binding the mirror")]
    Bind(#[source] std::io::Error),
    #[error("starting the mirror")]
    Start(#[source] openssl::error::ErrorStack),
}

/// Whether `cache` already holds the mirror's certificates (else [`load`] makes them).
pub fn is_cached(cache: &Path) -> bool {
    cache.join("index.json").exists()
}

/// The mirror's certificates, from `cache` or made there (once).
pub fn load(cache: &Path) -> Result<MirrorSet, LocalError> {
    let corpus = Corpus::bundled().map_err(LocalError::Corpus)?;
    MirrorSet::load_or_generate(&corpus, cache).map_err(LocalError::Certificates)
}

/// The trust roots of `spec`, and with a mirror `cache` the mirror's certificates (see
/// [`load`]), whose roots are then trusted too.
pub fn with_roots(
    spec: &RootsSpec,
    mirror_cache: Option<&Path>,
) -> Result<(RootSet, Option<MirrorSet>), LocalError> {
    let mut roots = RootSet::load(spec).map_err(LocalError::Roots)?;
    let set = match mirror_cache {
        Some(cache) => {
            let set = load(cache)?;
            roots.extend("mirror", set.roots.clone());
            Some(set)
        }
        None => None,
    };
    Ok((roots, set))
}

/// Serves `set` (if any) on a free loopback port, on the current runtime: the server (serving
/// until dropped) and `resolve` with every host of `sites` resolved to it (a `--resolve`
/// given for a host stays).
pub async fn serve<'a>(
    set: Option<&MirrorSet>,
    sites: impl IntoIterator<Item = &'a Site>,
    resolve: &ResolveMap,
) -> Result<(Option<MirrorServer>, ResolveMap), LocalError> {
    let mut resolve = resolve.clone();
    let Some(set) = set else {
        return Ok((None, resolve));
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(LocalError::Bind)?;
    let server = MirrorServer::start(set, listener).map_err(LocalError::Start)?;
    for s in sites {
        resolve
            .entry((s.host.clone(), s.port))
            .or_insert(server.addr_for(&s.host));
    }
    Ok((Some(server), resolve))
}
