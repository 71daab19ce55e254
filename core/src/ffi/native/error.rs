//! Why a native verifier cannot be used ([`NativeError`], [`LoadError`]) and a library's own
//! refusal ([`Refusal`]): the typed errors of `ffi::native`.

use super::table::ABI;

/// Why a native verifier cannot be used in this process.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NativeError {
    /// It was not built, or its shared object cannot be loaded.
    #[error("method `{method}` is not available: {why}; {how}")]
    Unavailable {
        /// The method.
        method: &'static str,
        /// Why.
        why: LoadError,
        /// What to do about it.
        how: &'static str,
    },
}

/// Why a native verifier's shared object could not be loaded (the `why` of
/// [`NativeError::Unavailable`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The build left it out.
    #[error("it was not built ({missing})")]
    NotBuilt {
        /// Why the build left it out.
        missing: &'static str,
    },
    /// The path (from the environment) holds a NUL.
    #[error("{path}: NUL in path")]
    NulInPath {
        /// The path.
        path: String,
    },
    /// `dlopen` failed.
    #[error("cannot load {path}: {reason}")]
    Open {
        /// The shared object.
        path: String,
        /// dlerror's message.
        reason: String,
    },
    /// The shared object does not export the table's function.
    #[error("{path} has no certbench_verifier_v4_table: {reason}")]
    NoTable {
        /// The shared object.
        path: String,
        /// dlerror's message.
        reason: String,
    },
    /// The table's function returned NULL.
    #[error("{path}: the verifier's table is NULL")]
    NullTable {
        /// The shared object.
        path: String,
    },
    /// The library's start-up (`init`) failed.
    #[error("{path}: the library did not start: {reason}")]
    Init {
        /// The shared object.
        path: String,
        /// The library's reason.
        reason: String,
    },
    /// The table speaks another ABI version.
    #[error("{path}: ABI {found} where {ABI} is expected")]
    Abi {
        /// The shared object.
        path: String,
        /// The table's ABI version.
        found: u32,
    },
}

/// A native library's refusal or failure, in its own words (the reason buffer it wrote, or a
/// fallback when it wrote none).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);
