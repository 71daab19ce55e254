//! certbench-core: the verifiers certbench measures and what times them, with a small
//! dependency tree — this is what a Servo build links (see `patches/`).
//!
//! Modules, one concern each:
//! - [`verifier`]: what a verifier method is and speaks (`Verifier`, `Target`, `Rejection`, …);
//! - [`methods`]: the verifier methods (one file each) and the [`Method`] list (`methods!`);
//! - [`stages`]: the stage recorder (monotonic clock, no allocation while timing);
//! - [`roots`]: trust roots from one source (Mozilla, system, PEM file);
//! - [`chain`]: certificate chains as DER, and loading them from PEM;
//! - [`checks`]: what each method checks beyond the path (CT, revocation), resolved once from
//!   what it does as shipped and what the run asks;
//! - [`ct`]: Certificate Transparency: log lists, SCTs, Chrome's policy, `--ct`'s check;
//! - [`revocation`]: revocation as the browsers check it (CRLSet, CRLite, stapled OCSP) and
//!   what `--revocation` adds to the rustls methods (CRLs, CRLite, upki, OCSP);
//! - [`der`]: reading a certificate's DER (its signed parts, its key type);
//! - [`pool`]: the persistent worker pool of `rustlsparallel`;
//! - [`fail_closed`]: the one wrapper that turns a verifier's panic into a rejection;
//! - [`timed`]: [`timed::TimedVerifier`], a rustls `ServerCertVerifier` that records stages;
//! - [`servo`]: what the Servo patch calls;
//! - [`versions`]: the versions of the libraries measured;
//! - `corpus` and `fuzzing` (feature `corpus`): the bundled real-chain corpus, and the fuzz
//!   target's body (so that `fuzz/` builds on this crate alone, not on the CLI);
//! - [`ffi`]: every call into C (OpenSSL, AWS-LC, GnuTLS, the browsers' verifiers, the
//!   scheduler), each `unsafe` with its SAFETY argument;
//! - `native` (features `chrome`, `firefox`): the one verifier of the browsers' native libraries.
//!
//! Features: `openssl` (the `openssl` method), `webpki-legacy` (`webpkilegacy`, webpki 0.22
//! and ring) and `platform` (`platform`, rustls-platform-verifier) are on by default; without
//! them the crate links neither OpenSSL nor ring. `corpus` (off by default) adds the corpus
//! loader and the fuzz harness.

pub mod cache;
pub mod chain;
pub mod checks;
pub mod clock;
#[cfg(feature = "corpus")]
pub mod corpus;
pub mod ct;
pub mod decompress;
pub mod der;
pub mod error;
pub mod fail_closed;
pub mod ffi;
#[cfg(feature = "corpus")]
pub mod fuzzing;
pub mod methods;
pub mod mtc;
#[cfg(any(feature = "chrome", feature = "firefox"))]
pub mod native_verifier;
pub mod pool;
pub mod revocation;
pub mod roots;
pub mod servo;
pub mod stages;
pub mod timed;
pub mod verification_sink;
pub mod verifier;
pub mod versions;

pub use certbench_schema::{Sample, SampleMeta, Source, Stage, Verdict};
pub use checks::{Checks, CtSupport, Request, RunChecks};
pub use error::Error;
pub use methods::Method;
