//! Start-up costs, once per process: what a browser (or a rustls user) pays to load its
//! revocation data before any connection, measured in fresh processes, several of them
//! ([`StartUp::runs`]), never a single sample; and whether a connection waits for it.
//!
//! A load's figures are the process's own: wall time, CPU time (the process's CPU clock
//! around the load, every thread), and resident memory added (RSS after ÷ before).

pub use certbench_schema::records::startup::{MIN_PROCESSES, StartUp, StartUpRun};

use crate::stats::Spread;

/// A start-up's figures: median and range of each, over `n` processes.
#[derive(Clone, Debug, PartialEq)]
pub struct StartUpFigures {
    /// Processes.
    pub n: usize,
    /// Wall time, nanoseconds.
    pub wall: Spread,
    /// CPU time, nanoseconds.
    pub cpu: Spread,
    /// Resident memory added, bytes.
    pub rss: Spread,
}

/// `s`'s figures; `None` with fewer than [`MIN_PROCESSES`] runs (no figure from fewer).
pub fn figures(s: &StartUp) -> Option<StartUpFigures> {
    if s.runs.len() < MIN_PROCESSES {
        return None;
    }
    let of = |f: fn(&StartUpRun) -> f64| Spread::of(&s.runs.iter().map(f).collect::<Vec<_>>());
    Some(StartUpFigures {
        n: s.runs.len(),
        wall: of(|r| r.wall_ns as f64)?,
        cpu: of(|r| r.cpu_ns as f64)?,
        rss: of(|r| r.rss_added_bytes as f64)?,
    })
}

/// Whether a browser's first connection waits for its mechanism's data, and why, from its
/// source; `None` for a mechanism no browser ships (a rustls user's: loaded before
/// connecting, the figure is its start-up).
pub fn waits(mechanism: &str) -> Option<&'static str> {
    match mechanism {
        "crlset" => Some(
            "Chrome does not wait: it parses a new CRLSet on a background task and verifies with its built-in (empty) set until then (crl_set_distributor.cc)",
        ),
        "crlite" => Some(
            "Firefox does not wait: it loads the filter at start-up on cert_storage's background queue (do_construct_cert_storage, BackgroundReadStashTask)",
        ),
        "upki" => Some(
            "what upki does to open its store (Store::validate reads the index header only); a rustls user opens it before connecting",
        ),
        "upki-integrity" => Some(
            "certbench's own integrity pass over upki's store (every file hashed against the manifest, every filter deserialised and checked), which upki does not do: kept apart, as certbench checks its data before trusting it",
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(wall: u64) -> StartUpRun {
        StartUpRun {
            what: "crlite".into(),
            wall_ns: wall,
            cpu_ns: wall / 2,
            rss_added_bytes: 9_000_000,
            data_bytes: 9_000_000,
        }
    }

    #[test]
    fn figures_need_five_processes_and_give_median_and_range() {
        let four = StartUp {
            what: "crlite".into(),
            runs: [10, 20, 30, 40].map(run).to_vec(),
        };
        assert_eq!(
            figures(&four),
            None,
            "no figure from fewer than 5 processes"
        );
        let five = StartUp {
            runs: [21, 18, 17, 13, 10].map(|ms| run(ms * 1_000_000)).to_vec(),
            ..four
        };
        let f = figures(&five).unwrap();
        assert_eq!(f.n, 5);
        assert_eq!((f.wall.median, f.wall.lo, f.wall.hi), (17e6, 10e6, 21e6));
        assert_eq!(f.cpu.median, 8.5e6);
    }
}
