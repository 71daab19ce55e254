//! Every certificate certbench makes, in one place (rcgen, aws-lc-rs).

pub mod crl;
pub mod ct;
pub mod ocsp;
