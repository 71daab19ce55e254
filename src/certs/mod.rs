//! Every certificate certbench makes, in one place (rcgen, aws-lc-rs).

pub mod clone;
pub mod crl;
pub mod ct;
pub mod host;
pub mod key;
pub mod mirror_revocation;
pub mod mirror_set;
pub mod ocsp;
pub mod synthetic;
pub mod twin;
