//! What the Servo patch (`patches/servo-net-0.7.0.patch`) calls from Servo's
//! `components/net/connector.rs`: the verifier Servo builds goes through [`verifier`], and
//! the connector creation is timed with [`Timer`] and [`connector_created`].
//!
//! Environment (read once per process):
//! - `CERTBENCH_METHOD`: `webpki`, `rustlsparallel`, `platform` (or any other certbench
//!   method built into this certbench-core; `openssl` needs its feature): certbench builds
//!   that verifier — from the Mozilla roots (`webpki-root-certs`) plus Servo's override
//!   certificates (`--certificate-path`) — and Servo uses it instead of its own. Unset:
//!   Servo's own verifier is kept.
//! - `CERTBENCH_SAMPLES`: the JSONL file samples are appended to (the driver's sample format,
//!   `source: servo`, `transport: rustls`). Default `certbench-servo.jsonl` when
//!   `CERTBENCH_METHOD` is set. With neither variable set, [`verifier`] returns Servo's
//!   verifier unchanged and nothing is written: the patch then changes no behaviour.
//!
//! Samples: one per certificate verification (site = the server name; stages
//! `total-verification`, `verify`, and the method's own `chain-creation`/`verify-hostname`
//! when certbench runs it), one when the verifier is built (site `(startup)`,
//! `roots-creation`), one per HTTP client built (site `(startup)`, `http-connector-creation`).
//! A failure to write is reported once on standard error; Servo goes on.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use certbench_analysis::schema::SCHEMA_VERSION;
use certbench_analysis::{Sample, SampleMeta, Source, Stage, Verdict};
use rustls::client::danger::ServerCertVerifier;
use rustls_pki_types::{CertificateDer, ServerName};

use crate::methods::Method;
use crate::roots::{RootSet, RootsSpec};
use crate::stages::{Recorder, Span};
use crate::timed::{TimedVerifier, VerificationSink};
use crate::verifier::Rejection;

/// The method name of Servo's own verifier in samples.
pub const SERVO_OWN: &str = "servo";

/// What the environment asks for.
#[derive(Clone, Debug)]
struct Config {
    method: Option<Method>,
    samples: Option<PathBuf>,
}

fn config() -> &'static Config {
    static C: OnceLock<Config> = OnceLock::new();
    C.get_or_init(|| {
        let method = std::env::var("CERTBENCH_METHOD")
            .ok()
            .filter(|m| !m.is_empty())
            .and_then(|m| match m.parse::<Method>() {
                Ok(m) => Some(m),
                Err(e) => {
                    log::error!("certbench: CERTBENCH_METHOD: {e}; keeping Servo's verifier");
                    None
                }
            });
        let samples = std::env::var_os("CERTBENCH_SAMPLES")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .or_else(|| method.map(|_| PathBuf::from("certbench-servo.jsonl")));
        Config { method, samples }
    })
}

/// The JSONL file, opened on first use.
struct Writer {
    path: PathBuf,
    out: Mutex<Option<BufWriter<File>>>,
    failed: std::sync::atomic::AtomicBool,
}

impl Writer {
    fn global() -> Option<&'static Writer> {
        static W: OnceLock<Option<Writer>> = OnceLock::new();
        W.get_or_init(|| {
            let path = config().samples.clone()?;
            let file = File::options().create(true).append(true).open(&path);
            let out = match file {
                Ok(f) => Some(BufWriter::new(f)),
                Err(e) => {
                    log::error!(
                        "certbench: {}: {e}; no samples will be written",
                        path.display()
                    );
                    None
                }
            };
            Some(Writer {
                path,
                out: Mutex::new(out),
                failed: Default::default(),
            })
        })
        .as_ref()
    }

    fn write(&self, sample: &Sample) {
        let line = serde_json::to_string(sample).expect("samples serialize");
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = out.as_mut()
            && let Err(e) = writeln!(w, "{line}").and_then(|_| w.flush())
            && !self.failed.swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            log::error!("certbench: writing {}: {e}", self.path.display());
        }
    }
}

fn sample(method: &str, site: String, rec: &Recorder, verdict: Verdict) -> Sample {
    Sample {
        schema: SCHEMA_VERSION,
        source: Source::Servo,
        method: method.to_owned(),
        config: certbench_analysis::schema::Config {
            transport: Some("rustls".to_owned()),
            hook: Some("timed-verifier".to_owned()),
            versions: [(
                "rustls".to_owned(),
                crate::versions::locked("rustls").to_owned(),
            )]
            .into(),
            ..Default::default()
        },
        site,
        port: None,
        path: None,
        chain: None,
        run: 0,
        warmup: false,
        stages: rec.to_map(),
        verdict,
        meta: SampleMeta::default(),
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

/// Writes one sample per verification.
#[derive(Debug)]
struct ServoSink {
    method: String,
}

impl VerificationSink for ServoSink {
    fn record(
        &self,
        server_name: &ServerName<'_>,
        stages: &Recorder,
        verdict: Result<(), Rejection>,
    ) {
        if let Some(w) = Writer::global() {
            let site = match server_name {
                ServerName::DnsName(d) => d.as_ref().to_owned(),
                other => format!("{other:?}"),
            };
            let verdict = match verdict {
                Ok(()) => Verdict::Ok,
                Err(rejection) => Verdict::Rejected(rejection.reason),
            };
            w.write(&sample(&self.method, site, stages, verdict));
        }
    }
}

/// The verifier Servo should use: with the environment unset, `servo_verifier` itself;
/// otherwise `servo_verifier` or the `CERTBENCH_METHOD` verifier (built from the Mozilla
/// roots plus `extra_roots`), inside a [`TimedVerifier`] writing samples. `started` is the
/// timer started where Servo began building its verifier (its roots creation).
pub fn verifier(
    servo_verifier: Arc<dyn ServerCertVerifier>,
    started: Timer,
    extra_roots: &[CertificateDer<'static>],
) -> Arc<dyn ServerCertVerifier> {
    let cfg = config();
    if cfg.method.is_none() && cfg.samples.is_none() {
        return servo_verifier;
    }
    let mut rec = Recorder::new();
    let (method, inner): (String, Arc<dyn ServerCertVerifier>) = match cfg.method {
        None => {
            rec.add(Stage::RootsCreation, started.0.elapsed_ns());
            (SERVO_OWN.to_owned(), servo_verifier)
        }
        Some(m) => {
            let verifier: Arc<dyn crate::methods::DynVerifier> = Arc::from(m.verifier());
            let span = rec.start();
            let built = RootSet::load(&RootsSpec::Mozilla).map(|mut roots| {
                roots.extend("servo", extra_roots.to_vec());
                verifier.build_roots(roots.certs())
            });
            rec.stop(Stage::RootsCreation, span);
            match built {
                Ok(Ok(roots)) => {
                    let sink = Arc::new(ServoSink {
                        method: m.name().to_owned(),
                    });
                    let timed = TimedVerifier::for_method(verifier, Arc::new(roots), sink);
                    if let Some(w) = Writer::global() {
                        w.write(&sample(m.name(), "(startup)".into(), &rec, Verdict::Ok));
                    }
                    return Arc::new(timed);
                }
                Ok(Err(e)) | Err(e) => {
                    // Fail safe for the browser: keep Servo's verifier, say why, record it.
                    log::error!("certbench: building `{m}`: {e}; keeping Servo's verifier");
                    if let Some(w) = Writer::global() {
                        w.write(&sample(
                            m.name(),
                            "(startup)".into(),
                            &rec,
                            Verdict::Error(format!("input: building {m}: {e}")),
                        ));
                    }
                    (SERVO_OWN.to_owned(), servo_verifier)
                }
            }
        }
    };
    if let Some(w) = Writer::global() {
        w.write(&sample(&method, "(startup)".into(), &rec, Verdict::Ok));
    }
    Arc::new(TimedVerifier::new(inner, Arc::new(ServoSink { method })))
}

/// Records `http-connector-creation` from `started` (called at the end of Servo's
/// `create_http_client`), when samples are being written.
pub fn connector_created(started: Timer) {
    let ns = started.0.elapsed_ns();
    if let Some(w) = Writer::global() {
        let mut rec = Recorder::new();
        rec.add(Stage::HttpConnectorCreation, ns);
        let method = config().method.map_or(SERVO_OWN, |m| m.name());
        w.write(&sample(method, "(startup)".into(), &rec, Verdict::Ok));
    }
}
