//! The mirror as the measuring commands use it: its certificates loaded (or made once) with
//! their roots added to the run's, and served on a free loopback port with every measured
//! host resolved to it; with `--pq`, one server per profile, and with `--link` each behind
//! its emulated link, and with `--compress-certs` compressing its certificates.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;

use super::quic::QuicMirror;
use super::server::MirrorServer;
use super::{MirrorError, MirrorSet};
use crate::link::udp::UdpLink;
use crate::link::{Link, LinkSpec};
use crate::pq::Profile;
use crate::pq::scenario::{Scenario, TwinSet};
use crate::sites::Site;
use crate::tls::compression::CertCompression;
use certbench_core::corpus::Corpus;
use certbench_core::roots::{RootSet, RootsSpec};
use certbench_schema::Transport;
use certbench_schema::wire::{CHROME, QuicClient};

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
    #[error("starting the emulated link")]
    Link(#[source] std::io::Error),
    #[error("starting the mirror")]
    Start(#[source] super::server::StartError),
}

/// The note before the mirror's certificates are made.
pub fn generating(cache: &Path) -> String {
    format!(
        "certbench: generating the mirror's certificates in {} (once)…",
        cache.display()
    )
}

/// The note once the mirror's certificates are loaded or made.
pub fn loaded(set: &MirrorSet, cache: &Path) -> String {
    format!(
        "certbench: mirror: {} hosts ({}), roots in {}",
        set.hosts.len(),
        if set.from_cache {
            "cached"
        } else {
            "generated"
        },
        cache.join("roots.pem").display()
    )
}

/// Whether `cache` already holds the mirror's certificates (else [`load`] makes them).
pub fn is_cached(cache: &Path) -> bool {
    cache.join("index.json").exists()
}

/// The mirror's certificates, from `cache` or made there (once).
pub fn load(cache: &Path) -> Result<MirrorSet, LocalError> {
    load_profile(cache, Profile::Classical)
}

/// The mirror's certificates with `profile`'s keys, from under `cache` or made there (once).
pub fn load_profile(cache: &Path, profile: Profile) -> Result<MirrorSet, LocalError> {
    load_set(cache, TwinSet::new(profile, Scenario::AS_SERVED))
}

/// The mirror's certificates in `set`, from under `cache` or made there (once).
pub fn load_set(cache: &Path, set: TwinSet) -> Result<MirrorSet, LocalError> {
    let corpus = Corpus::bundled().map_err(LocalError::Corpus)?;
    MirrorSet::load_or_generate_set(&corpus, cache, set).map_err(LocalError::Certificates)
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
    let Some(set) = set else {
        return Ok((None, resolve.clone()));
    };
    let sites: Vec<&Site> = sites.into_iter().collect();
    let (mut served, mut resolved) = serve_each(
        &[set],
        Transport::Openssl,
        None,
        sites.iter().copied(),
        resolve,
    )
    .await?;
    let resolve = resolved.remove(&set.twin_set()).unwrap_or_default();
    Ok((served.pop().map(|s| s.server), resolve))
}

/// A mirror server serving, and the link in front of it, if any: both stop when dropped.
pub struct Served {
    /// The server.
    pub server: MirrorServer,
    /// The emulated link clients go through.
    pub link: Option<Link>,
    /// Over QUIC: the same certificates on UDP, where the sites resolve.
    pub quic: Option<QuicMirror>,
    /// Over QUIC: the emulated link in front of it (its datagrams).
    pub udp_link: Option<UdpLink>,
}

/// Serves each of `sets` over `stack` on its own free loopback port, behind its own emulated
/// `link` when given (on the current runtime): per set ([`MirrorSet::twin_set`]), every host of `sites`
/// resolved to it (a `--resolve` given for a host stays).
pub async fn serve_each<'a>(
    sets: &[&MirrorSet],
    stack: Transport,
    link: Option<LinkSpec>,
    sites: impl IntoIterator<Item = &'a Site> + Clone,
    resolve: &ResolveMap,
) -> Result<(Vec<Served>, HashMap<TwinSet, ResolveMap>), LocalError> {
    serve_each_compressing(sets, (stack, None, None), link, sites, resolve).await
}

/// [`serve_each`], each server compressing its certificates with `compression` for a client
/// that offers it (`--compress-certs`; the rustls stack only). Over QUIC, each set is also
/// served on UDP for `quic_client`'s datagrams (Chrome's if `None`), and the sites resolve
/// there.
pub async fn serve_each_compressing<'a>(
    sets: &[&MirrorSet],
    (stack, compression, quic_client): (Transport, Option<&CertCompression>, Option<QuicClient>),
    link: Option<LinkSpec>,
    sites: impl IntoIterator<Item = &'a Site> + Clone,
    resolve: &ResolveMap,
) -> Result<(Vec<Served>, HashMap<TwinSet, ResolveMap>), LocalError> {
    let mut served = Vec::new();
    let mut per_profile = HashMap::new();
    for set in sets {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(LocalError::Bind)?;
        let server = MirrorServer::start_compressing(set, listener, stack, compression)
            .map_err(LocalError::Start)?;
        // Over QUIC the link carries the QUIC server's datagrams; over TCP, the server's stream.
        let quic = match stack {
            Transport::Quic => Some(
                QuicMirror::start(set, compression, quic_client.unwrap_or(CHROME))
                    .map_err(LocalError::Start)?,
            ),
            _ => None,
        };
        let (link, udp_link) = match (link, &quic) {
            (Some(spec), Some(q)) => (
                None,
                Some(UdpLink::start(spec, q.addr).map_err(LocalError::Link)?),
            ),
            (Some(spec), None) => (
                Some(Link::start(spec, server.addr).map_err(LocalError::Link)?),
                None,
            ),
            (None, _) => (None, None),
        };
        let mut map = resolve.clone();
        for s in sites.clone() {
            let refused = s.host.eq_ignore_ascii_case(super::faults::REFUSED_HOST);
            let addr = match (&udp_link, &quic, &link) {
                (Some(l), _, _) => l.addr,
                (None, Some(q), _) => q.addr,
                (None, None, Some(l)) if !refused => l.addr,
                _ => server.addr_for(&s.host),
            };
            map.entry((s.host.clone(), s.port)).or_insert(addr);
        }
        per_profile.insert(set.twin_set(), map);
        served.push(Served {
            server,
            link,
            quic,
            udp_link,
        });
    }
    Ok((served, per_profile))
}
