//! The post-quantum answer on a real wire (`certbench wire`): per link, transport, response
//! size and set of chains, what a connection took through the emulated link — its
//! handshake's round trips as the link counted them beside the model's, the response's first
//! byte and its last — each twin beside today's chains on the same link, transport and size.
//!
//! Invariants: a row holds the samples of one (link, transport, size, set) only, the
//! `ok` ones not warming up; each figure is the median over sites of each site's median; a
//! twin's difference is taken per site against today's chain of the same site on the same
//! row key, then its median over sites. Nothing averages two links, transports or sizes.

use std::collections::BTreeMap;

use certbench_schema::{Sample, Stage, Verdict};
use serde::Serialize;

use super::quic::{CHROME, fit};
use super::wire::extra_round_trips;
use super::{CLASSICAL, set_key};
use crate::stats::Spread;

/// One row: a (link, transport, size, set) over its sites.
#[derive(Clone, Debug, Serialize)]
pub struct WireRow {
    /// The link as the samples state it (`config.link`).
    pub link: String,
    /// `rustls` (TCP) or `quic`.
    pub transport: String,
    /// The response's bytes.
    pub size: u64,
    /// The set's key (`classical`, `mldsa44 (…)`, `mtc`).
    pub set: String,
    /// Sites with a figure.
    pub sites: usize,
    /// The handshake's round trips as the link counted them (QUIC), median over sites.
    pub rounds: Option<f64>,
    /// Sites whose handshake took a round trip more than the link's fewest for that
    /// transport (over QUIC: more than one).
    pub extra_sites: usize,
    /// The model's round trips for the same chains (QUIC: 1 + the amplification limit's;
    /// TCP: TCP's and TLS's 2 + the initial window's), median over sites.
    pub model_rounds: Option<f64>,
    /// Sites where the model's count differs from the link's.
    pub model_differs: usize,
    /// The response's first byte (`connection`), ms, over sites.
    pub first_byte_ms: Option<Spread>,
    /// Its last byte (`connection` + `response`), ms, over sites.
    pub last_byte_ms: Option<Spread>,
    /// Against today's chains, per site then over sites: first byte, ms.
    pub first_byte_delta_ms: Option<Spread>,
    /// Against today's chains: last byte, as a share of today's last byte.
    pub last_byte_delta_share: Option<Spread>,
    /// Datagrams the link lost, per connection (QUIC), median over sites.
    pub lost: Option<f64>,
}

/// The key a sample belongs to, if it is one of a `wire` run's.
fn key(s: &Sample) -> Option<(String, String, u64, String)> {
    let link = s.config.link.as_ref()?.to_string();
    let transport = s.config.transport.as_ref()?.to_string();
    let size = s.path.as_deref()?.strip_prefix("/bytes/")?.parse().ok()?;
    let profile = s.config.profile.as_ref().map_or(CLASSICAL, |p| p.as_str());
    Some((
        link,
        transport,
        size,
        set_key(profile, s.config.scenario.as_ref()),
    ))
}

type Key = (String, String, u64, String);

/// A site's samples under one key.
type BySite<'a> = BTreeMap<String, Vec<&'a Sample>>;

fn median(v: impl IntoIterator<Item = f64>) -> Option<f64> {
    Spread::median_of(v)
}

fn ms(s: &Sample, last: bool) -> Option<f64> {
    let first = s.stage(Stage::Connection)? as f64;
    let rest = match last {
        true => s.stage(Stage::Response)? as f64,
        false => 0.0,
    };
    Some((first + rest) / 1e6)
}

/// The model's handshake round trips for a site's samples (`handshake`: the TLS handshake
/// bytes the TCP samples of the same site and set counted).
fn model(samples: &[&Sample], quic: bool, handshake: Option<u64>) -> Option<f64> {
    match quic {
        true => handshake.map(|h| f64::from(1 + fit(h, &CHROME).extra_round_trips)),
        false => median(samples.iter().filter_map(|s| {
            let window = s.meta.tcp_window?;
            Some(f64::from(
                2 + extra_round_trips(s.meta.first_flight_bytes?, &window),
            ))
        })),
    }
}

/// The rows of `samples` (those of a `wire` run; others are left out), in the order link,
/// transport, size, set.
pub fn rows(samples: &[Sample]) -> Vec<WireRow> {
    let mut keyed: BTreeMap<Key, BySite> = BTreeMap::new();
    // TLS handshake bytes per (site, set), from any TCP sample: the same chain over QUIC.
    let mut handshake: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for s in samples
        .iter()
        .filter(|s| !s.warmup && s.verdict == Verdict::Ok)
    {
        let Some(k) = key(s) else { continue };
        if let Some(h) = s.meta.first_flight_handshake_bytes {
            let site = (s.site.clone(), k.3.clone());
            handshake.entry(site).or_default().push(h as f64);
        }
        let site = s.site_id();
        keyed.entry(k).or_default().entry(site).or_default().push(s);
    }
    let handshake: BTreeMap<(String, String), u64> = (handshake.into_iter())
        .filter_map(|(k, v)| Some((k, median(v)? as u64)))
        .collect();
    let today_of = |k: &Key| (k.0.clone(), k.1.clone(), k.2, CLASSICAL.to_owned());
    keyed
        .iter()
        .map(|(k, by_site)| row(k, by_site, keyed.get(&today_of(k)), &handshake))
        .collect()
}

fn row(
    k: &Key,
    by_site: &BySite,
    today: Option<&BySite>,
    handshake: &BTreeMap<(String, String), u64>,
) -> WireRow {
    let quic = k.1 == "quic";
    let (mut rounds, mut models, mut lost) = (Vec::new(), Vec::new(), Vec::new());
    let (mut first, mut last, mut d_first, mut d_last) = (vec![], vec![], vec![], vec![]);
    let (mut extra_sites, mut model_differs) = (0, 0);
    for (site, ss) in by_site {
        let host = ss[0].site.clone();
        let r = median(
            ss.iter()
                .filter_map(|s| Some(f64::from(s.meta.link_counts.as_ref()?.handshake_rounds))),
        );
        let m = model(ss, quic, handshake.get(&(host, k.3.clone())).copied());
        if let Some(r) = r {
            rounds.push(r);
            // QUIC's handshake is one round trip, TCP's two (TCP's and TLS's).
            extra_sites += usize::from(r > if quic { 1.0 } else { 2.0 });
        }
        if let (Some(r), Some(m)) = (r, m) {
            model_differs += usize::from(r != m);
        }
        models.extend(m);
        lost.extend(median(
            ss.iter()
                .filter(|_| quic)
                .filter_map(|s| Some(s.meta.link_counts.as_ref()?.lost as f64)),
        ));
        let f = median(ss.iter().filter_map(|s| ms(s, false)));
        let l = median(ss.iter().filter_map(|s| ms(s, true)));
        first.extend(f);
        last.extend(l);
        let theirs = today.and_then(|t| t.get(site));
        let tf = theirs.and_then(|t| median(t.iter().filter_map(|s| ms(s, false))));
        let tl = theirs.and_then(|t| median(t.iter().filter_map(|s| ms(s, true))));
        if let (Some(f), Some(tf)) = (f, tf) {
            d_first.push(f - tf);
        }
        if let (Some(l), Some(tl)) = (l, tl) {
            d_last.push((l - tl) / tl.max(1e-9));
        }
    }
    WireRow {
        link: k.0.clone(),
        transport: k.1.clone(),
        size: k.2,
        set: k.3.clone(),
        sites: by_site.len(),
        rounds: median(rounds),
        extra_sites,
        model_rounds: median(models),
        model_differs,
        first_byte_ms: Spread::of(&first),
        last_byte_ms: Spread::of(&last),
        first_byte_delta_ms: Spread::of(&d_first),
        last_byte_delta_share: Spread::of(&d_last),
        lost: median(lost),
    }
}
