//! What `certbench verify` measures with ([`VerifyOptions`]), and a method's store built once
//! for `--cache-roots` ([`CachedRoots`]): shared by the plan, the run and its figures.

use std::sync::Arc;

use certbench_core::ct::CtLogs;
use certbench_core::revocation::RevocationData;

use certbench_core::methods::{AnyRoots, Method};

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
    /// Untrusted intermediates offered with every chain, after its leaf and before the
    /// certificates it sent (`--extra-intermediates`; see [`crate::extra`]).
    pub extra_intermediates: Vec<rustls_pki_types::CertificateDer<'static>>,
    /// `--ct`: the CT logs the methods that have a CT check check the leaves' SCTs against
    /// (the `ct` stage).
    pub ct: Option<Arc<CtLogs>>,
    /// `--revocation`: the data the methods that check revocation check against (the
    /// `revocation` stage).
    pub revocation: Option<Arc<RevocationData>>,
}

/// A method's store built once, for `--cache-roots`, with what building it cost.
pub struct CachedRoots {
    /// The method.
    pub method: Method,
    /// The store, or why it could not be built.
    pub roots: Result<AnyRoots, certbench_core::Error>,
    /// Nanoseconds the one build took.
    pub build_ns: u64,
}
