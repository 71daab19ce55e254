//! What `certbench verify` measures with ([`VerifyOptions`]), and a method's store built once
//! for `--cache-roots` ([`CachedRoots`]): shared by the plan, the run and its figures.

use certbench_core::RunChecks;

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
    /// What the methods check beyond the path (the `ct` and `revocation` stages): each
    /// browser's as shipped, Servo's what `--ct` and `--revocation` add, none with
    /// `--path-only`; resolved per method.
    pub checks: RunChecks,
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
