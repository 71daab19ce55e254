//! Start-up apart from connections: each mechanism's revocation data loaded in fresh
//! processes of this executable (`certbench start-up`, hidden), at least
//! [`MIN_PROCESSES`] of them, one after the other, so that the answer's once-per-process
//! figures are a median and a range, never one sample; no sample of a run pays the load
//! (runners load the data before their first sample, untimed).
//!
//! Each process loads one mechanism's data as a run does ([`RevocationData::preload`]) and
//! reports its wall time, the process's CPU time over it, and the resident memory it added.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use certbench_core::revocation::crlite::UpkiStore;
use certbench_core::revocation::{DataFiles, Mechanism, RevocationData};
use certbench_core::stages::Recorder;
use certbench_schema::records::startup::{MIN_PROCESSES, StartUp, StartUpRun};

/// Why a start-up could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum StartUpError {
    /// The child process could not be run.
    #[error("start-up: running {what}: {source}")]
    Spawn {
        /// The mechanism.
        what: Mechanism,
        /// Why.
        source: std::io::Error,
    },
    /// The child failed or printed no figure.
    #[error("start-up: {what}: {detail}")]
    Child {
        /// The mechanism.
        what: Mechanism,
        /// Its exit and standard error.
        detail: String,
    },
}

/// In this process: loads `mechanism`'s data from `dir` once and measures it (what
/// `certbench start-up` prints). For `upki`, what upki itself does to open its store (its
/// `Store::validate`), apart from certbench's own integrity pass ([`integrity`]).
pub fn one(mechanism: Mechanism, dir: &Path) -> StartUpRun {
    let data = RevocationData::new(DataFiles::in_dir(dir, dir.display().to_string()));
    let bytes = data.files().bytes(mechanism);
    measured(mechanism.to_string(), bytes, || match mechanism {
        Mechanism::Upki => {
            let _ = UpkiStore::open_as_upki(&dir.join("upki"));
        }
        _ => data.preload(mechanism, &mut Recorder::new()),
    })
}

/// In this process: certbench's own integrity pass over upki's store in `dir` (hashes and
/// filters checked, [`UpkiStore::integrity`]), which upki does not do.
pub fn integrity(dir: &Path) -> StartUpRun {
    let bytes = DataFiles::in_dir(dir, "").bytes(Mechanism::Upki);
    measured(INTEGRITY.to_owned(), bytes, || {
        let _ = UpkiStore::integrity(&dir.join("upki"));
    })
}

/// What certbench's integrity pass over upki's store is called in the figures.
pub const INTEGRITY: &str = "upki-integrity";

/// `load` timed: wall, the process's CPU, resident memory added.
fn measured(what: String, data_bytes: u64, load: impl FnOnce()) -> StartUpRun {
    let rss = || crate::procstat::rss().map_or(0, |b| b as i64);
    let cpu = || crate::handshake::server::clock_time(libc::CLOCK_PROCESS_CPUTIME_ID);
    let (rss_before, cpu_before, started) = (rss(), cpu(), Instant::now());
    load();
    let wall_ns = started.elapsed().as_nanos() as u64;
    let cpu_ns = cpu().saturating_sub(cpu_before).as_nanos() as u64;
    StartUpRun {
        what,
        wall_ns,
        cpu_ns,
        rss_added_bytes: rss() - rss_before,
        data_bytes,
    }
}

/// Each of `mechanisms` (those with data to load: not `ocsp`, whose response comes with the
/// connection) loaded from `dir` in `processes` (at least [`MIN_PROCESSES`]) fresh processes
/// of this executable, mechanisms interleaved process by process.
pub fn measure(
    mechanisms: &[Mechanism],
    dir: &Path,
    processes: usize,
) -> Result<Vec<StartUp>, StartUpError> {
    let exe = std::env::current_exe().map_err(|source| StartUpError::Spawn {
        what: mechanisms.first().copied().unwrap_or(Mechanism::Crlite),
        source,
    })?;
    let mechanisms: Vec<Mechanism> = (mechanisms.iter().copied())
        .filter(|m| *m != Mechanism::Ocsp)
        .collect();
    let mut out: Vec<StartUp> = Vec::new();
    for _ in 0..processes.max(MIN_PROCESSES) {
        for &m in &mechanisms {
            let o = Command::new(&exe)
                .args(["start-up", "--mechanism", m.name(), "--revocation-data"])
                .arg(dir)
                .output()
                .map_err(|source| StartUpError::Spawn { what: m, source })?;
            let child = |detail: String| StartUpError::Child { what: m, detail };
            if !o.status.success() {
                let err = String::from_utf8_lossy(&o.stderr);
                return Err(child(format!("{}: {}", o.status, err.trim())));
            }
            // One figure per line: the mechanism's, then (upki) certbench's integrity pass.
            for line in String::from_utf8_lossy(&o.stdout).lines() {
                let run: StartUpRun = serde_json::from_str(line)
                    .map_err(|e| child(format!("its figure does not read: {e}")))?;
                match out.iter_mut().find(|s| s.what == run.what) {
                    Some(s) => s.runs.push(run),
                    None => out.push(StartUp {
                        what: run.what.clone(),
                        runs: vec![run],
                    }),
                }
            }
        }
    }
    Ok(out)
}

/// The folder the run's revocation data is in (the one its files share), if any.
pub fn data_dir(data: &RevocationData) -> Option<&Path> {
    let files = data.files();
    (files.crlset.as_deref())
        .or(files.crlite.as_deref())
        .and_then(Path::parent)
}

/// The start-up of a run's checks: each mechanism a method of `methods` checks revocation
/// with in `checks` (and that has data to load), over [`MIN_PROCESSES`] fresh processes;
/// nothing without revocation data, or for a run that did not finish (`finished` false).
pub fn for_run(
    checks: &certbench_core::RunChecks,
    methods: &[certbench_core::Method],
    finished: bool,
) -> Result<Vec<StartUp>, StartUpError> {
    let Some(dir) = checks
        .data
        .as_deref()
        .and_then(data_dir)
        .filter(|_| finished)
    else {
        return Ok(Vec::new());
    };
    let mut mechanisms: Vec<Mechanism> = Vec::new();
    for m in methods {
        if let Some(x) = checks.request.revocation(&m.verifier().capabilities())
            && !mechanisms.contains(&x)
        {
            mechanisms.push(x);
        }
    }
    measure(&mechanisms, dir, MIN_PROCESSES)
}
