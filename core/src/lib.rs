//! certbench-core: the verifiers certbench measures and what times them, with a small
//! dependency tree — this is what a Servo build links (see `patches/`).
//!
//! Modules, one concern each:
//! - [`methods`]: the verifier methods (one file each) and the [`Method`] list (`methods!`);
//! - [`stages`]: the stage recorder (monotonic clock, no allocation while timing);
//! - [`roots`]: trust roots from one source (Mozilla, system, PEM file);
//! - [`chain`]: certificate chains as DER, loading PEM, and reading a certificate's signed parts;
//! - [`pool`]: the persistent worker pool of `rustlsparallel`;
//! - [`fail_closed`]: the one wrapper that turns a verifier's panic into a rejection;
//! - [`timed`]: [`timed::TimedVerifier`], a rustls `ServerCertVerifier` that records stages;
//! - [`servo`]: what the Servo patch calls;
//! - [`versions`]: the versions of the libraries measured;
//! - [`ossl`] (feature `openssl`): every `unsafe` OpenSSL call, with its SAFETY argument.
//!
//! Features (all on by default; off, the crate links neither OpenSSL nor ring):
//! `openssl` (the `openssl` method), `webpki-legacy` (`webpkilegacy`, webpki 0.22 + ring),
//! `platform` (`platform`, rustls-platform-verifier).

pub mod chain;
pub mod error;
pub mod fail_closed;
pub mod methods;
#[cfg(feature = "openssl")]
pub mod ossl;
pub mod pool;
pub mod roots;
pub mod servo;
pub mod stages;
pub mod timed;
pub mod versions;

pub use certbench_analysis::schema::{Sample, SampleMeta, Source, Stage, Verdict};
pub use error::Error;
pub use methods::Method;
