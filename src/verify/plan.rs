//! What `certbench verify` measures, settled once from its options ([`Plan::prepare`]): the
//! corpus, the trust roots (with the corpus's anchors and the generated extra roots), the extra
//! intermediates; the chains it cannot measure ([`Unmeasured`]); and the lines that describe
//! it. The figures of the sections beside the tables are [`super::figures`]'.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::options::VerifyOptions;
use crate::certs::extra::Extra;
use crate::certs::twin::{Twins, twins_in};
use crate::pq::Profile;
use crate::pq::scenario::{Scenario, TwinSet};
use certbench_core::corpus::{Corpus, CorpusChain};
use certbench_core::roots::{RootSet, RootsSpec};

/// Where the chains and roots come from, and the store scaling asked for.
#[derive(Clone, Debug)]
pub struct PlanOptions {
    /// The folder of chains.
    pub chains: PathBuf,
    /// The trust roots.
    pub roots: RootsSpec,
    /// Add the chains' own `root.pem` anchors to the roots.
    pub corpus_roots: bool,
    /// Generated roots to add to the store (`--extra-roots`).
    pub extra_roots: usize,
    /// Generated intermediates to offer with every chain (`--extra-intermediates`).
    pub extra_intermediates: usize,
    /// Post-quantum profiles whose twins are measured beside the chains (`--pq`).
    pub pq: Vec<Profile>,
    /// The scenarios each profile's twins are made under (`--scenarios`; every one by
    /// default).
    pub scenarios: Vec<Scenario>,
}

/// Why a plan could not be made (nothing was measured).
#[derive(Debug, thiserror::Error)]
pub enum VerifyPlanError {
    /// The corpus could not be read.
    #[error("loading chains from {}", .dir.display())]
    Corpus {
        /// The folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: certbench_core::Error,
    },
    /// The folder holds neither a chain nor a chain that failed to load.
    #[error("{}: no chain folders found", .0.display())]
    NoChains(PathBuf),
    /// The trust roots could not be read.
    #[error("loading trust roots")]
    Roots(#[source] certbench_core::Error),
    /// The extra roots or intermediates could not be generated.
    #[error("generating the extra roots and intermediates")]
    Extra(#[source] crate::certs::ca::GenError),
}

/// A chain that could not be measured: each method gets an error sample for it.
#[derive(Clone, Debug)]
pub struct Unmeasured {
    /// The set of its twin (`None`: the chain itself failed to load).
    pub profile: Option<TwinSet>,
    /// The chain's id.
    pub id: String,
    /// The host it was served for (empty when unknown).
    pub host: String,
    /// Why it could not be measured.
    pub why: String,
}

/// The corpus, the store and the extra certificates of one `verify` run.
pub struct Plan {
    /// The chains (and those that failed to load).
    pub corpus: Corpus,
    /// The trust store, extras included.
    pub roots: RootSet,
    /// The generated roots and intermediates (empty without store scaling).
    pub extra: Extra,
    /// How long generating `extra` took, when anything was generated.
    pub generated_in: Option<Duration>,
    /// The chains' twins, one set per `--pq` profile and scenario (their roots are in
    /// `roots`).
    pub twins: Vec<Twins>,
}

impl Plan {
    /// Loads the corpus and the roots and generates the extra certificates.
    pub fn prepare(opts: &PlanOptions) -> Result<Plan, VerifyPlanError> {
        let dir = &opts.chains;
        let corpus = Corpus::load(dir).map_err(|source| VerifyPlanError::Corpus {
            dir: dir.clone(),
            source,
        })?;
        if corpus.chains.is_empty() && corpus.failures.is_empty() {
            return Err(VerifyPlanError::NoChains(dir.clone()));
        }
        let mut roots = RootSet::load(&opts.roots).map_err(VerifyPlanError::Roots)?;
        if opts.corpus_roots {
            roots.extend("corpus", corpus.roots());
        }
        let (mut extra, mut generated_in) = (Extra::default(), None);
        if opts.extra_roots + opts.extra_intermediates > 0 {
            let started = Instant::now();
            extra =
                crate::certs::extra::generate(&corpus, opts.extra_roots, opts.extra_intermediates)
                    .map_err(VerifyPlanError::Extra)?;
            generated_in = Some(started.elapsed());
            roots.extend("extra", extra.roots.iter().cloned());
        }
        let twins: Vec<Twins> = (crate::pq::scenario::sets(&opts.pq, &opts.scenarios))
            .into_iter()
            .skip(1)
            .map(|set| twins_in(&corpus, set))
            .collect();
        for t in &twins {
            let name = format!("pq-{}", t.set().dir_name());
            roots.extend(&name, t.roots.iter().cloned());
        }
        Ok(Plan {
            corpus,
            roots,
            extra,
            generated_in,
            twins,
        })
    }

    /// Every chain that could not be measured: those that failed to load, and those without
    /// a twin under a profile.
    pub fn failures(&self) -> Vec<Unmeasured> {
        let mut all: Vec<_> = (self.corpus.failures.iter())
            .map(|f| Unmeasured {
                profile: None,
                id: f.id.clone(),
                host: f.host.clone(),
                why: f.error.to_string(),
            })
            .collect();
        for t in &self.twins {
            for (id, why) in &t.failures {
                let host = (self.corpus.chains.iter())
                    .find(|c| c.id == *id)
                    .map(|c| c.host.clone());
                all.push(Unmeasured {
                    profile: Some(t.set()),
                    id: id.clone(),
                    host: host.unwrap_or_default(),
                    why: format!("no {} twin: {why}", t.set()),
                });
            }
        }
        all
    }

    /// What `--pq` made, when it made anything: one line per profile.
    pub fn twins_made(&self) -> Vec<String> {
        (self.twins.iter())
            .map(|t| {
                format!(
                    "certbench verify: {} {} twins made in {:.2} s",
                    t.chains.len(),
                    t.set(),
                    t.made_in.as_secs_f64()
                )
            })
            .collect()
    }

    /// The chains as measured: each corpus chain, then (with `--pq`) its twin under each
    /// profile and scenario, each with its set (`None` without `--pq`).
    pub fn items(&self) -> Vec<(Option<TwinSet>, &CorpusChain)> {
        let mut items = Vec::new();
        for c in &self.corpus.chains {
            let today = (!self.twins.is_empty()).then_some(TwinSet::TODAY);
            items.push((today, c));
            for t in &self.twins {
                if let Some(twin) = t.chains.iter().find(|twin| twin.id == c.id) {
                    items.push((Some(t.set()), twin));
                }
            }
        }
        items
    }

    /// What was generated, when anything was.
    pub fn generated(&self) -> Option<String> {
        let extra = &self.extra;
        self.generated_in.map(|t| format!(
            "certbench verify: generated {} extra roots ({} decoys) and {} extra intermediates ({} decoys) in {:.1} s",
            extra.roots.len(),
            extra.decoy_roots,
            extra.intermediates.len(),
            extra.decoy_intermediates,
            t.as_secs_f64()
        ))
    }

    /// `, +M untrusted intermediates per chain`, or nothing.
    fn intermediates(&self) -> String {
        match self.extra.intermediates.len() {
            0 => String::new(),
            m => format!(", +{m} untrusted intermediates per chain"),
        }
    }

    /// `, today's and their mldsa44 twins`, or nothing without `--pq`.
    fn profiles(&self) -> String {
        let names: Vec<String> = self.twins.iter().map(|t| t.set().key()).collect();
        match names.is_empty() {
            true => String::new(),
            false => format!(", each beside its {} twins", names.join(", ")),
        }
    }

    /// The note before measuring.
    pub fn describe(&self, opts: &VerifyOptions) -> String {
        format!(
            "certbench verify: {} chains{} × {} methods × {} runs (+{} warm-up), roots {}{}{}",
            self.corpus.chains.len(),
            self.profiles(),
            opts.methods.len(),
            opts.runs,
            opts.warmup,
            self.roots.describe(),
            self.intermediates(),
            if opts.cache_roots {
                ", cached"
            } else {
                ", cold per sample"
            }
        )
    }

    /// The tables' title.
    pub fn title(&self, opts: &VerifyOptions) -> String {
        format!(
            "certbench verify — {} chains{}, {} runs (+{} warm-up), roots {}{}, {}",
            self.corpus.chains.len(),
            self.profiles(),
            opts.runs,
            opts.warmup,
            self.roots.describe(),
            self.intermediates(),
            if opts.cache_roots {
                "stores cached"
            } else {
                "stores built cold per sample"
            }
        )
    }
}
