//! certbench: what TLS certificate verification costs a browser, per site and per stage:
//! Servo's verifiers beside Chrome's, Firefox's and WebKitGTK's, with Certificate
//! Transparency, revocation and post-quantum chains.
//!
//! Data flows one way: measure → [`certbench_schema::Sample`]s → statistics → tables
//! (`certbench-analysis`). The verifiers, the stage recorder, roots, chains, the pool and
//! `TimedVerifier` live in `certbench-core`, which this crate names as such; it measures
//! with them:
//! - [`driver`]: the site driver — one sample pipeline over any [`transport::TlsStack`];
//! - [`transport`]: the TLS stacks (one file each: OpenSSL with its hooks, rustls);
//! - [`verify`]: `certbench verify`, verification alone on stored chains;
//! - [`sites`]: the sites file;
//! - [`mirror`]: the loopback mirror of real sites' chains;
//! - [`certs`]: every certificate certbench makes (clones, twins, test chains, SCTs, OCSP
//!   responses, CRLs);
//! - [`pq`]: the post-quantum profiles of those chains' twins (`--pq`);
//! - [`revocation`]: the revocation data `--revocation` checks against, generated offline;
//! - [`limbo`]: x509-limbo testcases through every method (`certbench limbo`);
//! - [`tls`]: the TLS vocabulary (stack, provider, version, key, suite) and the in-memory
//!   client–server pair;
//! - [`handshake`]: handshakes per second and memory per connection (`certbench handshake`);
//! - [`bulk`]: MB/s over an established session, in memory (`certbench bulk`);
//! - [`bench`]: what `cargo bench` and `certbench icount` measure;
//! - [`run`]: what every command that writes results shares (raw file, resume, schedule);
//! - [`cli`]: the command line (args → options → run).

pub mod bench;
pub mod bulk;
pub mod capture;
pub mod certs;
pub mod cli;
pub mod driver;
pub mod handshake;
pub mod limbo;
pub mod link;
pub mod mirror;
pub mod page;
pub mod pq;
pub mod procstat;
pub mod revocation;
pub mod run;
pub mod sites;
pub mod startup;
pub mod tls;
pub mod transport;
pub mod verify;
pub mod wire;
