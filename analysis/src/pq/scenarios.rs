//! A profile's range over the scenarios its twins were measured under (who signs the SCTs,
//! which certificates are sent): the rows needing an extra round trip over TCP, the median
//! first flight, and the reference method's cost ratio, each with the scenario at either end.
//!
//! Invariants: a range is made only of the sets of one profile, each set's figure computed
//! from its own rows (no two scenarios pooled); a profile measured under one scenario has no
//! range; the low end is the smallest figure, the first scenario in the run's order among
//! equals (the high end likewise the first among equals of the largest). A row's set is keyed
//! `<profile> (<scenario>)` ([`super::set_key`], read back by [`split_key`]).

use super::label::split_key;
use super::{CLASSICAL, FlightRow, PqSummary};
use crate::stats::Spread;
use certbench_schema::Scenario;

/// One end of a range: the figure and the scenario it was measured under.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct End<T> {
    /// The figure.
    pub value: T,
    /// Its scenario.
    pub scenario: Scenario,
}

/// One profile's figures over its scenarios.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioRange {
    /// The profile (`mldsa44`).
    pub profile: String,
    /// How many scenarios it was measured under.
    pub scenarios: usize,
    /// Rows needing an extra round trip over TCP: fewest and most, of `counted` rows each.
    pub over: Option<(End<usize>, End<usize>)>,
    /// Rows whose first flight was counted (in each scenario: the fewest).
    pub counted: usize,
    /// Rows needing an extra round trip over QUIC (3× Chrome's two Initials,
    /// [`super::quic::CHROME`]): fewest and most, of `quic_counted` rows each.
    pub quic_over: Option<(End<usize>, End<usize>)>,
    /// Rows whose QUIC flight was counted (in each scenario: the fewest).
    pub quic_counted: usize,
    /// The median first flight over rows, bytes: smallest and largest.
    pub flight: Option<(End<f64>, End<f64>)>,
    /// The reference method's cost ratio to today's (median over rows): lowest and highest.
    pub ratio: Option<(End<f64>, End<f64>)>,
    /// That method.
    pub method: Option<String>,
}

/// The smallest and largest of `figures` with their scenarios (see the module's invariants).
fn ends<T: PartialOrd + Copy>(figures: &[(Scenario, T)]) -> Option<(End<T>, End<T>)> {
    let mut it = figures.iter();
    let &(s, v) = it.next()?;
    let (mut lo, mut hi) = (
        End {
            value: v,
            scenario: s,
        },
        End {
            value: v,
            scenario: s,
        },
    );
    for &(scenario, value) in it {
        if value < lo.value {
            lo = End { value, scenario };
        }
        if value > hi.value {
            hi = End { value, scenario };
        }
    }
    Some((lo, hi))
}

impl PqSummary {
    /// Each post-quantum profile measured under more than one scenario, in the run's order,
    /// its ratios those of `reference`.
    pub fn scenario_ranges(&self, reference: Option<&str>) -> Vec<ScenarioRange> {
        let mut bases: Vec<&str> = Vec::new();
        for key in self.profiles.iter().filter(|p| *p != CLASSICAL) {
            let (base, scenario) = split_key(key);
            if scenario.is_some() && !bases.contains(&base) {
                bases.push(base);
            }
        }
        bases
            .into_iter()
            .filter_map(|base| self.range_of(base, reference))
            .collect()
    }

    fn range_of(&self, base: &str, reference: Option<&str>) -> Option<ScenarioRange> {
        let sets: Vec<(&String, Scenario)> = (self.profiles.iter())
            .filter_map(|key| match split_key(key) {
                (b, Some(s)) if b == base => Some((key, s)),
                _ => None,
            })
            .collect();
        if sets.len() < 2 {
            return None;
        }
        let (mut over, mut flight, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        let (mut quic_over, mut counted, mut quic_counted) = (Vec::new(), usize::MAX, usize::MAX);
        for &(key, scenario) in &sets {
            let rows: Vec<&FlightRow> = (self.flights.iter())
                .filter(|f| f.profile == *key && f.first_flight_bytes.is_some())
                .collect();
            if !rows.is_empty() {
                let n = rows
                    .iter()
                    .filter(|r| r.extra_round_trips() > Some(0))
                    .count();
                over.push((scenario, n));
                counted = counted.min(rows.len());
                let fits: Vec<bool> = (rows.iter())
                    .filter_map(|r| r.quic(&super::quic::CHROME))
                    .map(|f| f.fits())
                    .collect();
                if !fits.is_empty() {
                    quic_over.push((scenario, fits.iter().filter(|f| !**f).count()));
                    quic_counted = quic_counted.min(fits.len());
                }
                let bytes: Vec<f64> = (rows.iter())
                    .filter_map(|r| r.first_flight_bytes)
                    .map(|b| b as f64)
                    .collect();
                flight.extend(Spread::of(&bytes).map(|s| (scenario, s.median)));
            }
            let r = (self.costs.iter())
                .find(|c| c.profile == *key && Some(c.method.as_str()) == reference)
                .and_then(|c| c.ratio);
            ratio.extend(r.map(|r| (scenario, r)));
        }
        Some(ScenarioRange {
            profile: base.to_owned(),
            scenarios: sets.len(),
            over: ends(&over),
            counted: if over.is_empty() { 0 } else { counted },
            quic_over: ends(&quic_over),
            quic_counted: if quic_over.is_empty() {
                0
            } else {
                quic_counted
            },
            flight: ends(&flight),
            ratio: ends(&ratio),
            method: reference.filter(|_| !ratio.is_empty()).map(str::to_owned),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pq::summarize;
    use certbench_schema::{ChainShape, Sample, Scts, Stage};

    fn s(chain: ChainShape, scts: Scts) -> Scenario {
        Scenario { chain, scts }
    }

    #[test]
    fn ends_are_the_extremes_and_the_first_among_equals() {
        let a = s(ChainShape::Served, Scts::Classical);
        let b = s(ChainShape::Trimmed, Scts::Pq);
        let c = s(ChainShape::Served, Scts::Pq);
        let (lo, hi) = ends(&[(a, 5), (b, 0), (c, 12), (a, 12)]).unwrap();
        assert_eq!((lo.value, lo.scenario), (0, b));
        assert_eq!((hi.value, hi.scenario), (12, c));
        assert!(ends::<u32>(&[]).is_none());
    }

    /// A driver sample of `site` on `profile`'s chain under `scenario`: `own_us` of
    /// verification, a first flight of `flight` bytes.
    fn sample(
        site: &str,
        profile: &str,
        scenario: Option<Scenario>,
        own_us: u64,
        flight: u64,
    ) -> Sample {
        let mut sample = Sample {
            stages: [(Stage::TotalVerification, own_us * 1000)].into(),
            ..crate::test_sample::driver("webpki", site)
        };
        sample.config.profile = Some(profile.into());
        sample.config.scenario = scenario;
        sample.meta.first_flight_bytes = Some(flight);
        sample
    }

    #[test]
    fn a_profile_s_range_names_the_scenario_at_each_end_and_never_pools_two() {
        let served = s(ChainShape::Served, Scts::Classical);
        let trimmed = s(ChainShape::Trimmed, Scts::Classical);
        let heavy = s(ChainShape::Served, Scts::Pq);
        let mut samples = Vec::new();
        for site in ["a.test", "b.test", "c.test"] {
            samples.push(sample(site, "classical", None, 100, 5_000));
            samples.push(sample(site, "mldsa44", Some(served), 50, 14_000));
            samples.push(sample(site, "mldsa44", Some(trimmed), 40, 10_000));
            // Over the window of 10 × 1,460 B on every site but one.
            let big = if site == "c.test" { 12_000 } else { 20_000 };
            samples.push(sample(site, "mldsa44", Some(heavy), 60, big));
        }
        let summary = summarize(&samples).unwrap();
        assert_eq!(summary.profiles.len(), 4, "{:?}", summary.profiles);
        assert!(
            summary
                .profiles
                .contains(&"mldsa44 (pq-scts, served)".to_owned())
        );
        let ranges = summary.scenario_ranges(Some("webpki"));
        let [r] = ranges.as_slice() else {
            panic!("{ranges:?}")
        };
        assert_eq!(
            (r.profile.as_str(), r.scenarios, r.counted),
            ("mldsa44", 3, 3)
        );
        let (lo, hi) = r.over.unwrap();
        assert_eq!(
            (lo.value, lo.scenario, hi.value, hi.scenario),
            (0, served, 2, heavy)
        );
        let (lo, hi) = r.flight.unwrap();
        assert_eq!(
            (lo.value, lo.scenario, hi.value, hi.scenario),
            (10_000.0, trimmed, 20_000.0, heavy)
        );
        let (lo, hi) = r.ratio.unwrap();
        assert_eq!((lo.scenario, hi.scenario), (trimmed, heavy));
        assert!((lo.value - 0.4).abs() < 1e-9 && (hi.value - 0.6).abs() < 1e-9);
        // The answer: one line for the profile (its first scenario's), and its range.
        let answer = summary.answer(Some("webpki"));
        assert_eq!(answer.profiles.len(), 1);
        assert_eq!(
            answer.profiles[0].profile,
            "mldsa44 (classical-scts, served)"
        );
        assert_eq!(answer.ranges, ranges);
    }
}
