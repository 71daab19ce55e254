//! Certificate Transparency as the browsers check it on every cold connection (RFC 6962): the
//! logs a browser knows ([`list`]), SCTs and the data they sign ([`sct`]), Chrome's policy
//! ([`policy`]), and the check `--ct` adds to the rustls methods ([`check`]). The browsers'
//! own checks (`chrome`, `firefox`) run in their shims, with their own libraries; what both
//! report per chain is a [`CtOutcome`], and the time is the `ct` stage.

pub mod check;
mod digest;
pub mod list;
pub mod policy;
pub mod sct;

pub use certbench_schema::CtOutcome;
pub use digest::sha256;
pub use list::{CtLog, CtLogs, LogListError, LogState};
