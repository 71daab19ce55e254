//! The certbench crate's errors: the core's, and those of inputs only certbench reads
//! (x509-limbo files, instruction counts). Every error that concerns one
//! input names it (file, chain, host), so a run can report it per item and go on.

use std::path::PathBuf;

/// Errors the certbench library returns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error of the verifier core (files, PEM, DER, roots, OpenSSL).
    #[error(transparent)]
    Core(#[from] certbench_core::Error),
    /// An instruction count could not be taken (valgrind missing or failing, bad output).
    #[error("instruction count: {0}")]
    Icount(String),
    /// An x509-limbo file that cannot be used at all (not JSON, not schema version 1).
    #[error("{path}: not an x509-limbo file: {cause}")]
    Limbo {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        cause: crate::limbo::testcase::FileError,
    },
}

impl Error {
    /// A file that could not be read.
    pub fn io(path: impl Into<PathBuf>, cause: std::io::Error) -> Error {
        Error::Core(certbench_core::Error::Io {
            path: path.into(),
            cause,
        })
    }
}
