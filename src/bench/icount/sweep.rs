//! What `certbench icount` counts (its figures: the analysis crate's `icount`, their tables
//! written there too): every key type × method (the verify path) and every scenario × stack, each counted `repeat` times under callgrind
//! ([`super::measure`], [`super::measure_scenario`]); the spread between the repeated counts
//! says whether the count is deterministic.
//!
//! Invariant: [`Counted::worst`] is the largest spread of any row, the figure checked against
//! the tolerance.

use std::path::{Path, PathBuf};

use certbench_schema::records::icount::{IcountRow, IcountTables};

use super::{Count, KEY_CHAINS, Scenario, measure, measure_scenario};
use crate::tls::TlsLibrary;
use certbench_core::methods::Method;

/// What to count.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// Methods for the verify path.
    pub methods: Vec<Method>,
    /// Key types as given (`all`, or names of [`KEY_CHAINS`]).
    pub keys: Vec<String>,
    /// Whether to count the verify path.
    pub verify: bool,
    /// TLS scenarios to count.
    pub scenarios: Vec<Scenario>,
    /// Stacks for the scenarios.
    pub stacks: Vec<TlsLibrary>,
    /// Verifications (or scenarios) per count.
    pub iterations: u32,
    /// Counts per row.
    pub repeat: u32,
    /// Where callgrind's files go (`None`: a temporary folder, removed by [`Counted::clean_up`]).
    pub out_dir: Option<PathBuf>,
}

/// Why nothing could be counted.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// A key type not in [`KEY_CHAINS`].
    #[error("unknown key type {0:?} (rsa2048, p256, p384)")]
    UnknownKey(String),
    /// `--repeat` or `--iterations` is 0.
    #[error("--repeat and --iterations must be at least 1")]
    Zero,
    /// This executable could not be found.
    #[error("finding this executable")]
    Exe(#[source] std::io::Error),
    /// A file or folder (named) could not be made or written.
    #[error("{0}")]
    Path(String, #[source] std::io::Error),
    /// The temporary folder could not be made.
    #[error(transparent)]
    Temp(std::io::Error),
    /// A count failed.
    #[error(transparent)]
    Count(#[from] super::IcountError),
    /// The counts could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Every count of a run, as table rows and as data.
pub struct Counted {
    verify_rows: Vec<IcountRow>,
    scenario_rows: Vec<IcountRow>,
    all: Vec<Vec<Count>>,
    /// The largest spread between repeated counts, in percent.
    pub worst: f64,
    out_dir: PathBuf,
    temporary: bool,
}

/// The key types `keys` names (`all`: every one), checked.
fn keys(keys: &[String]) -> Result<Vec<&'static str>, SweepError> {
    if keys.iter().any(|k| k == "all") {
        return Ok(KEY_CHAINS.iter().map(|(k, _)| *k).collect());
    }
    keys.iter()
        .map(|k| {
            let k = k.trim();
            KEY_CHAINS
                .iter()
                .find(|(known, _)| *known == k)
                .map(|(known, _)| *known)
                .ok_or_else(|| SweepError::UnknownKey(k.to_owned()))
        })
        .collect()
}

fn out_dir(given: Option<&Path>) -> Result<(PathBuf, bool), SweepError> {
    match given {
        Some(d) => {
            std::fs::create_dir_all(d)
                .map_err(|e| SweepError::Path(format!("{}", d.display()), e))?;
            Ok((d.to_owned(), false))
        }
        None => {
            let tmp = std::env::temp_dir().join(format!("certbench-icount-{}", std::process::id()));
            std::fs::create_dir_all(&tmp).map_err(SweepError::Temp)?;
            Ok((tmp, true))
        }
    }
}

/// Counts everything `opts` asks for, telling `progress` of each count as it starts.
pub fn run(opts: &SweepOptions, mut progress: impl FnMut(&str)) -> Result<Counted, SweepError> {
    let keys = keys(&opts.keys)?;
    if opts.repeat == 0 || opts.iterations == 0 {
        return Err(SweepError::Zero);
    }
    let exe = std::env::current_exe().map_err(SweepError::Exe)?;
    let (dir, temporary) = out_dir(opts.out_dir.as_deref())?;
    let mut c = Counted {
        verify_rows: Vec::new(),
        scenario_rows: Vec::new(),
        all: Vec::new(),
        worst: 0.0,
        out_dir: dir,
        temporary,
    };
    let (n, iterations) = (opts.repeat, opts.iterations);
    for &key in keys.iter().filter(|_| opts.verify) {
        for &m in &opts.methods {
            let mut counts = Vec::new();
            for r in 0..n {
                progress(&format!("certbench: icount {m} {key} (run {}/{n})", r + 1));
                counts.push(measure(&exe, m, key, iterations, &c.out_dir)?);
            }
            c.push(IcountRow::of(m.name(), key, &counts), counts, false);
        }
    }
    for &scenario in &opts.scenarios {
        for &stack in &opts.stacks {
            let mut counts = Vec::new();
            for r in 0..n {
                let (s, st) = (scenario.name(), stack.name());
                progress(&format!("certbench: icount {s} {st} (run {}/{n})", r + 1));
                counts.push(measure_scenario(
                    &exe, scenario, stack, iterations, &c.out_dir,
                )?);
            }
            c.push(
                IcountRow::of(scenario.name(), stack.name(), &counts),
                counts,
                true,
            );
        }
    }
    Ok(c)
}

impl Counted {
    fn push(&mut self, row: IcountRow, counts: Vec<Count>, scenario: bool) {
        self.worst = self.worst.max(row.spread());
        if scenario {
            self.scenario_rows.push(row);
        } else {
            self.verify_rows.push(row);
        }
        self.all.push(counts);
    }

    /// The tables' figures (`opts` as counted, `tolerance` the largest spread allowed).
    pub fn tables(&self, opts: &SweepOptions, tolerance: f64) -> IcountTables {
        IcountTables {
            iterations: opts.iterations,
            verify_counted: opts.verify,
            verify: self.verify_rows.clone(),
            scenarios: self.scenario_rows.clone(),
            tolerance,
        }
    }

    /// Writes every count as JSON to `path`.
    pub fn write_json(&self, path: &Path) -> Result<(), SweepError> {
        std::fs::write(path, certbench_schema::records::write_list(&self.all))
            .map_err(|e| SweepError::Path(format!("{}", path.display()), e))
    }

    /// Removes the temporary folder of callgrind's files (a given `--out-dir` stays).
    pub fn clean_up(&self) {
        if self.temporary {
            let _ = std::fs::remove_dir_all(&self.out_dir);
        }
    }
}
