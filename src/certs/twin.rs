//! Twins of stored chains, for `certbench verify --pq`: each corpus chain re-issued under a
//! [`Profile`] and a scenario ([`TwinSet`]) with its validity unshifted, so that it is verified
//! at the chain's own validation time for the same host, beside the chain itself. In the
//! `pq-scts` scenario the leaves' SCTs are signed by ML-DSA-44 logs; in `trimmed` the chain
//! is [`super::trim::trimmed`]'s.
//!
//! Under `mtc` a chain's twin is its leaf issued by certbench's Merkle Tree CA
//! ([`super::mtc`]): one batch for the whole corpus, each twin the landmark-relative
//! certificate alone, its validity the real leaf's; the "root" to trust is the MTC CA's
//! certificate with the landmark's subtrees (no scenario applies).

use std::time::{Duration, Instant};

use rustls_pki_types::CertificateDer;

use super::clone::{CloneError, Cloner};
use super::ct::{CtLogs, LogAlgorithm};
use super::trim::trimmed;
use crate::pq::Profile;
use crate::pq::scenario::{ChainShape, Scenario, Scts, TwinSet};
use certbench_core::chain::Chain;
use certbench_core::corpus::{Corpus, CorpusChain};

/// Why a chain has no twin (the other chains have theirs).
#[derive(Debug, thiserror::Error)]
pub enum TwinError {
    /// The chain came without a root to re-issue it under.
    #[error("no root.pem: nothing to re-issue the chain under")]
    NoRoot,
    /// Re-issuing failed.
    #[error(transparent)]
    Clone(#[from] CloneError),
    /// Issuing the MTC batch (every chain's twin at once) failed.
    #[error("MTC batch: {0}")]
    Batch(String),
}

/// Every chain of a corpus under one profile.
pub struct Twins {
    /// The profile.
    pub profile: Profile,
    /// The scenario it was made under.
    pub scenario: Scenario,
    /// The twins, in corpus order, each under its chain's id and host.
    pub chains: Vec<CorpusChain>,
    /// The chains without a twin: id and why.
    pub failures: Vec<(String, TwinError)>,
    /// The twins' roots, once each (to be trusted beside the run's roots).
    pub roots: Vec<CertificateDer<'static>>,
    /// How long making them took.
    pub made_in: Duration,
}

impl Twins {
    /// The set they are.
    pub fn set(&self) -> TwinSet {
        TwinSet::new(self.profile, self.scenario)
    }
}

/// The twins of every chain of `corpus` under `profile` (fresh keys: ML-DSA key generation
/// takes well under a millisecond, so they are made per run rather than cached). A
/// certificate several chains send has one twin, as it has one original.
pub fn twins(corpus: &Corpus, profile: Profile) -> Twins {
    twins_in(corpus, TwinSet::new(profile, Scenario::AS_SERVED))
}

/// The CT logs of a cloner for `scenario`: empty, making ML-DSA-44 logs for `pq-scts`.
pub fn logs_for(scenario: Scenario) -> CtLogs {
    CtLogs::new().with_algorithm(match scenario.scts {
        Scts::Classical => LogAlgorithm::EcdsaP256,
        Scts::Pq => LogAlgorithm::MlDsa44,
    })
}

/// The twins of every chain of `corpus` in `set` (its profile under its scenario; today's
/// chains' set makes clones as served with classical SCTs).
pub fn twins_in(corpus: &Corpus, set: TwinSet) -> Twins {
    let started = Instant::now();
    let (profile, scenario) = (set.profile, set.scenario_or_today());
    if profile == Profile::Mtc {
        return mtc_twins(corpus, started);
    }
    let mut cloner = Cloner::for_set(set, logs_for(scenario));
    let (mut chains, mut failures, mut roots) = (Vec::new(), Vec::new(), Vec::new());
    for c in &corpus.chains {
        let Some(root) = c.roots.first() else {
            failures.push((c.id.clone(), TwinError::NoRoot));
            continue;
        };
        let sent: Vec<CertificateDer<'static>> = c.chain.iter().cloned().collect();
        let (sent, root) = match scenario.chain {
            ChainShape::Served => (sent, root.clone()),
            ChainShape::Trimmed => trimmed(&sent, root),
        };
        match cloner.clone_chain(&sent, &root, 0) {
            Ok(twin) => {
                if !roots.contains(&twin.root) {
                    roots.push(twin.root.clone());
                }
                let mut sent = twin.sent.into_iter();
                let chain = Chain {
                    leaf: sent.next().expect("a chain has a leaf"),
                    intermediates: sent.collect(),
                };
                chains.push(CorpusChain {
                    key_types: chain.key_types(),
                    chain,
                    roots: vec![twin.root],
                    // The real response is for the real leaf, not its twin.
                    stapled_ocsp: None,
                    ..c.clone()
                });
            }
            Err(e) => failures.push((c.id.clone(), e.into())),
        }
    }
    Twins {
        profile,
        scenario,
        chains,
        failures,
        roots,
        made_in: started.elapsed(),
    }
}

/// Every chain's leaf issued by the MTC CA in one batch: each twin its landmark-relative
/// certificate alone, trusted through the CA certificate with the landmark's subtrees.
fn mtc_twins(corpus: &Corpus, started: Instant) -> Twins {
    let templates: Vec<&[u8]> = corpus
        .chains
        .iter()
        .map(|c| c.chain.leaf.as_ref())
        .collect();
    let (mut chains, mut failures, mut roots) = (Vec::new(), Vec::new(), Vec::new());
    match super::mtc::issue::issue(&templates) {
        Ok(batch) => {
            roots.push(batch.ca_certificate.clone());
            for (c, issued) in corpus.chains.iter().zip(batch.leaves) {
                let chain = Chain {
                    leaf: issued.landmark_relative,
                    intermediates: vec![],
                };
                chains.push(CorpusChain {
                    key_types: chain.key_types(),
                    chain,
                    roots: vec![batch.ca_certificate.clone()],
                    stapled_ocsp: None,
                    ..c.clone()
                });
            }
        }
        Err(e) => {
            let why = e.to_string();
            for c in &corpus.chains {
                failures.push((c.id.clone(), TwinError::Batch(why.clone())));
            }
        }
    }
    Twins {
        profile: Profile::Mtc,
        scenario: Scenario::AS_SERVED,
        chains,
        failures,
        roots,
        made_in: started.elapsed(),
    }
}
