//! `certbench icount`'s figures: per method and key (the verify path) or per scenario and
//! stack, the instruction counts of the repeated runs and their spread, which says whether the
//! count is deterministic. The counting is `certbench`'s (callgrind); this holds what it
//! counted, and `export::markdown::icount` draws the tables.

/// One row: its two names and each run's count.
#[derive(Clone, Debug, PartialEq)]
pub struct IcountRow {
    /// The method, or the scenario.
    pub what: String,
    /// The key type, or the stack.
    pub on: String,
    /// Instructions per verification (or scenario), each run in turn.
    pub counts: Vec<u64>,
}

impl IcountRow {
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
#[derive(Clone, Debug, PartialEq)]
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn row(what: &str, on: &str, counts: &[u64]) -> IcountRow {
        IcountRow {
            what: what.into(),
            on: on.into(),
            counts: counts.to_vec(),
        }
    }

    #[test]
    fn the_spread_is_the_range_over_the_least_count() {
        assert_eq!(row("a", "b", &[1000, 1001]).spread(), 0.1);
        assert_eq!(row("a", "b", &[0, 5]).spread(), 0.0);
        let t = IcountTables {
            iterations: 10,
            verify_counted: true,
            verify: vec![row("m", "p256", &[1000, 1001])],
            scenarios: vec![row("full", "rustls", &[5000, 5000])],
            tolerance: 0.5,
        };
        assert_eq!(t.worst(), 0.1);
    }
}
