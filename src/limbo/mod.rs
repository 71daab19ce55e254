//! x509-limbo (C2SP/x509-limbo, schema version 1) through certbench's methods: the
//! differential check that swapping verifiers changes the cost and not the verdict — or shows
//! exactly where verdicts differ.
//!
//! - [`testcase`]: a limbo file's testcases as [`Case`]s (what each field maps to);
//! - [`run`]: every method over every testcase, results in the limbo result format;
//! - [`files`]: upstream harnesses' result files read, certbench's written;
//! - [`report`]: what a run measured, gathered for the analysis to tally;
//! - certbench's own ML-DSA testcases (RFC 9881), written as a limbo file, are made with the
//!   other certificates: [`crate::certs::mldsa`].
//!
//! The real-chain corpus is also a limbo file: `corpus/real-chains/real-chains.limbo.json`.
//!
//! Tallies and comparisons of results live in the analysis crate's `limbo`.

pub mod files;
pub mod report;
pub mod run;
pub mod testcase;

pub use files::{FilesError, load_upstream, write_results};
pub use report::{Timings, measured};
pub use run::{MethodRun, evaluate, expectations, harness_name};
pub use testcase::{BadCase, Case, LimboFile};
