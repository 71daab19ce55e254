//! Where a [`crate::timed::TimedVerifier`] puts what it timed ([`VerificationSink`]): each
//! `verify_server_cert` call with its stages and verdict, then the handshake's signature
//! (`certificate-verify`); and the driver's sink, which keeps the last ([`LastVerification`]).
//!
//! Invariant: a sink only records; what it is told never changes what the verifier returns
//! to rustls.

use std::fmt;
use std::sync::Mutex;

use certbench_schema::Stage;
use rustls_pki_types::ServerName;

use crate::stages::Recorder;
use crate::verifier::Rejection;

/// Where a [`crate::timed::TimedVerifier`] puts each verification it timed.
pub trait VerificationSink: Send + Sync + fmt::Debug {
    /// One `verify_server_cert` call: the name verified, the stages, and the verdict (on
    /// rejection, the error's text as [`crate::timed::reason`] gives it).
    fn record(
        &self,
        server_name: &ServerName<'_>,
        stages: &Recorder,
        verdict: Result<(), Rejection>,
    );

    /// The handshake's signature checked (`certificate-verify`) with the leaf whose chain the
    /// last [`record`](VerificationSink::record) was: how long, and its verdict. By default
    /// not kept.
    fn record_signature(&self, _ns: u64, _verdict: Result<(), Rejection>) {}
}

/// A sink that keeps the last verification (the driver: one connection per verifier).
#[derive(Debug, Default)]
pub struct LastVerification(Mutex<Option<(Recorder, Result<(), Rejection>)>>);

impl LastVerification {
    /// Takes the recorded verification, if there was one.
    pub fn take(&self) -> Option<(Recorder, Result<(), Rejection>)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl VerificationSink for LastVerification {
    fn record(&self, _: &ServerName<'_>, stages: &Recorder, verdict: Result<(), Rejection>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some((stages.clone(), verdict));
    }

    /// Adds `certificate-verify` to the verification kept; a bad signature on an accepted
    /// chain makes the verification's verdict that rejection (the handshake fails on it).
    fn record_signature(&self, ns: u64, verdict: Result<(), Rejection>) {
        let mut last = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((stages, chain)) = last.as_mut() {
            stages.add(Stage::CertificateVerify, ns);
            if chain.is_ok() {
                *chain = verdict;
            }
        }
    }
}
