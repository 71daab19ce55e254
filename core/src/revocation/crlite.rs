//! CRLite (being written).

use std::path::Path;

use super::{Mechanism, RevocationError};

/// A CRLite filter in memory.
pub struct Filter {
    bytes: u64,
}

impl Filter {
    /// Loads a filter.
    pub fn load(bytes: &[u8]) -> Result<Filter, RevocationError> {
        let _ = bytes.len();
        Err(RevocationError::Corrupt {
            mechanism: Mechanism::Crlite,
            detail: "not read yet".into(),
        })
    }
    /// Bytes read.
    pub fn data_bytes(&self) -> u64 {
        self.bytes
    }
    /// Bytes kept.
    pub fn resident_bytes(&self) -> u64 {
        self.bytes
    }
}

/// upki's store.
pub struct UpkiStore {
    bytes: u64,
}

impl UpkiStore {
    /// Opens a store.
    pub fn open(dir: &Path) -> Result<UpkiStore, RevocationError> {
        let _ = dir;
        Err(RevocationError::Corrupt {
            mechanism: Mechanism::Upki,
            detail: "not read yet".into(),
        })
    }
    /// Bytes read per check.
    pub fn data_bytes(&self) -> u64 {
        self.bytes
    }
}
