//! `certbench wire`: the post-quantum answer on a real wire. Today's chains and their twins
//! (`--pq`), served by the mirror, reached over TCP (rustls) and over QUIC (quinn) through
//! the emulated link at each RTT and bandwidth asked for, and with a loss rate; each
//! connection asks for a page-sized response (`/bytes/N`, [`crate::mirror::server::sized_body`])
//! and times its first byte (`connection`) and its last (`response`).
//!
//! Every sample is an ordinary driver sample naming its link (`config.link`), its transport
//! and its profile; nothing here averages two configurations (the analysis crate's
//! `pq::onwire` compares them side by side). The links are measured one after another, and
//! within a link the transports one after the other, each over every site, method and
//! profile, the driver interleaving those.
//!
//! The TCP link carries no loss ([`crate::link`]): a lossy link is measured over QUIC only,
//! so that no answer compares a lossy QUIC with a loss-free TCP.

use std::collections::HashMap;
use std::time::Duration;

use certbench_core::RunChecks;
use certbench_core::methods::Method;
use certbench_core::roots::RootSet;
use certbench_schema::{Hook, Sample, Transport};

use crate::driver::{DriverOptions, Served, run};
use crate::link::{BadLink, LinkSpec};
use crate::mirror::MirrorSet;
use crate::mirror::local::{self, LocalError, serve_each_compressing};
use crate::pq::Profile;
use crate::pq::scenario::{self, Scenario, TwinSet};
use crate::sites::{Site, parse_sites};

/// The transports a link is measured over: TCP (rustls) and QUIC.
pub const TRANSPORTS: [Transport; 2] = [Transport::Rustls, Transport::Quic];

/// What one `wire` run measures.
pub struct WireOptions {
    /// The mirror's hosts to reach.
    pub hosts: Vec<String>,
    /// The response sizes, bytes (each host is asked for each).
    pub sizes: Vec<u64>,
    /// Today's chains first, then each profile's twins under each scenario.
    pub sets: Vec<MirrorSet>,
    /// The roots every method trusts (the sets' among them).
    pub roots: RootSet,
    /// The methods (one that verifies X.509 chains, and `mtc` for the MTC twins).
    pub methods: Vec<Method>,
    /// The links, in order.
    pub links: Vec<LinkSpec>,
    /// Samples per (site, method, profile) and link and transport, and warm-ups before them.
    pub runs: u32,
    pub warmup: u32,
    /// Allowed for one connection.
    pub timeout: Duration,
}

impl WireOptions {
    /// The sites: each host at each size, `host/bytes/N`.
    pub fn sites(&self) -> Vec<Site> {
        let text: String = (self.hosts.iter())
            .flat_map(|h| self.sizes.iter().map(move |n| format!("{h}/bytes/{n}\n")))
            .collect();
        parse_sites(&text).0
    }

    /// The transports `link` is measured over: QUIC alone on a lossy link.
    pub fn transports(link: &LinkSpec) -> Vec<Transport> {
        match link.loss_ppm > 0 {
            true => vec![Transport::Quic],
            false => TRANSPORTS.to_vec(),
        }
    }

    /// How many samples the run takes, warm-ups included.
    pub fn total(&self) -> u64 {
        let per_link = |l: &LinkSpec| Self::transports(l).len() as u64;
        let connections: u64 = self.links.iter().map(per_link).sum();
        connections
            * (self.hosts.len() * self.sizes.len() * self.methods.len() * self.sets.len()) as u64
            * u64::from(self.runs + self.warmup)
    }
}

/// The links a run measures: each of `rtts` with each of `bandwidths`, then, unless `loss` is
/// 0, the first of each with that loss (`loss=…`).
pub fn links(rtts: &[String], bandwidths: &[String], loss: &str) -> Result<Vec<LinkSpec>, BadLink> {
    let mut text: Vec<String> = (rtts.iter())
        .flat_map(|r| bandwidths.iter().map(move |b| format!("{r},{b}")))
        .collect();
    let lossless = ["0", "0%"].contains(&loss.trim());
    if let (Some(r), Some(b), false) = (rtts.first(), bandwidths.first(), lossless) {
        text.push(format!("{r},{b},loss={}", loss.trim()));
    }
    text.iter().map(|t| t.parse()).collect()
}

/// Today's mirror and the twins of each of `profiles` under each of `scenarios`, from under
/// `cache` or made there once (`note` told before each is made), and the roots trusting them.
pub fn load_sets(
    cache: &std::path::Path,
    profiles: &[Profile],
    scenarios: &[Scenario],
    note: &dyn Fn(&str),
) -> Result<(Vec<MirrorSet>, RootSet), LocalError> {
    if !local::is_cached(cache) {
        note(&local::generating(cache));
    }
    let mut sets = vec![local::load(cache)?];
    let mut roots = RootSet::from_certs("mirror", sets[0].roots.clone());
    for twin_set in scenario::sets(profiles, scenarios).into_iter().skip(1) {
        let dir = crate::mirror::set_dir(cache, twin_set);
        if !local::is_cached(&dir) {
            note(&local::generating(&dir));
        }
        let set = local::load_set(cache, twin_set)?;
        roots.extend(&format!("pq-{}", twin_set.dir_name()), set.roots.clone());
        sets.push(set);
    }
    Ok((sets, roots))
}

/// Measures `opts` on the current runtime, each finished sample into `sink` (warm-ups
/// included, marked). Stops at the first link or mirror that cannot start.
pub async fn measure(opts: &WireOptions, mut sink: impl FnMut(Sample)) -> Result<(), LocalError> {
    let sites = opts.sites();
    let sets: Vec<&MirrorSet> = opts.sets.iter().collect();
    let profiles: Vec<TwinSet> = sets.iter().map(|s| s.twin_set()).collect();
    for link in &opts.links {
        for transport in WireOptions::transports(link) {
            let tls = (transport, None, link.h3);
            let (served, resolve) =
                serve_each_compressing(&sets, tls, Some(*link), &sites, &HashMap::new()).await?;
            let driver = DriverOptions {
                methods: opts.methods.clone(),
                runs: opts.runs,
                warmup: opts.warmup,
                transport,
                hook: Hook::Callback,
                timeout: opts.timeout,
                cache_roots: true,
                resolve: HashMap::new(),
                resumption: false,
                concurrency: 1,
                served: Served {
                    profiles: profiles.clone(),
                    resolve,
                    link: Some(link.to_string()),
                    window: Some(link.window),
                    compression: None,
                    quic_client: link.h3,
                },
                checks: RunChecks::path_only(),
            };
            run(&sites, &opts.roots, &driver, &mut sink).await;
            drop(served);
        }
    }
    Ok(())
}
