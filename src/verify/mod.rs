//! `certbench verify`: verification alone, on stored chains, at each chain's validation time.
//!
//! One sample = one method on one chain: `roots-creation` (cold: the method's store built from
//! the DER roots; cached: 0), then the method's `chain-creation`, `verify` and
//! `verify-hostname` inside `total-verification`, all inside `total`; with `--ct`, the `ct` stage
//! of the methods that check Certificate Transparency, inside `total-verification` too; with
//! `--revocation`, the `revocation` stage of the methods that check revocation, inside it too,
//! the chain's real stapled OCSP response offered where the corpus has one, and the data's
//! one load per process (`revocation-load`) outside it, in the method's first sample.
//!
//! Honest timing: warm-up runs come first and are marked as such; inside every run each chain
//! is measured by every method back to back (interleaved, never all of one method then the
//! next). The order of the methods is a balanced Latin square (the steps of [`crate::run::schedule::steps`], as the driver's): within a
//! few runs every method takes every position and follows every other method equally often. A
//! mere rotation would keep each method's predecessor fixed, and what the previous sample left
//! in the caches and the allocator (OpenSSL's store, built and freed) would then land on the
//! same method every time.
//!
//! With `--pq`, every chain is measured beside its post-quantum twins (`config.profile`
//! `classical` and the profile), interleaved in the same square; a method that does not
//! implement a twin's algorithm gives an `unsupported` sample, untimed.

use certbench_schema::Config;
use certbench_schema::{Sample, SampleMeta, Source, Stage, Verdict};

use crate::pq::scenario::TwinSet;
use crate::run::sample::{Subject, sample};
use crate::run::schedule::{Step, steps};
use certbench_core::Checks;
use certbench_core::corpus::CorpusChain;
use certbench_core::methods::{DynVerifier, Method};
use certbench_core::roots::RootSet;
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;

pub mod figures;
mod options;
pub mod plan;

pub use figures::{Figures, figures};
pub use options::{CachedRoots, VerifyOptions};
pub use plan::{Plan, PlanOptions, Unmeasured, VerifyPlanError};

/// The configuration of `method`'s samples on chains of `profile`: no transport, the roots,
/// `--cache-roots`, OpenSSL's policy for `openssl`, the verifier's library, the profile, and
/// what it checks beyond the path (`checks`).
fn config(
    method: Method,
    opts: &VerifyOptions,
    roots: &RootSet,
    profile: Option<TwinSet>,
    checks: &Checks,
) -> Config {
    let library = method.verifier().library();
    Config {
        cache_roots: opts.cache_roots,
        roots: Some(roots.trust_store().into()),
        extra_intermediates: opts.extra_intermediates.len() as u32,
        openssl_policy: openssl_policy(method),
        versions: [(library.name.to_owned(), library.version)].into(),
        profile: profile.map(|p| p.profile.into()),
        scenario: profile.and_then(|p| p.scenario),
        ct: checks.ct.as_deref().map(|logs| logs.label().into()),
        revocation: (checks.revocation.as_ref()).map(|(m, d)| d.label(*m).into()),
        ..Config::default()
    }
}

/// OpenSSL's policy, for the methods that are OpenSSL.
fn openssl_policy(method: Method) -> Option<certbench_schema::OpensslPolicy> {
    (method == Method::OpenSsl).then(|| {
        certbench_core::methods::openssl::OpenSslVerifier::default()
            .policy()
            .into()
    })
}

/// Runs the measurement of `plan`'s chains (and twins), handing every sample to `sink` as soon
/// as it is taken (so a raw file holds every finished sample even if the run is cut short).
/// Chains that failed to load, and twins that could not be made, give one error sample per
/// method.
pub fn run(plan: &Plan, opts: &VerifyOptions, mut sink: impl FnMut(Sample)) -> Vec<CachedRoots> {
    let roots = &plan.roots;
    let verifiers: Vec<(Method, Box<dyn DynVerifier>)> =
        opts.methods.iter().map(|&m| (m, m.verifier())).collect();
    // The revocation data, loaded before any sample, untimed: its load is start-up, measured
    // apart over fresh processes (`crate::startup`); no sample pays it.
    for (_, v) in &verifiers {
        if let Some((mechanism, data)) = opts.checks.for_method(&v.capabilities()).revocation {
            data.preload(mechanism, &mut Recorder::new());
        }
    }

    let cached: Vec<CachedRoots> = if opts.cache_roots {
        verifiers
            .iter()
            .map(|(m, v)| {
                // The library's start-up is its own stage, in the method's first sample.
                v.start_up();
                let mut rec = Recorder::new();
                let span = rec.start();
                let built = v.build_roots(roots.certs());
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

    for f in plan.failures() {
        for (m, v) in &verifiers {
            let chain = Subject::Chain {
                host: &f.host,
                id: &f.id,
            };
            let checks = opts.checks.for_method(&v.capabilities());
            let config = config(*m, opts, roots, f.profile, &checks);
            let mut sample = sample(Source::Verify, *m, config, chain, (false, 0));
            sample.verdict = Verdict::Error(f.why.clone());
            sink(sample);
        }
    }

    // Made once, before any timing: the chains as verified (with extra intermediates), with
    // `--pq` their bytes as sent (to set beside the twin's), and what each method cannot verify.
    let offered: Vec<Offered> = (plan.items().into_iter())
        .map(|(profile, c)| {
            let sent: Vec<_> = c.chain.iter().cloned().collect();
            let wire = profile.map(|_| {
                use crate::transport::flight::{certificate_message_bytes, chain_bytes};
                (chain_bytes(&sent), certificate_message_bytes(&sent))
            });
            let unsupported = (verifiers.iter())
                .map(|(_, v)| {
                    v.capabilities()
                        .unsupported(&c.chain)
                        .map(|u| u.to_string())
                })
                .collect();
            let mut item = c.clone();
            if !opts.extra_intermediates.is_empty() {
                let sent = std::mem::take(&mut item.chain.intermediates);
                item.chain.intermediates = opts.extra_intermediates.clone();
                item.chain.intermediates.extend(sent);
            }
            Offered {
                profile,
                item,
                wire,
                unsupported,
            }
        })
        .collect();
    for step in steps(verifiers.len(), opts.warmup, opts.runs) {
        // Chain `c` takes row `r + c` in run `r`, so every chain steps through every order as
        // the runs go by; the methods are renamed every `period` runs, so that what ran two
        // before a method is not fixed by its place in the list.
        for (c, o) in offered.iter().enumerate() {
            for k in step.order(c) {
                let (method, verifier) = &verifiers[k];
                let cache = cached.iter().find(|c| c.method == *method);
                sink(one(
                    o,
                    (*method, verifier.as_ref()),
                    k,
                    cache,
                    step,
                    roots,
                    opts,
                ));
            }
        }
    }
    cached
}

/// One sample of `method` on `o`'s chain in `step`: measured, or `unsupported` untimed.
fn one(
    o: &Offered,
    (method, verifier): (Method, &dyn DynVerifier),
    k: usize,
    cache: Option<&CachedRoots>,
    step: Step,
    roots: &RootSet,
    opts: &VerifyOptions,
) -> Sample {
    let item = &o.item;
    let checks = checks_for(verifier, item, opts);
    let (rec, verdict) = match &o.unsupported[k] {
        Some(why) => (Recorder::new(), Verdict::Unsupported(why.clone())),
        None => measure_with(verifier, cache, roots, item, &checks),
    };
    let chain = Subject::Chain {
        host: &item.host,
        id: &item.id,
    };
    // The configuration names the method's checks in this run, as on a public chain: a
    // private CA's chain, on which CT is not asked, is a sample of the same configuration.
    let config = config(
        method,
        opts,
        roots,
        o.profile,
        &opts.checks.for_method(&verifier.capabilities()),
    );
    let mut sample = sample(
        Source::Verify,
        method,
        config,
        chain,
        (step.warmup, step.run),
    );
    sample.stages = rec.to_map();
    sample.verdict = verdict;
    sample.meta = SampleMeta {
        key_types: item.key_types.clone(),
        chain_len: Some(item.chain.len() as u32 - opts.extra_intermediates.len() as u32),
        roots_cached: cache.is_some(),
        validation_time: Some(item.validation_time),
        chain_bytes: o.wire.map(|(chain, _)| chain),
        cert_message_bytes: o.wire.map(|(_, message)| message),
        ev: rec.ev(),
        ct: rec.ct(),
        revocation: rec.revocation().cloned(),
        ..SampleMeta::default()
    };
    sample
}

/// A chain as a run offers it to every method (see [`run`]).
struct Offered {
    /// Its set (profile and scenario), with `--pq`.
    profile: Option<TwinSet>,
    /// The chain, with the extra intermediates.
    item: CorpusChain,
    /// With `--pq`: its bytes and its Certificate message, as sent (without the extras).
    wire: Option<(u64, u64)>,
    /// Per method (in the run's order): the algorithm it does not implement, if any.
    unsupported: Vec<Option<String>>,
}

/// What `verifier` checks on `item` in a run with `opts`: its [`Checks`], less CT on a
/// private CA's chain (no browser requires CT of it).
fn checks_for(verifier: &dyn DynVerifier, item: &CorpusChain, opts: &VerifyOptions) -> Checks {
    let mut checks = opts.checks.for_method(&verifier.capabilities());
    if !item.public_root {
        checks.ct = None;
    }
    checks
}

/// One sample: the stages of `verifier` on `item`.
pub fn measure(
    verifier: &dyn DynVerifier,
    cached: Option<&CachedRoots>,
    roots: &RootSet,
    item: &CorpusChain,
) -> (Recorder, Verdict) {
    measure_with(verifier, cached, roots, item, &Checks::none())
}

/// One sample, with `checks`.
pub fn measure_with(
    verifier: &dyn DynVerifier,
    cached: Option<&CachedRoots>,
    roots: &RootSet,
    item: &CorpusChain,
    checks: &Checks,
) -> (Recorder, Verdict) {
    let mut rec = Recorder::new();
    // The library's start-up (once per process), apart from `roots-creation` and `total`,
    // what it makes of the CT logs (once per list), apart from any stage, and the revocation
    // data's load (once per process), as `revocation-load`.
    verifier.start_up();
    if let Some(logs) = &checks.ct {
        verifier.prepare_ct(logs);
    }
    if let Some(ns) = verifier.take_start_up_ns() {
        rec.add(Stage::LibraryInit, ns);
    }
    if let Some((mechanism, data)) = &checks.revocation {
        data.preload(*mechanism, &mut rec);
    }
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
    let target = checks.target(
        Target::server(&item.host, item.validation_time),
        item.stapled_ocsp.as_deref(),
    );
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
