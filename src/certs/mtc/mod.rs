//! Merkle Tree Certificates (the `mtc` profile; draft-ietf-plants-merkle-tree-certs-07):
//! certbench's MTC CA. [`log`] is its issuance log (a Merkle tree padded to a real CA's size,
//! its landmarks and their covering subtrees), [`issue`] issues a batch of certificates from
//! templates into it (landmark-relative and standalone forms), [`ca_cert`] is the CA as a
//! relying party trusts it (its CA certificate, with the landmarks held); [`encode`] the DER
//! written by hand. The relying party's
//! side is `certbench_core::mtc`.

pub mod ca_cert;
pub mod encode;
pub mod issue;
pub mod log;
