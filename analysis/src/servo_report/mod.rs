//! The report of a patched Servo's samples (those with [`certbench_schema::servo::ServoMeta`]): what
//! verification costs per connection, per origin and per page load, and its share of the
//! TLS handshake and of the page load, with each process's first (cold) apart from the later
//! (warm) ones, and full handshakes apart from resumed ones in every connection row.
//!
//! Everything is grouped by [`Group`] (method, configuration — which names the trust set —
//! and Servo's choice of verifier): no figure mixes two groups. Within a process, a
//! verification belongs to the connection whose id it carries, a connection to the page
//! load whose id it carries ([`certbench_schema::servo`]); figures per connection and per page sum the
//! verifications that name them. Medians are a [`Spread`]'s. `export::markdown::servo`
//! writes the figures.

use std::collections::BTreeMap;

use serde::Serialize;

mod conn;
mod first;
use conn::{Conn, Taken, connections};
pub use first::FirstRow;

use crate::stats::Spread;
use certbench_schema::servo::{ServoChoice, ServoEvent};
use certbench_schema::{Config, Sample, Stage};

/// What figures are never mixed across.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Group {
    /// The method that verified (`servo`: Servo's own verifier).
    pub method: String,
    /// The configuration, trust set included.
    pub config: Config,
    /// Servo's choice of verifier.
    pub choice: Option<ServoChoice>,
}

impl Group {
    /// Method · Servo's choice · trust set.
    pub fn label(&self) -> String {
        let choice = self.choice.map_or("?", |c| c.name());
        let roots = (self.config.roots.as_ref())
            .map_or("trust set not recorded".into(), ToString::to_string);
        format!("{} · {choice} · {roots}", self.method)
    }
}

/// A page load's connections, and its `page-load` (its latest fetch's).
type PageConns<'a> = (Vec<&'a Conn>, Option<u64>);

/// One group's first table row: its processes, their store builds, verification cold and
/// warm.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoreRow {
    /// Processes.
    pub processes: usize,
    /// The fewest and the most store builds of a process.
    pub builds: Option<(u64, u64)>,
    /// The median `roots-creation` of a build.
    pub build_ns: Option<f64>,
    /// Verifications cold (a process's first), and their median.
    pub cold: (usize, Option<f64>),
    /// Verifications warm, and their median.
    pub warm: (usize, Option<f64>),
    /// Verifications Servo's exception list accepted.
    pub exceptions: usize,
}

/// Connections of one kind (cold or warm; or one origin), full handshakes or resumed ones:
/// medians per connection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConnectionRow {
    /// `cold`, `warm`, or the origin (host, or host:port off 443: the site key everywhere).
    pub label: String,
    /// Whether these connections resumed a TLS session (no certificate verified).
    pub resumed: bool,
    /// Connections.
    pub connections: usize,
    /// The median `connect`: name resolution + TCP + proxy.
    pub connect: Option<f64>,
    /// The median `handshake`: TLS alone.
    pub handshake: Option<f64>,
    /// Verifications.
    pub verifications: usize,
    /// The median verification per connection that verified.
    pub per_connection: Option<f64>,
    /// The median share of a connection's TLS handshake its verification took.
    pub share: Option<f64>,
}

/// Page loads of one kind (a process's first, or later): medians per page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PageRow {
    /// `first of process` or `later`.
    pub label: &'static str,
    /// Page loads.
    pub pages: usize,
    /// The median `page-load`: the document fetch to its fetches' last response headers.
    pub page_load: Option<f64>,
    /// Connections per page.
    pub connections: Option<f64>,
    /// Resumed connections per page.
    pub resumed: Option<f64>,
    /// Verifications per page.
    pub verifications: Option<f64>,
    /// Verification time per page.
    pub verification: Option<f64>,
    /// TLS handshake time per page (resumed ones included).
    pub handshakes: Option<f64>,
    /// The median share of a page's TLS handshakes its verification took.
    pub share: Option<f64>,
    /// The median share of a page load its verification took.
    pub load_share: Option<f64>,
}

/// One [`Group`]'s figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupFigures {
    /// Method · Servo's choice · trust set.
    pub label: String,
    /// Store builds and verification.
    pub store: StoreRow,
    /// What a process pays once, on or before its first connection.
    pub first: FirstRow,
    /// Cold connections, then warm ones (those there are), each full then resumed.
    pub connections: Vec<ConnectionRow>,
    /// Per origin, full then resumed.
    pub origins: Vec<ConnectionRow>,
    /// The first page load of a process, then later ones (those there are).
    pub pages: Vec<PageRow>,
}

/// The figures of `samples`' Servo samples, a [`GroupFigures`] per [`Group`]; `None` when
/// there are none.
pub fn report(samples: &[Sample]) -> Option<Vec<GroupFigures>> {
    let mut groups: BTreeMap<Group, Vec<Taken>> = BTreeMap::new();
    let mut by_process_choice: BTreeMap<(u32, String), Option<ServoChoice>> = BTreeMap::new();
    for s in samples {
        let Some(meta) = s.meta.servo.as_ref() else {
            continue;
        };
        if meta.choice.is_some() {
            by_process_choice.insert((meta.pid, s.method.clone()), meta.choice);
        }
    }
    for s in samples {
        let Some(meta) = s.meta.servo.as_ref() else {
            continue;
        };
        // Connections carry no choice: theirs is their process's.
        let choice = meta.choice.or_else(|| {
            by_process_choice
                .get(&(meta.pid, s.method.clone()))
                .copied()
                .flatten()
        });
        let group = Group {
            method: s.method.clone(),
            config: s.config.clone(),
            choice,
        };
        groups
            .entry(group)
            .or_default()
            .push(Taken { sample: s, meta });
    }
    if groups.is_empty() {
        return None;
    }
    Some(groups.iter().map(|(g, taken)| figures(g, taken)).collect())
}

fn figures(g: &Group, taken: &[Taken]) -> GroupFigures {
    let conns = connections(taken);
    let mut connections_rows = Vec::new();
    for (label, first) in [("cold", true), ("warm", false)] {
        let c: Vec<&Conn> = conns.values().filter(|c| c.first == first).collect();
        connections_rows.extend(full_and_resumed(label, &c));
    }
    let mut origins: BTreeMap<&str, Vec<&Conn>> = BTreeMap::new();
    for c in conns.values() {
        origins.entry(c.origin.as_str()).or_default().push(c);
    }
    let mut pages: BTreeMap<(u32, u64), PageConns> = BTreeMap::new();
    for ((pid, _), c) in &conns {
        if let Some(page) = c.page {
            pages.entry((*pid, page)).or_default().0.push(c);
        }
    }
    for t in taken {
        if let (ServoEvent::Fetch, Some(page)) = (t.meta.event, t.meta.page) {
            let load = &mut pages.entry((t.meta.pid, page)).or_default().1;
            *load = (*load).max(t.sample.stage(Stage::PageLoad));
        }
    }
    let mut page_rows = Vec::new();
    for (label, first) in [("first of process", true), ("later", false)] {
        let p: Vec<&PageConns> = (pages.iter())
            .filter(|((_, page), _)| (*page == 1) == first)
            .map(|(_, c)| c)
            .collect();
        if !p.is_empty() {
            page_rows.push(page_row(label, &p));
        }
    }
    GroupFigures {
        label: g.label(),
        store: store_row(taken),
        first: first::first_row(taken, &conns),
        connections: connections_rows,
        origins: (origins.iter())
            .flat_map(|(origin, c)| full_and_resumed(origin, c))
            .collect(),
        pages: page_rows,
    }
}

/// `conns`' rows: the full handshakes, then the resumed ones (those there are).
fn full_and_resumed(label: &str, conns: &[&Conn]) -> Vec<ConnectionRow> {
    [false, true]
        .into_iter()
        .filter_map(|resumed| {
            let c: Vec<&Conn> = conns
                .iter()
                .copied()
                .filter(|c| c.resumed == resumed)
                .collect();
            (!c.is_empty()).then(|| connection_row(label, resumed, &c))
        })
        .collect()
}

fn store_row(taken: &[Taken]) -> StoreRow {
    let mut builds: BTreeMap<u32, u64> = BTreeMap::new();
    let mut build_ns = Vec::new();
    let (mut cold, mut warm, mut exceptions) = (Vec::new(), Vec::new(), 0);
    for t in taken {
        match t.meta.event {
            ServoEvent::Verifier => {
                let n = builds.entry(t.meta.pid).or_default();
                if !t.sample.meta.roots_cached {
                    *n += 1;
                    build_ns.extend(t.sample.stage(Stage::RootsCreation).map(|v| v as f64));
                }
            }
            ServoEvent::Verification => {
                if t.meta.exception.is_some() {
                    exceptions += 1;
                }
                if let Some(v) = t.sample.stage(Stage::TotalVerification) {
                    if t.sample.warmup {
                        &mut cold
                    } else {
                        &mut warm
                    }
                    .push(v as f64);
                }
            }
            _ => {}
        }
    }
    let per_process: Vec<u64> = builds.values().copied().collect();
    StoreRow {
        processes: builds.len(),
        builds: Spread::of_each(&per_process, |&n| n as f64).map(|s| (s.lo as u64, s.hi as u64)),
        build_ns: Spread::median_of(build_ns),
        cold: (cold.len(), Spread::median_of(cold.iter().copied())),
        warm: (warm.len(), Spread::median_of(warm.iter().copied())),
        exceptions,
    }
}

fn connection_row(label: &str, resumed: bool, conns: &[&Conn]) -> ConnectionRow {
    let verified: Vec<&&Conn> = conns.iter().filter(|c| !c.verified.is_empty()).collect();
    let median = |f: fn(&Conn) -> Option<u64>| {
        Spread::median_of(conns.iter().filter_map(|c| f(c)).map(|v| v as f64))
    };
    ConnectionRow {
        label: label.to_owned(),
        resumed,
        connections: conns.len(),
        connect: median(|c| c.connect),
        handshake: median(|c| c.handshake),
        verifications: conns.iter().map(|c| c.verified.len()).sum(),
        per_connection: Spread::median_of(
            verified
                .iter()
                .map(|c| c.verified.iter().sum::<u64>() as f64),
        ),
        share: Spread::median_of(verified.iter().filter_map(|c| {
            let h = c.handshake? as f64;
            (h > 0.0).then(|| c.verified.iter().sum::<u64>() as f64 / h)
        })),
    }
}

fn page_row(label: &'static str, pages: &[&PageConns]) -> PageRow {
    let per = |f: &dyn Fn(&[&Conn]) -> f64| Spread::median_of(pages.iter().map(|p| f(&p.0)));
    let verified = |p: &[&Conn]| -> u64 { p.iter().flat_map(|c| c.verified.iter()).sum() };
    let handshakes = |p: &[&Conn]| -> u64 { p.iter().filter_map(|c| c.handshake).sum() };
    PageRow {
        label,
        pages: pages.len(),
        page_load: Spread::median_of(pages.iter().filter_map(|p| p.1).map(|v| v as f64)),
        connections: per(&|p| p.len() as f64),
        resumed: per(&|p| p.iter().filter(|c| c.resumed).count() as f64),
        verifications: per(&|p| p.iter().map(|c| c.verified.len()).sum::<usize>() as f64),
        verification: per(&|p| verified(p) as f64),
        handshakes: per(&|p| handshakes(p) as f64),
        share: Spread::median_of(pages.iter().filter_map(|p| {
            let h = handshakes(&p.0) as f64;
            (h > 0.0).then(|| verified(&p.0) as f64 / h)
        })),
        load_share: Spread::median_of(pages.iter().filter_map(|p| {
            let load = p.1? as f64;
            (load > 0.0).then(|| verified(&p.0) as f64 / load)
        })),
    }
}

#[cfg(test)]
pub(crate) mod tests;
