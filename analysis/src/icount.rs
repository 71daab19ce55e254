//! `certbench icount`'s figures: per method and key (the verify path) or per scenario and
//! stack, the instruction counts of the repeated runs and their spread, which says whether the
//! count is deterministic. The counting is `certbench`'s (callgrind); this holds what it
//! counted, and `export::markdown::icount` draws the tables.

pub use certbench_schema::records::icount::{IcountRow, IcountTables};

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
