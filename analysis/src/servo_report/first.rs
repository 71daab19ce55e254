//! The first-connection tax of a patched Servo's processes: what a process pays once, on its
//! first connection or before it, that later connections do not — the library's start-up
//! (`library-init`, a method's), the trust store's load and the verifier's construction
//! (`roots-creation` of the process's first build: Servo's own verifier times both as one,
//! its platform verifier reading the system store meanwhile), and the first verification and
//! first full TLS handshake against the same process's later ones.
//!
//! Invariant: each extra is taken within one process (its first against the median of its
//! own later ones), then the median over processes; a process without later ones gives none.

use std::collections::BTreeMap;

use serde::Serialize;

use super::conn::{Conn, Taken};
use crate::stats::Spread;
use certbench_schema::Stage;
use certbench_schema::servo::ServoEvent;

/// One group's first-connection tax: medians over its processes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirstRow {
    /// Processes.
    pub processes: usize,
    /// The library's start-up (a method's `library-init`), once per process.
    pub library_init: Option<f64>,
    /// The process's first `roots-creation`: the trust store's load and the verifier's
    /// construction.
    pub first_build: Option<f64>,
    /// The first verification over the median of the process's later ones.
    pub verification_extra: Option<f64>,
    /// The first full TLS handshake over the median of the process's later full ones.
    pub handshake_extra: Option<f64>,
}

/// Per process, its first value and its later ones.
#[derive(Default)]
struct FirstAndLater {
    first: Option<f64>,
    later: Vec<f64>,
}

fn extra(per: &BTreeMap<u32, FirstAndLater>) -> Option<f64> {
    Spread::median_of(per.values().filter_map(|p| {
        let later = Spread::median_of(p.later.iter().copied())?;
        Some(p.first? - later)
    }))
}

pub(super) fn first_row(taken: &[Taken], conns: &BTreeMap<(u32, u64), Conn>) -> FirstRow {
    let mut init = Vec::new();
    let mut first_build: BTreeMap<u32, f64> = BTreeMap::new();
    let mut verifications: BTreeMap<u32, FirstAndLater> = BTreeMap::new();
    for t in taken {
        let pid = t.meta.pid;
        match t.meta.event {
            ServoEvent::Verifier if !t.sample.meta.roots_cached => {
                init.extend(t.sample.stage(Stage::LibraryInit).map(|v| v as f64));
                if let Some(v) = t.sample.stage(Stage::RootsCreation) {
                    first_build.entry(pid).or_insert(v as f64);
                }
            }
            ServoEvent::Verification => {
                if let Some(v) = t.sample.stage(Stage::TotalVerification) {
                    let p = verifications.entry(pid).or_default();
                    if t.sample.warmup {
                        p.first = Some(v as f64);
                    } else {
                        p.later.push(v as f64);
                    }
                }
            }
            _ => {}
        }
    }
    let mut handshakes: BTreeMap<u32, FirstAndLater> = BTreeMap::new();
    for ((pid, _), c) in conns.iter().filter(|(_, c)| !c.resumed) {
        let Some(h) = c.handshake else { continue };
        let p = handshakes.entry(*pid).or_default();
        if c.first {
            p.first = Some(h as f64);
        } else {
            p.later.push(h as f64);
        }
    }
    FirstRow {
        processes: first_build.len(),
        library_init: Spread::median_of(init),
        first_build: Spread::median_of(first_build.values().copied()),
        verification_extra: extra(&verifications),
        handshake_extra: extra(&handshakes),
    }
}
