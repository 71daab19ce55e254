//! The core's errors. Every error that concerns one input names it (file, chain, host), so a run
//! can report it per item and go on.

use std::path::PathBuf;

/// Errors the library returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read. (The cause is in the message, not a `source()`, so that
    /// a per-item error row and an error chain both say it exactly once.)
    #[error("{path}: {cause}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// A PEM file that is not valid PEM.
    #[error("{path}: not valid PEM: {message}")]
    Pem {
        /// The file.
        path: PathBuf,
        /// What the PEM reader said.
        message: String,
    },
    /// A PEM file with no certificate in it where one was needed.
    #[error("{path}: no certificate found")]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// A certificate whose bytes are not a DER X.509 certificate.
    #[error("{path}: certificate #{index} is not DER X.509: {cause}")]
    BadDer {
        /// The file.
        path: PathBuf,
        /// 1-based position in the file.
        index: usize,
        /// What the parser found.
        cause: crate::der::DerError,
    },
    /// A leaf file holding more than one certificate.
    #[error("{path}: expected one leaf certificate, found {count}")]
    TooManyLeaves {
        /// The file.
        path: PathBuf,
        /// How many certificates it holds.
        count: usize,
    },
    /// A chain folder with neither `leaf.pem` nor `chain.pem`.
    #[error("{dir}: no leaf.pem or chain.pem (empty chain)")]
    EmptyChain {
        /// The folder.
        dir: PathBuf,
    },
    /// The corpus manifest could not be understood.
    #[error("{path}: bad manifest: {message}")]
    Manifest {
        /// The manifest file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// A roots source gave no usable root.
    #[error("roots `{origin}`: {message}")]
    Roots {
        /// The source.
        origin: String,
        /// What was wrong.
        message: String,
    },
    /// A browser's native verifier is not built or cannot be loaded.
    #[cfg(any(feature = "chrome", feature = "firefox"))]
    #[error(transparent)]
    Native(#[from] crate::ffi::native::NativeError),
    /// AWS-LC failed.
    #[cfg(feature = "awslc")]
    #[error("AWS-LC: {0}")]
    AwsLc(#[from] crate::ffi::awslc::AwsLcError),
    #[cfg(feature = "openssl")]
    /// OpenSSL failed outside of a verification verdict (allocation, parsing a root, …).
    #[error("OpenSSL: {0}")]
    OpenSsl(#[from] openssl::error::ErrorStack),
}
