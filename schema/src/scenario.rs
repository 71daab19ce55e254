//! The scenario a post-quantum twin set was made under ([`Scenario`]): two axes that the
//! ML-DSA figures depend on and that pull in opposite directions (docs/pq.md):
//!
//! - [`Scts`]: who signs the leaf's SCTs: CT logs with today's keys (`classical-scts`, ECDSA
//!   P-256, ~120 B an SCT) or logs with ML-DSA-44 keys (`pq-scts`, 2,420 B of signature each);
//! - [`ChainShape`]: which certificates the server sends: every one the real server sent, each
//!   twinned (`served`, legacy cross-signs included), or the leaf and its issuer only, that
//!   issuer's issuer being the trusted root (`trimmed`: what a server configured for a PQ root
//!   sends).
//!
//! Invariants: a scenario is written as one text, `<scts>, <chain>` (e.g. `pq-scts, trimmed`),
//! which [`Scenario::from_str`] reads back exactly; a sample of today's chains, or of a run
//! without `--pq`, has no scenario (`config.scenario` is absent). A text that names no known
//! axis is an error ([`ScenarioError`]), never a guess.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Who signs a twin leaf's SCTs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scts {
    /// Logs with ECDSA P-256 keys, as every log of Chrome's list today.
    Classical,
    /// Logs with ML-DSA-44 keys: each SCT's signature is 2,420 bytes.
    Pq,
}

/// Which of the real server's certificates a twin chain sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChainShape {
    /// Every certificate the real server sent, each twinned.
    Served,
    /// The leaf and the first intermediate; the intermediate's issuer is the trusted root.
    Trimmed,
}

impl Scts {
    /// Both, in the order tables list them.
    pub const ALL: [Scts; 2] = [Scts::Classical, Scts::Pq];

    /// The axis' word: `classical-scts` or `pq-scts`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scts::Classical => "classical-scts",
            Scts::Pq => "pq-scts",
        }
    }
}

impl ChainShape {
    /// Both, in the order tables list them.
    pub const ALL: [ChainShape; 2] = [ChainShape::Served, ChainShape::Trimmed];

    /// The axis' word: `served` or `trimmed`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChainShape::Served => "served",
            ChainShape::Trimmed => "trimmed",
        }
    }
}

/// One twin set's scenario: both axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Scenario {
    /// The chain's shape (first in the order: a trimmed chain is its own comparison).
    pub chain: ChainShape,
    /// Who signs the SCTs.
    pub scts: Scts,
}

impl Scenario {
    /// Today's SCTs on the chain as served: what the twins were before scenarios.
    pub const AS_SERVED: Scenario = Scenario {
        chain: ChainShape::Served,
        scts: Scts::Classical,
    };

    /// Every scenario, in the order tables list them (served first, classical SCTs first).
    pub fn all() -> Vec<Scenario> {
        (ChainShape::ALL.iter())
            .flat_map(|&chain| Scts::ALL.iter().map(move |&scts| Scenario { chain, scts }))
            .collect()
    }

    /// How a sentence names it: `as served, classical SCTs`, `trimmed, ML-DSA SCTs`.
    pub fn words(self) -> String {
        let chain = match self.chain {
            ChainShape::Served => "as served",
            ChainShape::Trimmed => "trimmed",
        };
        let scts = match self.scts {
            Scts::Classical => "classical SCTs",
            Scts::Pq => "ML-DSA SCTs",
        };
        format!("{chain}, {scts}")
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {}", self.scts.as_str(), self.chain.as_str())
    }
}

/// A text that names no scenario.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown scenario `{0}` (expected `<classical-scts|pq-scts>, <served|trimmed>`, e.g. `pq-scts, trimmed`)"
)]
pub struct ScenarioError(pub String);

impl FromStr for Scts {
    type Err = ScenarioError;
    fn from_str(s: &str) -> Result<Scts, ScenarioError> {
        (Scts::ALL.into_iter())
            .find(|a| a.as_str() == s)
            .ok_or_else(|| ScenarioError(s.to_owned()))
    }
}

impl FromStr for ChainShape {
    type Err = ScenarioError;
    fn from_str(s: &str) -> Result<ChainShape, ScenarioError> {
        (ChainShape::ALL.into_iter())
            .find(|a| a.as_str() == s)
            .ok_or_else(|| ScenarioError(s.to_owned()))
    }
}

impl FromStr for Scenario {
    type Err = ScenarioError;
    /// `<scts>, <chain>`, exactly as [`Scenario`]'s `Display` writes it.
    fn from_str(s: &str) -> Result<Scenario, ScenarioError> {
        let bad = || ScenarioError(s.to_owned());
        let (scts, chain) = s.split_once(", ").ok_or_else(bad)?;
        Ok(Scenario {
            scts: scts.parse().map_err(|_| bad())?,
            chain: chain.parse().map_err(|_| bad())?,
        })
    }
}

impl TryFrom<String> for Scenario {
    type Error = ScenarioError;
    fn try_from(text: String) -> Result<Scenario, ScenarioError> {
        text.parse()
    }
}

impl From<Scenario> for String {
    fn from(s: Scenario) -> String {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_writes_and_reads_back() {
        let all = Scenario::all();
        assert_eq!(all.len(), 4);
        assert_eq!(all[0], Scenario::AS_SERVED);
        for s in &all {
            assert_eq!(s.to_string().parse::<Scenario>(), Ok(*s));
            let json = serde_json::to_string(s).unwrap();
            assert_eq!(serde_json::from_str::<Scenario>(&json).unwrap(), *s);
        }
        let pq_trimmed = Scenario {
            chain: ChainShape::Trimmed,
            scts: Scts::Pq,
        };
        assert_eq!(pq_trimmed.to_string(), "pq-scts, trimmed");
        assert_eq!(pq_trimmed.words(), "trimmed, ML-DSA SCTs");
        assert_eq!(all[3], pq_trimmed, "served before trimmed, classical first");
    }

    #[test]
    fn texts_that_name_no_scenario_are_errors() {
        for bad in [
            "",
            "pq-scts",
            "pq-scts,trimmed",
            "trimmed, pq-scts",
            "pq, trimmed",
        ] {
            assert!(bad.parse::<Scenario>().is_err(), "{bad:?}");
        }
        assert!(serde_json::from_str::<Scenario>(r#""mtc, served""#).is_err());
        assert!(
            (ScenarioError("x".into()).to_string()).contains("pq-scts, trimmed"),
            "the error shows the syntax"
        );
    }
}
