//! Why the table cannot be made.

use std::path::{Path, PathBuf};

use certbench_core::revocation::{RevocationError, Status};

use crate::certs::crl;
use crate::revocation::{crlite, crlset};

/// Why the table cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    /// Options that measure nothing or cannot be made.
    #[error("revocation-scale: {0}")]
    BadInput(String),
    /// A file could not be read or written.
    #[error("revocation-scale: {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The CA, the log or a leaf could not be made or read back.
    #[error("revocation-scale: the test CA: {0}")]
    Ca(String),
    /// The CRLSet generator refused.
    #[error("revocation-scale: CRLSet: {0}")]
    CrlSet(#[from] crlset::CrlSetError),
    /// The filter builder refused.
    #[error("revocation-scale: {0}")]
    Crlite(#[from] crlite::GenError),
    /// The CRL generator refused.
    #[error("revocation-scale: CRL: {0}")]
    Crl(#[from] crl::CrlGenError),
    /// A data set could not be loaded or checked.
    #[error("revocation-scale: {data}: {source}")]
    Check {
        /// The data set.
        data: String,
        /// Why.
        source: RevocationError,
    },
    /// A check's verdict was not the leaf's.
    #[error("revocation-scale: {data}: the {leaf} leaf's check said {got:?}, not {want:?}")]
    Verdict {
        /// The data set.
        data: String,
        /// `not-revoked` or `revoked`.
        leaf: &'static str,
        /// What the check said.
        got: Status,
        /// What it should have said.
        want: Status,
    },
}

/// The error of a file that could not be read or written.
pub(super) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ScaleError + '_ {
    move |source| ScaleError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The CA, the log or a leaf could not be made or read back.
pub(super) fn ca_err(e: impl std::fmt::Display) -> ScaleError {
    ScaleError::Ca(e.to_string())
}
