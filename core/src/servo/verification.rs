//! The verifiers the patch hands Servo (Servo's own, timed; or a certbench method on Servo's
//! trust set), the sink that turns each verification into a sample, and [`Verification`],
//! which lets Servo's override verifier say that it accepted a rejected certificate.
//!
//! Invariants: Servo's own verifier is wrapped as Servo chose it — never rebuilt, never
//! replaced; the cached platform verifier is recognised by identity, so its store build is
//! counted once per process (`roots_cached` on every later call); a method replacing it is
//! built once per process too, while on Servo's other choices, which Servo rebuilds at
//! every call, the method is rebuilt at every call as well. A verification taken inside a
//! [`Verification`] is written when that guard ends, with the exception Servo applied.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use certbench_schema::servo::{ServoChoice, ServoEvent, ServoException};
use certbench_schema::{Config, Sample, Stage, TrustStore, Verdict};
use rustls::client::danger::ServerCertVerifier;
use rustls_pki_types::{CertificateDer, ServerName};

use super::record::{Active, active, config, mark_cold, name_checks, sample, verified_in};
use super::settings::Trust;
use super::trust;
use crate::checks::RunChecks;
use crate::error::Error;
use crate::methods::Method;
use crate::stages::Recorder;
use crate::timed::{TimedVerifier, VerificationSink};
use crate::verifier::Rejection;

/// A verifier for Servo, the description of its trust set, its `roots-creation`, and
/// whether its store was reused.
pub(super) type Built = (
    Arc<dyn ServerCertVerifier>,
    Option<TrustStore>,
    Recorder,
    bool,
);

/// Servo's own verifier, timed: `ns` is what Servo spent choosing and building it.
pub(super) fn servo_own(
    servo_verifier: Arc<dyn ServerCertVerifier>,
    ns: u64,
    choice: ServoChoice,
    overrides: &[CertificateDer<'static>],
) -> Built {
    static SEEN: Mutex<Vec<usize>> = Mutex::new(Vec::new());
    let address = Arc::as_ptr(&servo_verifier) as *const () as usize;
    let cached = choice == ServoChoice::PlatformCached && {
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        let before = seen.contains(&address);
        seen.push(address);
        before
    };
    let roots = trust::servo_trust_store(choice, overrides).ok();
    let mut rec = Recorder::new();
    rec.add(Stage::RootsCreation, if cached { 0 } else { ns });
    let sink = ServoSink {
        config: config(roots.clone()),
        choice,
    };
    let timed = TimedVerifier::new(servo_verifier, Arc::new(sink));
    (Arc::new(timed), roots, rec, cached)
}

/// `method` in place of Servo's verifier, on the trust set `trust` names.
pub(super) fn method(
    method: Method,
    trust: Trust,
    choice: ServoChoice,
    overrides: &[CertificateDer<'static>],
    checks: &RunChecks,
) -> Result<Built, Error> {
    static ONCE: Mutex<Option<(Arc<dyn ServerCertVerifier>, TrustStore)>> = Mutex::new(None);
    let cacheable = choice == ServoChoice::PlatformCached;
    if cacheable && let Some((v, roots)) = ONCE.lock().unwrap_or_else(|e| e.into_inner()).clone() {
        let mut rec = Recorder::new();
        rec.add(Stage::RootsCreation, 0);
        return Ok((v, Some(roots), rec, true));
    }
    let (certs, described) = trust::for_method(method, choice, trust, overrides)?;
    let verifier: Arc<dyn crate::methods::DynVerifier> = Arc::from(method.verifier());
    let mut rec = Recorder::new();
    // The library's start-up (once per process), apart from `roots-creation`.
    verifier.start_up();
    if let Some(ns) = verifier.take_start_up_ns() {
        rec.add(Stage::LibraryInit, ns);
    }
    let roots = rec.time(Stage::RootsCreation, || verifier.build_roots(&certs))?;
    let checks = checks.for_method(&verifier.capabilities());
    let mut config = config(Some(described.clone()));
    name_checks(&checks, &mut config);
    let sink = ServoSink { config, choice };
    // CT and revocation (`CERTBENCH_CT`, `CERTBENCH_REVOCATION`) where the method has them.
    let timed: Arc<dyn ServerCertVerifier> = Arc::new(TimedVerifier::for_method(
        verifier,
        Arc::new(roots),
        &checks,
        Arc::new(sink),
    ));
    if cacheable {
        *ONCE.lock().unwrap_or_else(|e| e.into_inner()) = Some((timed.clone(), described.clone()));
    }
    Ok((timed, Some(described), rec, false))
}

/// Writes one sample per verification.
#[derive(Debug)]
struct ServoSink {
    config: Config,
    choice: ServoChoice,
}

impl VerificationSink for ServoSink {
    fn record(
        &self,
        server_name: &ServerName<'_>,
        stages: &Recorder,
        verdict: Result<(), Rejection>,
    ) {
        static VERIFICATIONS: AtomicU64 = AtomicU64::new(0);
        let Some(active) = active() else { return };
        let site = match server_name {
            ServerName::DnsName(d) => d.as_ref().to_owned(),
            ServerName::IpAddress(ip) => std::net::IpAddr::from(*ip).to_string(),
            other => format!("{other:?}"),
        };
        let verdict = match verdict {
            Ok(()) => Verdict::Ok,
            Err(rejection) => Verdict::Rejected(rejection.reason),
        };
        let mut s = sample(
            active,
            self.config.clone(),
            site,
            stages,
            verdict,
            ServoEvent::Verification,
            Some(self.choice),
        );
        // The connection's port: the verification's site is the connection's (host:port).
        s.port = super::scope::current().timing.and_then(|t| t.port);
        mark_cold(&mut s, VERIFICATIONS.fetch_add(1, Ordering::Relaxed));
        if let Some(id) = s.meta.servo.as_ref().and_then(|m| m.connection) {
            verified_in(active, id, &self.config, self.choice);
        }
        deliver(active, s);
    }
}

thread_local! {
    /// Open [`Verification`] guards on this thread, and the sample taken inside them.
    static PENDING: RefCell<(u32, Option<Sample>)> = const { RefCell::new((0, None)) };
}

fn deliver(active: &Active, sample: Sample) {
    let earlier = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        if p.0 == 0 {
            return Some(sample);
        }
        p.1.replace(sample)
    });
    if let Some(s) = earlier {
        active.writer.send(s);
    }
}

/// Held by Servo's override verifier for the length of its `verify_server_cert`: the
/// verification its main verifier makes meanwhile is written when the guard ends, marked
/// with the exception Servo accepted it under, if any.
#[must_use = "the verification is written when the guard ends"]
pub struct Verification(());

impl Verification {
    /// Begins Servo's `verify_server_cert`.
    pub fn begin() -> Verification {
        PENDING.with(|p| p.borrow_mut().0 += 1);
        Verification(())
    }

    /// Servo accepted the certificate its verifier rejected, through `how`.
    pub fn accepted(&self, how: ServoException) {
        PENDING.with(|p| {
            if let Some(meta) = (p.borrow_mut().1.as_mut()).and_then(|s| s.meta.servo.as_mut()) {
                meta.exception = Some(how);
            }
        });
    }
}

impl Drop for Verification {
    fn drop(&mut self) {
        let taken = PENDING.with(|p| {
            let mut p = p.borrow_mut();
            p.0 -= 1;
            p.1.take()
        });
        if let (Some(s), Some(active)) = (taken, active()) {
            active.writer.send(s);
        }
    }
}
