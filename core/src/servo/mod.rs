//! What the Servo patch (`patches/servo-net-0.7.0.patch`) calls from Servo's `net` crate.
//!
//! - `connector.rs`, `CertificateVerificationOverrideVerifier::new`: the verifier Servo chose
//!   goes through [`verifier`] (with a [`Timer`] started before Servo chose it); its
//!   `verify_server_cert` holds a [`Verification`] so that a certificate Servo accepts through
//!   its exception list is recorded as such;
//! - `connector.rs`, `InstrumentedConnector::call`: each connection is a [`Connection`]
//!   (`connect`: name resolution + TCP + proxy; `handshake`: TLS alone, resumed or not), and
//!   the connector's future is polled inside [`connecting`] so that the verification in its
//!   handshake names it; `ProxyConnector::call`'s stream future goes through [`stream_up`],
//!   which ends `connect`;
//! - `connector.rs`, `create_http_client`: [`connector_created`];
//! - `http_loader.rs`, `http_network_fetch`: the fetch runs [`within_page`] of the page load
//!   [`page_of_fetch`] names, so connections and verifications name their page load, and
//!   its response headers record `page-load` (the page so far).
//!
//! What is measured is read once per process, at the first [`verifier`] call, from Servo's
//! certbench prefs and the environment ([`settings`]); with nothing set every call
//! returns at once and Servo's behaviour is unchanged. A setting that cannot be honoured
//! (an unknown or unbuilt method, a method whose store cannot be built) is a [`Refusal`]
//! from [`verifier`], Servo's first call at start-up: the patch says it and exits, and
//! nothing is ever recorded under a name other than the one asked for. Samples go through
//! a writer thread (`writer`); each carries [`certbench_schema::servo::ServoMeta`]:
//! process, order, time since start, Servo's choice of verifier, connection and page load;
//! its `config.roots` names the trust set ([`trust`]).
//!
//! Modules: `settings` (the environment), `trust` (Servo's choice and trust sets), `scope`
//! (the thread's current connection and page), `page` (page loads, their fetches), `record` (the process's state, the samples),
//! `connection` (connections), `verification` (the verifiers handed to Servo),
//! `writer` (the writer thread).

mod connection;
mod page;
mod record;
mod scope;
pub mod settings;
pub mod trust;
mod verification;
mod writer;

use std::sync::Arc;

use certbench_schema::servo::ServoEvent;
use certbench_schema::{Stage, Verdict};
use rustls::client::danger::ServerCertVerifier;
use rustls_pki_types::CertificateDer;

pub use certbench_schema::servo::{ServoChoice as Choice, ServoException as Exception};
pub use connection::{Connection, connecting, stream_up};
pub use page::{Fetch, page_of_fetch, within_page};
pub use record::Refusal;
pub use scope::{Page, Scoped, StreamUp};
pub use settings::{Measured, Prefs, SERVO_OWN, Settings, SettingsError, Trust};
pub use verification::Verification;

use crate::stages::{Recorder, Span};
use record::{active, config, sample, state};

/// Waits until every sample taken so far is in the file (for tests, and before an exit).
pub fn flush() {
    if let Some(a) = active() {
        a.writer.flush();
    }
}

/// A started timer (monotonic clock).
pub struct Timer(Span);

impl Timer {
    /// Starts timing now.
    pub fn start() -> Timer {
        Timer(Recorder::new().start())
    }
}

/// The verifier Servo should use. With nothing measured, `servo_verifier` itself. Otherwise
/// `servo_verifier` (`CERTBENCH_METHOD` unset or `servo`) or the chosen method on the trust
/// set `CERTBENCH_TRUST` names, inside a [`crate::timed::TimedVerifier`]. `started` is the timer started
/// before Servo chose its verifier; `use_webpki_roots` and `overrides` are what Servo chose
/// from (`overrides`: `CACertificates::Override`); `prefs` Servo's certbench prefs (read on
/// the first call only). A [`Refusal`] when the settings cannot
/// be honoured: the patch then stops Servo.
pub fn verifier(
    servo_verifier: Arc<dyn ServerCertVerifier>,
    started: Timer,
    use_webpki_roots: bool,
    overrides: Option<&[CertificateDer<'static>]>,
    prefs: &Prefs,
) -> Result<Arc<dyn ServerCertVerifier>, Refusal> {
    let ns = started.0.elapsed_ns();
    let active = match state(prefs) {
        Err(e) => return Err(Refusal::Settings(e.clone())),
        Ok(None) => return Ok(servo_verifier),
        Ok(Some(active)) => active,
    };
    let choice = trust::choice(use_webpki_roots, overrides);
    let overrides = overrides.unwrap_or(&[]);
    let built = match active.settings.measured {
        Measured::Servo => Ok(verification::servo_own(
            servo_verifier,
            ns,
            choice,
            overrides,
        )),
        Measured::Method(m) => {
            verification::method(m, active.settings.trust, choice, overrides, &active.checks)
        }
    };
    let (verifier, roots, rec, cached) = built.map_err(|source| Refusal::Build {
        method: active.settings.method_name(),
        source,
    })?;
    if choice == Choice::WebpkiRoots
        && let Some(warning) = trust::webpki_roots_warning()
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| log::warn!("{warning}"));
    }
    let config = config(roots);
    *active.last.lock().unwrap_or_else(|e| e.into_inner()) = (config.clone(), Some(choice));
    let mut s = sample(
        active,
        config,
        "(startup)".into(),
        &rec,
        Verdict::Ok,
        ServoEvent::Verifier,
        Some(choice),
    );
    s.meta.roots_cached = cached;
    if let Some(meta) = s.meta.servo.as_mut() {
        meta.lock_file = Some(crate::versions::lock_file().to_owned());
    }
    active.writer.send(s);
    Ok(verifier)
}

/// Records `http-connector-creation` from `started` (called at the end of Servo's
/// `create_http_client`), when samples are being written.
pub fn connector_created(started: Timer) {
    let ns = started.0.elapsed_ns();
    if let Some(active) = active() {
        let mut rec = Recorder::new();
        rec.add(Stage::HttpConnectorCreation, ns);
        let config = (active.last.lock().unwrap_or_else(|e| e.into_inner()).0).clone();
        let s = sample(
            active,
            config,
            "(startup)".into(),
            &rec,
            Verdict::Ok,
            ServoEvent::Connector,
            None,
        );
        active.writer.send(s);
    }
}
