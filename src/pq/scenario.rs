//! The twins' scenarios and the sets a `--pq` run measures.
//!
//! A post-quantum figure depends on two choices that pull in opposite directions
//! (docs/pq.md): who signs the leaf's SCTs ([`Scts`]: logs with today's ECDSA keys,
//! or logs with ML-DSA-44 keys) and which certificates the server sends ([`ChainShape`]: the
//! chain as the real server sends it, legacy cross-signs included, or trimmed to the leaf and
//! its issuer). A [`TwinSet`] is one set of chains a run measures: today's chains (no
//! scenario: classical SCTs, as served), or one profile's twins under one scenario.
//!
//! Invariants: today's set has no scenario and every post-quantum set has one, so no two
//! scenarios are ever pooled under one name ([`TwinSet::key`] is unique per set); `--scenarios`
//! narrows the four scenarios axis by axis, an axis it does not name staying whole.

use std::fmt;
use std::str::FromStr;

pub use certbench_schema::{ChainShape, Scenario, ScenarioError, Scts};

use super::Profile;

/// One set of chains a `--pq` run measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TwinSet {
    /// The chains' keys.
    pub profile: Profile,
    /// The scenario of a post-quantum profile's twins; `None` for today's chains.
    pub scenario: Option<Scenario>,
}

impl TwinSet {
    /// Today's chains.
    pub const TODAY: TwinSet = TwinSet {
        profile: Profile::Classical,
        scenario: None,
    };

    /// `profile`'s twins under `scenario` (today's chains and `mtc`'s certificates have none:
    /// `scenario` is dropped; an MTC carries no SCTs, its log being the transparency, and is
    /// sent alone).
    pub fn new(profile: Profile, scenario: Scenario) -> TwinSet {
        TwinSet {
            profile,
            scenario: (profile.is_pq() && profile != Profile::Mtc).then_some(scenario),
        }
    }

    /// The scenario, or what today's chains are (classical SCTs, as served).
    pub fn scenario_or_today(self) -> Scenario {
        self.scenario.unwrap_or(Scenario::AS_SERVED)
    }

    /// The set's name in notes, resume keys and folder names' stead: `classical`,
    /// `mldsa44 (pq-scts, trimmed)`; see [`key`].
    pub fn key(self) -> String {
        key(self.profile.name(), self.scenario.as_ref())
    }

    /// A folder name under the mirror's cache: `mldsa44` for the scenario of the twins before
    /// scenarios (classical SCTs, as served: the same cache), else e.g. `mldsa44-pq-scts-trimmed`.
    pub fn dir_name(self) -> String {
        match self.scenario {
            None => self.profile.name().to_owned(),
            Some(s) if s == Scenario::AS_SERVED => self.profile.name().to_owned(),
            Some(s) => format!("{}-{}-{}", self.profile, s.scts.as_str(), s.chain.as_str()),
        }
    }
}

impl fmt::Display for TwinSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// A sample's set as one text, from its profile and scenario: `mldsa44 (pq-scts, trimmed)`, or
/// the profile alone without a scenario.
pub fn key(profile: &str, scenario: Option<&Scenario>) -> String {
    match scenario {
        Some(s) => format!("{profile} ({s})"),
        None => profile.to_owned(),
    }
}

/// One word of `--scenarios`: a value of either axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// `classical-scts` or `pq-scts`.
    Scts(Scts),
    /// `served` or `trimmed`.
    Chain(ChainShape),
}

impl FromStr for Axis {
    type Err = ScenarioError;
    fn from_str(s: &str) -> Result<Axis, ScenarioError> {
        (s.parse().map(Axis::Scts)).or_else(|_| s.parse().map(Axis::Chain))
    }
}

/// The scenarios `axes` select: on each axis the values named, or both when none is.
pub fn scenarios(axes: &[Axis]) -> Vec<Scenario> {
    let scts: Vec<Scts> = (axes.iter())
        .filter_map(|a| match a {
            Axis::Scts(s) => Some(*s),
            Axis::Chain(_) => None,
        })
        .collect();
    let chains: Vec<ChainShape> = (axes.iter())
        .filter_map(|a| match a {
            Axis::Chain(c) => Some(*c),
            Axis::Scts(_) => None,
        })
        .collect();
    (Scenario::all().into_iter())
        .filter(|s| scts.is_empty() || scts.contains(&s.scts))
        .filter(|s| chains.is_empty() || chains.contains(&s.chain))
        .collect()
}

/// What a `--pq` run measures: today's chains, then each profile (once) under each scenario.
pub fn sets(profiles: &[Profile], scenarios: &[Scenario]) -> Vec<TwinSet> {
    let mut all = vec![TwinSet::TODAY];
    for &p in super::with_classical(profiles).iter().filter(|p| p.is_pq()) {
        for &s in scenarios {
            let set = TwinSet::new(p, s);
            if !all.contains(&set) {
                all.push(set);
            }
        }
    }
    all
}

/// The profiles of `sets`, once each in order (today's first, when there).
pub fn profiles_of(sets: &[TwinSet]) -> Vec<Profile> {
    let mut v: Vec<Profile> = Vec::new();
    for s in sets {
        if !v.contains(&s.profile) {
            v.push(s.profile);
        }
    }
    v
}

/// The scenarios of `sets`' twins, once each in order.
pub fn scenarios_of(sets: &[TwinSet]) -> Vec<Scenario> {
    let mut v: Vec<Scenario> = Vec::new();
    for s in sets.iter().filter_map(|s| s.scenario) {
        if !v.contains(&s) {
            v.push(s);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axes(text: &str) -> Vec<Axis> {
        text.split(',').map(|w| w.parse().unwrap()).collect()
    }

    #[test]
    fn scenarios_narrow_axis_by_axis() {
        assert_eq!(scenarios(&[]), Scenario::all());
        assert_eq!(scenarios(&axes("trimmed")).len(), 2);
        assert_eq!(
            scenarios(&axes("trimmed,pq-scts")),
            [Scenario {
                chain: ChainShape::Trimmed,
                scts: Scts::Pq
            }]
        );
        assert_eq!(scenarios(&axes("served,trimmed,classical-scts")).len(), 2);
        assert!("pq".parse::<Axis>().is_err());
    }

    #[test]
    fn today_has_no_scenario_and_each_profile_has_each() {
        let all = sets(&[Profile::MlDsa44, Profile::MlDsa44], &Scenario::all());
        assert_eq!(all.len(), 1 + 4);
        assert_eq!(all[0], TwinSet::TODAY);
        assert!(all[1..].iter().all(|s| s.scenario.is_some()));
        let keys: std::collections::HashSet<String> = all.iter().map(|s| s.key()).collect();
        assert_eq!(keys.len(), all.len(), "one key per set");
        assert_eq!(
            all[1].dir_name(),
            "mldsa44",
            "the cache of the twins before scenarios"
        );
        assert_eq!(all[4].dir_name(), "mldsa44-pq-scts-trimmed");
        assert_eq!(all[4].key(), "mldsa44 (pq-scts, trimmed)");
        assert_eq!(
            TwinSet::new(Profile::Classical, all[4].scenario.unwrap()),
            TwinSet::TODAY
        );
    }
}
