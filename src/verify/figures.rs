//! The figures of `certbench verify`'s sections beside its tables that its samples do not
//! hold: the store and each cached store's one build (store scaling), and every chain's path
//! checks timed alone (the parallel bound), measured here. Nothing here writes text:
//! the analysis crate's `verify` summarises the figures with the samples.

use certbench_schema::records::verify::{ChainChecks, PathChecks, Store};

use super::options::{CachedRoots, VerifyOptions};
use super::plan::Plan;
use certbench_core::methods::Method;

/// What store scaling's table needs beside the samples.
pub struct Scaling {
    /// The methods, in the run's order (one row each).
    pub methods: Vec<String>,
    /// Each method's store built once (`--cache-roots`): (method, nanoseconds).
    pub built_once: Vec<(String, u64)>,
    /// The trust store and the untrusted intermediates.
    pub store: Store,
}

/// What the parallel bound needs beside the samples.
pub struct Bound {
    /// Every chain with its path's checks timed alone and split over `threads`.
    pub chains: Vec<ChainChecks>,
    /// The threads a verification can use: the pool's workers and the caller.
    pub threads: usize,
}

/// The figures of a run's sections: store scaling when `scaling` (`--extra-roots` or
/// `--extra-intermediates` given), and `rustlsparallel` against its bound when both rustls
/// methods ran (its path checks measured now, 30 times each).
pub struct Figures {
    pub scaling: Option<Scaling>,
    pub bound: Option<Bound>,
}

/// Measures and gathers the figures of `plan`'s sections after its run (`cached`: the stores
/// the run built once).
pub fn figures(
    plan: &Plan,
    opts: &VerifyOptions,
    cached: &[CachedRoots],
    scaling: bool,
) -> Figures {
    let scaling = scaling.then(|| Scaling {
        methods: opts.methods.iter().map(|m| m.name().to_owned()).collect(),
        built_once: (cached.iter())
            .map(|c| (c.method.name().to_owned(), c.build_ns))
            .collect(),
        store: store(plan),
    });
    let both = [Method::RustlsSerial, Method::RustlsParallel];
    let bound = (both.iter().all(|m| opts.methods.contains(m))).then(|| chain_checks(plan));
    Figures { scaling, bound }
}

/// The trust store and the extra certificates of `plan`.
fn store(plan: &Plan) -> Store {
    Store {
        roots: plan.roots.describe(),
        extra_roots: plan.extra.roots.len(),
        decoy_roots: plan.extra.decoy_roots,
        extra_intermediates: plan.extra.intermediates.len(),
        decoy_intermediates: plan.extra.decoy_intermediates,
    }
}

/// Every chain with its path's checks timed alone ([`crate::bench::floor::check_costs`])
/// and split over this machine's threads ([`crate::bench::floor::makespan_bound`]; the pool's
/// workers and the caller), and that number of threads.
fn chain_checks(plan: &Plan) -> Bound {
    let chains: Vec<_> = (plan.corpus.chains.iter())
        .map(|c| (&c.chain, plan.roots.certs()))
        .collect();
    let costs = crate::bench::floor::check_costs(&chains, 30);
    let threads = certbench_core::pool::SignaturePool::global().workers() + 1;
    let chains = (plan.corpus.chains.iter().zip(costs))
        .map(|(c, cost)| ChainChecks {
            id: c.id.clone(),
            keys: c.key_types.join(", "),
            p384: c.chain.iter().any(|cert| {
                certbench_core::der::signer(cert) == Some(certbench_core::der::Signer::EcdsaP384)
            }),
            path: cost.filter(|checks| !checks.is_empty()).map(|checks| {
                let on_threads = crate::bench::floor::makespan_bound(&checks, threads);
                PathChecks { checks, on_threads }
            }),
        })
        .collect();
    Bound { chains, threads }
}
