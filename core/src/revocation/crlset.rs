//! Chrome's CRLSet (being written).

use super::{Mechanism, RevocationError};

/// A parsed CRLSet.
pub struct CrlSet {
    bytes: u64,
}

impl CrlSet {
    /// Parses a CRLSet file.
    pub fn parse(bytes: &[u8]) -> Result<CrlSet, RevocationError> {
        let _ = bytes.len();
        Err(RevocationError::Corrupt {
            mechanism: Mechanism::CrlSet,
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
