//! Every certificate certbench makes, in one place (rcgen, aws-lc-rs).

pub mod ca;
pub mod clone;
pub mod crl;
pub mod ct;
pub mod extra;
pub mod host;
pub mod key;
pub mod mirror_revocation;
pub mod mirror_set;
pub mod mldsa;
pub mod ocsp;
pub mod scale_ca;
pub mod synthetic;
pub mod test;
pub mod twin;
