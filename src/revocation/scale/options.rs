//! What `revocation-scale` measures, and the options that measure nothing or cannot be made.

use std::path::PathBuf;

use super::error::ScaleError;
use crate::revocation::crlite;

/// The largest CRL made (webpki parses it whole in memory; the generator builds it whole too).
pub const MAX_CRL_SERIALS: usize = 5_000_000;

/// What to measure.
#[derive(Clone, Debug)]
pub struct ScaleOptions {
    /// CRLite filter scales, each checked three ways.
    pub crlite: Vec<crlite::Scale>,
    /// CRL sizes, in revoked serials.
    pub crl_sizes: Vec<usize>,
    /// Fresh loads per data set (K).
    pub cold_runs: usize,
    /// Warm checks per leaf and data set (N).
    pub warm_runs: usize,
    /// The cache's folder (`.certbench-cache/revocation-scale`).
    pub cache: PathBuf,
}

/// Options that measure nothing, or a data set that cannot be made.
pub(super) fn check(opts: &ScaleOptions) -> Result<(), ScaleError> {
    let bad = |s: String| Err(ScaleError::BadInput(s));
    if opts.cold_runs == 0 || opts.warm_runs == 0 {
        return bad("cold and warm runs must be at least 1".into());
    }
    if let Some(&n) = opts
        .crl_sizes
        .iter()
        .find(|&&n| n == 0 || n > MAX_CRL_SERIALS)
    {
        return bad(format!(
            "a CRL of {n} serials: sizes are 1..={MAX_CRL_SERIALS} (the revoked leaf is one of them)"
        ));
    }
    let mut names: Vec<_> = opts.crlite.iter().map(|s| s.name).collect();
    names.sort();
    names.dedup();
    if names.len() != opts.crlite.len() {
        return bad("a CRLite scale is named twice".into());
    }
    Ok(())
}
