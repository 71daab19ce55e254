//! `certbench verify`: verification alone, on stored chains, at each chain's validation time.
//!
//! One sample = one method on one chain: `roots-creation` (cold: the method's store built from
//! the DER roots; cached: 0), then the method's `chain-creation`, `verify` and
//! `verify-hostname` inside `total-verification`, all inside `total`.
//!
//! Honest timing: warm-up runs come first and are marked as such; inside every run each chain
//! is measured by every method back to back (interleaved, never all of one method then the
//! next), and the method order rotates from run to run so no method always goes first.

use certbench_analysis::schema::SCHEMA_VERSION;
use certbench_analysis::{Sample, SampleMeta, Source, Stage, Verdict};

use crate::corpus::{Corpus, CorpusChain};
use crate::methods::{AnyRoots, DynVerifier, Method, Target};
use crate::roots::RootSet;
use crate::stages::Recorder;

/// What to measure.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Methods, in the order of the first run.
    pub methods: Vec<Method>,
    /// Measured runs.
    pub runs: u32,
    /// Warm-up runs (recorded with `warmup: true`, left out of statistics).
    pub warmup: u32,
    /// Build each method's store once and reuse it (`roots-creation` = 0 per sample).
    pub cache_roots: bool,
}

/// A method's store built once, for `--cache-roots`, with what building it cost.
pub struct CachedRoots {
    /// The method.
    pub method: Method,
    /// The store, or why it could not be built.
    pub roots: Result<AnyRoots, String>,
    /// Nanoseconds the one build took.
    pub build_ns: u64,
}

/// Runs the measurement, handing every sample to `sink` as soon as it is taken (so a raw file
/// holds every finished sample even if the run is cut short). Chains that failed to load give
/// one error sample per method.
pub fn run(
    corpus: &Corpus,
    roots: &RootSet,
    opts: &VerifyOptions,
    mut sink: impl FnMut(Sample),
) -> Vec<CachedRoots> {
    let verifiers: Vec<(Method, Box<dyn DynVerifier>)> =
        opts.methods.iter().map(|&m| (m, m.verifier())).collect();

    let cached: Vec<CachedRoots> = if opts.cache_roots {
        verifiers
            .iter()
            .map(|(m, v)| {
                let mut rec = Recorder::new();
                let span = rec.start();
                let built = v.build_roots(roots.certs()).map_err(|e| e.to_string());
                CachedRoots {
                    method: *m,
                    build_ns: rec.stop(Stage::RootsCreation, span),
                    roots: built,
                }
            })
            .collect()
    } else {
        Vec::new()
    };

    for failure in &corpus.failures {
        for (m, _) in &verifiers {
            sink(Sample {
                schema: SCHEMA_VERSION,
                source: Source::Verify,
                method: m.name().to_owned(),
                transport: None,
                site: failure.host.clone(),
                chain: Some(failure.id.clone()),
                run: 0,
                warmup: false,
                stages: Default::default(),
                verdict: Verdict::Error(failure.error.to_string()),
                meta: SampleMeta::default(),
            });
        }
    }

    let n = verifiers.len();
    let phases = [(true, opts.warmup), (false, opts.runs)];
    for (warmup, runs) in phases {
        for run in 0..runs {
            for item in &corpus.chains {
                for k in 0..n {
                    let (method, verifier) = &verifiers[(k + run as usize) % n];
                    let cache = cached.iter().find(|c| c.method == *method);
                    let (rec, verdict) = measure(verifier.as_ref(), cache, roots, item);
                    sink(Sample {
                        schema: SCHEMA_VERSION,
                        source: Source::Verify,
                        method: method.name().to_owned(),
                        transport: None,
                        site: item.host.clone(),
                        chain: Some(item.id.clone()),
                        run,
                        warmup,
                        stages: rec.to_map(),
                        verdict,
                        meta: SampleMeta {
                            key_types: item.key_types.clone(),
                            chain_len: Some(item.chain.len() as u32),
                            roots: Some(roots.describe()),
                            roots_cached: cache.is_some(),
                            validation_time: Some(item.validation_time),
                        },
                    });
                }
            }
        }
    }
    cached
}

/// One sample: the stages of `verifier` on `item`.
pub fn measure(
    verifier: &dyn DynVerifier,
    cached: Option<&CachedRoots>,
    roots: &RootSet,
    item: &CorpusChain,
) -> (Recorder, Verdict) {
    let mut rec = Recorder::new();
    let total = rec.start();
    let built;
    let store = match cached {
        Some(c) => {
            rec.add(Stage::RootsCreation, 0);
            match &c.roots {
                Ok(r) => r,
                Err(e) => return (rec, Verdict::Error(format!("building roots: {e}"))),
            }
        }
        None => {
            let span = rec.start();
            let result = verifier.build_roots(roots.certs());
            rec.stop(Stage::RootsCreation, span);
            match result {
                Ok(r) => {
                    built = r;
                    &built
                }
                Err(e) => return (rec, Verdict::Error(format!("building roots: {e}"))),
            }
        }
    };
    let target = Target {
        host: &item.host,
        time: item.validation_time,
    };
    let span = rec.start();
    let result = verifier.verify(store, &item.chain, target, &mut rec);
    rec.stop(Stage::TotalVerification, span);
    rec.stop(Stage::Total, total);
    // A cold store is dropped here, after `total` stopped: freeing it is not part of the sample.
    let verdict = match result {
        Ok(()) => Verdict::Ok,
        Err(r) => Verdict::Rejected(r.reason),
    };
    (rec, verdict)
}
