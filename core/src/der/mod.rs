//! Reading the parts of a DER X.509 certificate that a signature check needs (its signed
//! parts, its subjectPublicKeyInfo, its signer) and its key type, without a crypto library.
//!
//! Invariant: every reader here is total: malformed bytes are a [`DerError`] or `None`, never a
//! panic (the fuzz target feeds it arbitrary chains).
//!
//! - [`reader`]: the TLV cursor, tag constants, [`DerError`], [`push_tlv`];
//! - [`cert`]: a certificate's fields by position ([`SignedParts`], [`Spki`], [`validity`], …);
//! - [`sct`]: the embedded SCT list and the precertificate TBS ([`embedded_scts`]);
//! - [`key`]: key classes ([`Signer`], [`MlDsa`], [`key_type`]).

pub mod cert;
pub mod key;
pub mod reader;
pub mod sct;

pub use cert::*;
pub use key::*;
pub use reader::*;
pub use sct::*;

#[cfg(test)]
mod tests;
