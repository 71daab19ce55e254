//! The process's measuring state and the samples it writes: each is stamped with the
//! process, its order and time ([`sample`]), and the thread's connection and page load
//! ([`super::scope`]); it goes to the writer thread ([`super::writer`]).
//!
//! Invariants: the state is read once per process; when the settings cannot be honoured
//! nothing is measured and nothing written (the patch refuses to start, [`Refusal`]); the
//! first verification and the first connection of a process are the cold ones
//! ([`mark_cold`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use certbench_schema::servo::{ServoChoice, ServoEvent, ServoMeta};
use certbench_schema::{
    Config, Hook, SCHEMA_VERSION, Sample, SampleMeta, Source, Stage, Transport, TrustStore, Verdict,
};

use super::scope::{Current, current};
use super::settings::{Prefs, Settings, SettingsError};
use super::writer::{self, Writer};
use crate::checks::{Checks, Request, RunChecks};
use crate::ct::CtLogs;
use crate::revocation::{DataFiles, RevocationData};
use crate::stages::Recorder;

/// The process's measuring state.
pub(super) struct Active {
    pub(super) settings: Settings,
    pub(super) writer: &'static Writer,
    /// The configuration and choice of the verifier built last: what a connection in which
    /// nothing was verified (a resumed one) is recorded under. (Servo makes one choice per
    /// process: its clients share `ca_certificates` and the pref.)
    pub(super) last: Mutex<(Config, Option<ServoChoice>)>,
    /// Per connection, the configuration and choice of the verifier that verified in it.
    verified_in: Mutex<Vec<(u64, Config, ServoChoice)>>,
    /// The CT logs (`CERTBENCH_CT`) and revocation data (`CERTBENCH_REVOCATION`) a method
    /// checks against, read once per process.
    pub(super) checks: RunChecks,
}

/// What the process's methods check besides the path, as `CERTBENCH_CT` and
/// `CERTBENCH_REVOCATION` ask (see [`super::settings`]): resolved per method
/// ([`RunChecks::for_method`]).
fn load_checks(settings: &Settings) -> Result<RunChecks, SettingsError> {
    let logs = match &settings.ct {
        None => None,
        Some(path) => Some(Arc::new(CtLogs::load(path).map_err(|e| {
            SettingsError::Ct {
                path: path.display().to_string(),
                reason: e.to_string(),
            }
        })?)),
    };
    let data = (settings.revocation.as_ref()).map(|(_, dir)| {
        let files = DataFiles::in_dir(dir, dir.display().to_string());
        Arc::new(RevocationData::new(files))
    });
    Ok(RunChecks {
        request: Request {
            path_only: false,
            ct: logs.is_some(),
            revocation: settings.revocation.as_ref().map(|(m, _)| *m),
        },
        logs,
        data,
    })
}

/// `config` naming the checks `checks` (`ct`, `revocation`), as the driver's samples do.
pub(super) fn name_checks(checks: &Checks, config: &mut Config) {
    config.ct = checks.ct.as_ref().map(|l| l.label().into());
    config.revocation = (checks.revocation.as_ref()).map(|(m, d)| d.label(*m).into());
}

static STATE: OnceLock<Result<Option<Active>, SettingsError>> = OnceLock::new();

/// The process's settings, read on the first call (Servo's first `create_tls_config`) from
/// `prefs` and the environment: what is measured (`None`: nothing), or why nothing can be.
pub(super) fn state(prefs: &Prefs) -> &'static Result<Option<Active>, SettingsError> {
    STATE.get_or_init(|| {
        let settings = Settings::from_vars(|k| prefs.get(k).or_else(|| std::env::var(k).ok()))?;
        let Some(settings) = settings else {
            return Ok(None);
        };
        let checks = load_checks(&settings)?;
        Ok(Some(Active {
            writer: writer::global(&settings.samples),
            last: Mutex::new((config(None), None)),
            verified_in: Mutex::new(Vec::new()),
            checks,
            settings,
        }))
    })
}

/// The measuring state; `None` before Servo's first `create_tls_config`, when nothing is
/// measured, or when the settings cannot be honoured (then [`super::verifier`] refuses at
/// start, and nothing is ever recorded).
pub(super) fn active() -> Option<&'static Active> {
    STATE.get()?.as_ref().ok()?.as_ref()
}

/// Why a patched Servo must not start: said on standard error by the patch, which then exits
/// with status 2; nothing is recorded.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// A setting that cannot be honoured.
    #[error("certbench: {0}. {NOTHING}")]
    Settings(SettingsError),
    /// The method's store could not be built.
    #[error("certbench: CERTBENCH_METHOD={method}: {source}. {NOTHING}")]
    Build {
        /// The method.
        method: &'static str,
        /// Why.
        source: crate::error::Error,
    },
}

const NOTHING: &str = "Servo not started, nothing recorded (unset the certbench_* prefs and \
                       the CERTBENCH_* variables to run Servo unmeasured)";

/// The configuration every Servo sample is measured under, with the trust set `roots`.
pub(super) fn config(roots: Option<TrustStore>) -> Config {
    Config {
        transport: Some(Transport::Rustls.into()),
        hook: Some(Hook::TimedVerifier.into()),
        roots: roots.map(Into::into),
        // As locked by the build that linked this crate (a Servo build's own lock file).
        versions: [
            "rustls",
            "rustls-webpki",
            "rustls-platform-verifier",
            "webpki-roots",
        ]
        .into_iter()
        .map(|k| (k.to_owned(), crate::versions::locked(k).to_owned()))
        .collect(),
        ..Default::default()
    }
}

/// Notes that the verifier of `config` and `choice` verified in `connection`.
pub(super) fn verified_in(active: &Active, connection: u64, config: &Config, choice: ServoChoice) {
    let mut v = active.verified_in.lock().unwrap_or_else(|e| e.into_inner());
    if !v.iter().any(|(id, ..)| *id == connection) {
        v.push((connection, config.clone(), choice));
    }
}

/// A sample of the process, stamped with its order and time, and the thread's connection
/// and page load.
pub(super) fn sample(
    active: &Active,
    config: Config,
    site: String,
    stages: &Recorder,
    verdict: Verdict,
    event: ServoEvent,
    choice: Option<ServoChoice>,
) -> Sample {
    let (seq, since_start_ns) = active.writer.stamp();
    let current = current();
    Sample {
        schema: SCHEMA_VERSION,
        source: Source::Servo,
        method: active.settings.method_name().to_owned(),
        config,
        site,
        port: None,
        path: None,
        chain: None,
        run: 0,
        warmup: false,
        stages: stages.to_map(),
        verdict,
        meta: SampleMeta {
            ev: stages.ev(),
            servo: Some(ServoMeta {
                pid: std::process::id(),
                seq,
                since_start_ns,
                event,
                choice,
                connection: current.connection,
                page: current.page.as_ref().map(|p| p.id),
                page_url: current.page.as_ref().map(|p| p.url.clone()),
                exception: None,
                lock_file: None,
            }),
            ..SampleMeta::default()
        },
    }
}

/// Numbers the `n`th (from 0) sample of a kind: the first of the process is the cold one,
/// kept out of the warm statistics (`warmup`); the others are runs 0, 1, ….
pub(super) fn mark_cold(sample: &mut Sample, n: u64) {
    sample.warmup = n == 0;
    sample.run = n.saturating_sub(1) as u32;
}

/// One connection's sample ([`Connection`]): `outcome` is whether it resumed, or why it
/// failed (then no stage is reported as measured: the time it ran is `failed_after_ns`).
pub(super) fn record_connection(
    host: &str,
    port: Option<u16>,
    rec: &Recorder,
    outcome: Result<bool, String>,
    current: Current,
) {
    static CONNECTIONS: AtomicU64 = AtomicU64::new(0);
    let Some(active) = active() else { return };
    let verified = {
        let mut v = active.verified_in.lock().unwrap_or_else(|e| e.into_inner());
        let at = v
            .iter()
            .position(|(id, ..)| Some(*id) == current.connection);
        at.map(|i| v.swap_remove(i))
    };
    let (config, choice) = match verified {
        Some((_, config, choice)) => (config, Some(choice)),
        None => active
            .last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone(),
    };
    let (stages, verdict, resumed) = match &outcome {
        Ok(resumed) => (rec.clone(), Verdict::Ok, Some(*resumed)),
        Err(why) => (Recorder::new(), Verdict::Error(why.clone()), None),
    };
    let mut s = sample(
        active,
        config,
        host.to_owned(),
        &stages,
        verdict,
        ServoEvent::Connection,
        choice,
    );
    s.port = port;
    s.meta.resumed = resumed;
    if outcome.is_err() {
        s.meta.failed_stage = Some(if rec.get(Stage::Connect).is_some() {
            Stage::Handshake
        } else {
            Stage::Connect
        });
        s.meta.failed_after_ns = rec.get(Stage::Connection);
    }
    if let Some(meta) = s.meta.servo.as_mut() {
        meta.connection = current.connection;
        meta.page = current.page.as_ref().map(|p| p.id);
        meta.page_url = current.page.as_ref().map(|p| p.url.clone());
    }
    let n = CONNECTIONS.fetch_add(1, Ordering::Relaxed);
    mark_cold(&mut s, n);
    active.writer.send(s);
}
