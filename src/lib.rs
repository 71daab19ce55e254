//! certbench: what TLS certificate verification costs a browser, per site and per stage,
//! for OpenSSL versus webpki (serial and parallel).
//!
//! The library measures and produces [`certbench_analysis::Sample`]s; the `certbench-analysis`
//! crate turns samples into statistics and tables. Modules, one concern each:
//! - [`stages`]: the stage recorder (monotonic clock, no allocation while timing);
//! - [`roots`]: trust roots from one source (Mozilla, system, PEM file);
//! - [`chain`]: certificate chains as DER, loading PEM, and reading a certificate's signed parts;
//! - [`corpus`]: the bundled real-chain corpus;
//! - [`methods`]: the verifier methods (one file each) and the [`methods::Method`] list;
//! - [`pool`]: the persistent worker pool of `rustlsparallel`;
//! - [`bench`]: measurement loops (`certbench verify`);
//! - [`fuzzing`]: the fuzz target's body (invariants checked on arbitrary chains);
//! - [`limbo`]: x509-limbo testcases, run through every method (`certbench limbo`);
//! - [`transport`]: the TLS stacks of the driver (OpenSSL with hooks; rustls with `TimedVerifier`);
//! - [`servo`]: what the Servo patch calls;
//! - `ossl` (private): every `unsafe` OpenSSL call, with its SAFETY argument.

pub mod bench;
pub mod chain;
pub mod cli;
pub mod corpus;
pub mod error;
pub mod fuzzing;
pub mod handshake;
pub mod limbo;
pub mod methods;
pub mod mirror;
mod ossl;
pub mod pool;
pub mod procstat;
pub mod roots;
pub mod servo;
pub mod sites;
pub mod stages;
pub mod transport;
pub mod versions;

pub use certbench_analysis as analysis;
pub use error::Error;
pub use methods::Method;
