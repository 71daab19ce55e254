//! Every call into C that certbench-core makes, and every `unsafe` block of the crate but the
//! signature pool's job hand-over (`pool.rs`, which shares a closure on the caller's stack with
//! its workers and calls no C). Each `unsafe` block or `unsafe impl` here carries a `SAFETY:`
//! comment that argues why it is sound; each module wraps its library in owned types and safe
//! functions that the rest of the crate calls, and is used only through those.
//!
//! - [`ossl`] (feature `openssl`): what rust-openssl does not wrap (the verify callback, a
//!   store context's parameters, a stack of CRLs, sharing a store, resuming a session);
//! - [`awslc`] (feature `awslc`): AWS-LC's `X509_verify_cert` and what it needs;
//! - [`gnutls`] (feature `gnutls`): GnuTLS's trust list, verification and host checks;
//! - [`native`] (features `chrome`, `firefox`): loading the browsers' verifiers' shared objects
//!   and calling their table;
//! - `affinity`: keeping the signature pool's workers off the caller's CPU (`sched_*`).

pub(crate) mod affinity;
#[cfg(feature = "awslc")]
pub mod awslc;
#[cfg(feature = "gnutls")]
pub mod gnutls;
#[cfg(any(feature = "chrome", feature = "firefox"))]
pub mod native;
#[cfg(feature = "openssl")]
pub mod ossl;
