//! What `certbench verify` measures beside its samples, for the sections beside its tables:
//! the trust store and the untrusted intermediates of a run ([`Store`]), and every chain's path
//! checks timed alone ([`ChainChecks`]).

/// The trust store and the untrusted intermediates of one `verify` run.
#[derive(Clone, Debug)]
pub struct Store {
    /// The store as its samples' configuration names it (`mozilla+corpus+extra (1621)`).
    pub roots: String,
    /// Generated roots added (`--extra-roots`), decoys included.
    pub extra_roots: usize,
    /// Of those, same-subject decoys of the corpus's anchors.
    pub decoy_roots: usize,
    /// Generated intermediates offered with every chain (`--extra-intermediates`).
    pub extra_intermediates: usize,
    /// Of those, decoys of the leaves' issuers.
    pub decoy_intermediates: usize,
}

/// One chain of the corpus, with its path's checks timed alone.
#[derive(Clone, Debug)]
pub struct ChainChecks {
    /// The chain's id (its samples' `chain`).
    pub id: String,
    /// Its key types, joined for the table (`ecdsa-p256, rsa-2048`).
    pub keys: String,
    /// A P-384 signature somewhere on the sent chain (the root's on the last intermediate
    /// included): a check worth overlapping even with the pool asleep.
    pub p384: bool,
    /// Its path's checks, for a chain with a path to a root and at least one check.
    pub path: Option<PathChecks>,
}

/// A path's checks timed alone.
#[derive(Clone, Debug)]
pub struct PathChecks {
    /// Each check's median time alone, nanoseconds (not empty).
    pub checks: Vec<u64>,
    /// The least time the machine's threads can take to make them, each check whole on one
    /// thread (`certbench::bench::floor::makespan_bound`), nanoseconds.
    pub on_threads: u64,
}
