//! `certbench page`: what verification costs a page load, with a browser's cache above the
//! verifier, its TLS sessions and its connections.
//!
//! The model of one load of a page: the document's connection first (the navigation), then,
//! once its response head is in, every subresource host at once, each with its connections
//! (`host*N` in the pages file, N ≤ 6 as browsers allow per host) opened `concurrency` at a
//! time. Every connection is a TCP connection (TCP_NODELAY), a TLS handshake and one HTTP/1.1
//! GET to the response head, closed after, as the driver makes them ([`crate::transport`]),
//! each on a task of its own: on a multi-threaded runtime parallel connections verify in
//! parallel, and an identical verification in flight is waited for (coalesced).
//!
//! One *browser* per method and cache policy keeps, across the loads of a run, what a browser
//! keeps across page loads: its trust store (built before the first load, not counted in any
//! load), its verification cache ([`CachingVerifier`]: none, Chrome's, or Firefox's), with
//! `--ct` its CT log set (its own: with Firefox's model it holds the browser's SCT signature
//! cache) and, with `resumption`, its TLS client state per host (rustls: one `ClientConfig`
//! and its session store; OpenSSL: the last session). Load 1 is therefore cold (empty caches,
//! no session) and later loads warm.
//!
//! With `--ct` the caches differ in what a warm load still checks: Chrome keeps whole
//! verification results, CT's outcome with them, so a hit checks no SCT; Firefox keeps no
//! result and verifies every chain, but keeps each SCT signature it verified
//! ([`CachePolicy::signature_cache`]), so a warm load checks only SCTs it has not seen. The
//! `firefox` shim keeps that cache; no other method has one, so under `--verify-cache firefox`
//! they verify as under `none` (and `chrome`'s shim keeps no SCT cache either). The shim's
//! certificate-signature cache stays per verification: only the SCT cache lives across
//! connections here.
//! With `--revocation` each browser loads its own copy of the run's revocation data once, as
//! a browser process loads its CRLSet or filter: the load (`revocation-load`) lands in its
//! first verification, in load 1. Chrome's cache keeps whole results, the CRLSet's outcome
//! with them (`CachingCertVerifier` over `CertVerifyProc`), so a hit checks no revocation;
//! Firefox's policy verifies every chain and checks CRLite each time. Per load: the checks
//! run, their time, and the data's load where this load paid it.
//!
//! Loads are measured in turn: for each load number, every page, its methods in the order of
//! a balanced Latin square (the steps of [`crate::run::schedule::loads`]). A warm-up load per page and
//! method, with a browser of its own that is then thrown away, comes first.
//!
//! Per load ([`PageLoad`]): connections, how many resumed, the verifications the handshakes
//! asked for, how many the verifier ran, cache hits and coalesced waits, with `--ct` the SCT
//! signatures the verifier checked (from the cache's counters, exact whatever the
//! concurrency), the time handshakes spent in verification and the connections' time, and
//! the load's wall time.
//!
//! Over OpenSSL every method, `openssl` included, goes in through the replace hook
//! (`SSL_CTX_set_cert_verify_callback`), so that the same cache sits above each.

mod load;
mod pages;
mod plan;

pub use load::{PageOptions, StoreFailure, run};
pub use pages::{MAX_PER_HOST, Page, parse_pages};
pub use plan::{PagePlan, measure};
