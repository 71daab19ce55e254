//! Every certificate certbench makes, in one place (rcgen, aws-lc-rs).

pub mod clone;
pub mod crl;
pub mod ct;
pub mod key;
pub mod mirror_revocation;
pub mod ocsp;
pub mod twin;
