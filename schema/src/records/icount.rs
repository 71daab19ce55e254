//! `certbench icount`'s record: per method and key (the verify path) or per scenario and
//! stack, each run's instruction count ([`IcountRow`]), and a run's rows ([`IcountTables`]).

use serde::{Deserialize, Serialize};

use super::{Kind, Record};

/// One row: its two names and each run's count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IcountRow {
    /// The method, or the scenario.
    pub what: String,
    /// The key type, or the stack.
    pub on: String,
    /// Instructions per verification (or scenario), each run in turn.
    pub counts: Vec<u64>,
}

impl IcountRow {
    /// The row `what` × `on` of one configuration's `counts`, run by run.
    pub fn of(what: &str, on: &str, counts: &[Count]) -> IcountRow {
        IcountRow {
            what: what.to_owned(),
            on: on.to_owned(),
            counts: counts.iter().map(|c| c.per_verify).collect(),
        }
    }

    /// The spread of the counts: (max − min) / min, in percent (0 when min is 0).
    pub fn spread(&self) -> f64 {
        let (lo, hi) = (
            *self.counts.iter().min().unwrap_or(&0),
            *self.counts.iter().max().unwrap_or(&0),
        );
        if lo == 0 {
            0.0
        } else {
            (hi - lo) as f64 / lo as f64 * 100.0
        }
    }
}

/// A run's tables: the verify path's rows, then the scenarios'.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IcountTables {
    /// Verifications (or scenarios) per count.
    pub iterations: u32,
    /// Whether the verify path was counted (its table may still be empty).
    pub verify_counted: bool,
    /// Per method and key.
    pub verify: Vec<IcountRow>,
    /// Per scenario and stack.
    pub scenarios: Vec<IcountRow>,
    /// The largest spread the run allows, in percent.
    pub tolerance: f64,
}

impl IcountTables {
    /// The largest spread of any row, in percent: the figure checked against the tolerance.
    pub fn worst(&self) -> f64 {
        (self.verify.iter().chain(&self.scenarios))
            .map(IcountRow::spread)
            .fold(0.0, f64::max)
    }
}

/// `--json`'s file: each row's counts, run by run.
impl Record for Vec<Count> {
    const KIND: Kind = Kind::Icount;
}

/// One count: one row's instructions per verification (or scenario) in one run (a file of
/// `--json` holds a list of these per row).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Count {
    pub method: String,
    pub key: String,
    pub chain: String,
    /// Instructions per verification (collected total ÷ iterations).
    pub per_verify: u64,
    pub iterations: u32,
}
