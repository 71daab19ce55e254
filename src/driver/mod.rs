//! The site driver: real connections (or the loopback mirror), one fresh connection per
//! sample, methods interleaved, stages recorded where they happen.
//!
//! One sample = one method connecting to one site over one [`TlsStack`], through one
//! pipeline ([`sample::measure`]): `roots-creation` (the stores the transport needs for the
//! method), `http-connector-creation` (the transport's connector with the method inside),
//! `connection` (name resolution, TCP connect with TCP_NODELAY, TLS handshake, HTTP/1.1
//! request to the response head), and, measured inside the handshake by the transport's
//! hooks, `openssl-verify`, `chain-creation`, `verify`, `verify-hostname` and
//! `total-verification`; all inside `total`. Disjoint: roots-creation +
//! http-connector-creation + connection ≤ total.
//!
//! The schedule ([`run_with`]): warm-up runs, then measured runs; in each run every site
//! (up to `concurrency` at once), each site's methods in the order of a balanced Latin
//! square: the steps of [`crate::run::schedule::steps`], as `verify` takes them.
//!
//! With `--ct`, every method that checks Certificate Transparency
//! ([`certbench_core::verifier::Capabilities::ct`]) checks the leaf's SCTs against the run's logs
//! inside the handshake (the `ct` stage, inside `total-verification`; the counts in the
//! sample's `meta.ct`, the list in its `config.ct`); the others (`openssl`, `gnutls`, …) verify
//! as without it.
//!
//! With `--revocation`, every method with a revocation mechanism
//! ([`certbench_core::verifier::Capabilities::revocation`]) checks the path it verified inside the
//! handshake (the `revocation` stage, inside `total-verification`), with the OCSP response the
//! server stapled (both transports ask for one); the data's one load per process is made
//! before the method's first sample is timed (`revocation-load`, outside `total`, as
//! `library-init`); the outcome in the sample's `meta.revocation`, the mechanism and its data
//! in its `config.revocation`.
//!
//! With `--pq`, each method is measured on each site's chain of today and on its twin under
//! each profile, interleaved in the same square: an entry is a (method, profile) pair, and a
//! method that does not implement the profile's algorithm gives an `unsupported` sample
//! without connecting.

mod drive;
mod options;
mod plan;
mod sample;

pub use drive::{run, run_with};
pub use options::{DriverOptions, RunControl, SampleKey, Served, sample_key};
pub use plan::{DrivePlan, DrivePlanError, measure, spec};
