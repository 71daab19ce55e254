//! One sample, the same pipeline over every transport: stores → connector → connection →
//! the verifier's stages → the sample.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use certbench_core::Checks;
use certbench_core::methods::openssl::OpenSslVerifier;
use certbench_schema::Config;
use certbench_schema::{Sample, SampleMeta, Source, Stage, Verdict};

use super::options::{DriverOptions, RunControl};
use crate::pq::scenario::TwinSet;
use crate::run::schedule::Step;
use crate::run::{self, sample::Subject};
use crate::sites::Site;
use crate::transport::{ConnInfo, Failure, Open, TlsStack, Verification, http_get};
use certbench_core::methods::{DynVerifier, Method};
use certbench_core::roots::RootSet;
use certbench_core::stages::Recorder;

/// One method of a run (on one profile's chains with `--pq`): its verifier, its stores when
/// they are built once, and why it cannot verify that profile's chains, if it cannot.
pub(super) struct Entry<T: TlsStack> {
    pub(super) method: Method,
    /// The set of chains (profile and scenario) with `--pq`.
    pub(super) profile: Option<TwinSet>,
    pub(super) verifier: Arc<dyn DynVerifier>,
    /// What this method checks beyond the path (resolved once for the run).
    pub(super) checks: Checks,
    pub(super) cached: Option<Result<T::Stores, Failure>>,
    pub(super) unsupported: Option<String>,
}

/// Everything a run's samples share.
pub(super) struct Ctx<'a, T: TlsStack> {
    pub(super) transport: &'a T,
    pub(super) entries: &'a [Entry<T>],
    pub(super) roots: &'a RootSet,
    pub(super) opts: &'a DriverOptions,
    pub(super) control: &'a RunControl,
}

/// Measures `entry`'s method on `site` once in `step`, over `ctx`'s transport. `reuse` is what this
/// (site, method) kept from its previous sample.
pub(super) async fn measure<T: TlsStack>(
    ctx: &Ctx<'_, T>,
    entry: &Entry<T>,
    site: &Site,
    step: Step,
    reuse: &mut T::Reuse,
) -> Sample {
    let (t, opts) = (ctx.transport, ctx.opts);
    let time = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let reusing = t.reuses_stores(reuse);
    let mut sample = blank_sample(ctx, entry, site, step, reusing, time);
    if let Some(why) = &entry.unsupported {
        // The method does not implement the profile's algorithm: nothing to connect for.
        sample.verdict = Verdict::Unsupported(why.clone());
        return sample;
    }
    let mut rec = Recorder::new();
    start_up(entry, &mut rec);
    let total = rec.start();

    let stores = match stores(ctx, entry, reusing, &mut rec) {
        Ok(s) => s,
        Err(failure) => return failed(sample, rec, Stage::RootsCreation, failure),
    };

    let connector = connector(ctx, entry, (site, time), stores, reuse, &mut rec);
    let connector = match connector {
        Ok(c) => c,
        Err(failure) => return failed(sample, rec, Stage::HttpConnectorCreation, failure),
    };

    // connection: resolution, TCP, TLS (verification inside), HTTP to the response head.
    let span = rec.start();
    let result = connect(t, &connector, site, opts).await;
    rec.stop(Stage::Connection, span);
    // The sample ends here; what follows is bookkeeping, not part of `total`.
    rec.stop(Stage::Total, total);

    let verification = t.verification(&connector);
    record_verification(&verification, &mut rec, &mut sample.meta);
    match result {
        Ok((open, info)) => {
            // The rest of the response and the close are not part of the sample's total; they
            // are bounded like the connection. A page-sized response's rest is `response`.
            if let Ok(Some(ns)) = tokio::time::timeout(opts.timeout, open.close()).await
                && site.path.starts_with("/bytes/")
            {
                rec.add(Stage::Response, ns);
            }
            t.keep(&connector, reuse);
            record_connection(info, opts, &mut sample.meta);
            sample.stages = rec.to_map();
            sample
        }
        Err(failure) => {
            t.keep(&connector, reuse);
            let failure = connection_failure(verification.rejection, failure);
            failed(sample, rec, Stage::Connection, failure)
        }
    }
}

/// The sample before anything is measured: its configuration, subject and step, and the
/// facts known up front (roots reused or built once, the validation time).
fn blank_sample<T: TlsStack>(
    ctx: &Ctx<'_, T>,
    entry: &Entry<T>,
    site: &Site,
    step: Step,
    reusing: bool,
    time: u64,
) -> Sample {
    let mut sample = run::sample::sample(
        Source::Driver,
        entry.method,
        config(ctx, entry),
        Subject::Site(site),
        (step.warmup, step.run),
    );
    sample.meta = SampleMeta {
        roots_cached: reusing || entry.cached.is_some(),
        validation_time: Some(time),
        ..SampleMeta::default()
    };
    sample
}

/// The library's start-up (once per process), apart from `roots-creation` and `total`,
/// and what it makes of the CT logs (once per list), apart from any stage; then the
/// revocation data's load (once per process), apart from `total` too: the sample that loads
/// it is the cold one.
fn start_up<T: TlsStack>(entry: &Entry<T>, rec: &mut Recorder) {
    entry.verifier.start_up();
    if let Some(logs) = &entry.checks.ct {
        entry.verifier.prepare_ct(logs);
    }
    if let Some(ns) = entry.verifier.take_start_up_ns() {
        rec.add(Stage::LibraryInit, ns);
    }
    if let Some((mechanism, data)) = &entry.checks.revocation {
        data.preload(*mechanism, rec);
    }
}

/// `roots-creation`: the stores built now, or 0 when built once for the run or kept by the
/// transport (`None`: the transport reuses its own).
fn stores<T: TlsStack>(
    ctx: &Ctx<'_, T>,
    entry: &Entry<T>,
    reusing: bool,
    rec: &mut Recorder,
) -> Result<Option<T::Stores>, Failure> {
    if reusing {
        rec.add(Stage::RootsCreation, 0);
        Ok(None)
    } else if let Some(cached) = &entry.cached {
        rec.add(Stage::RootsCreation, 0);
        cached.clone().map(Some)
    } else {
        rec.time(Stage::RootsCreation, || {
            ctx.transport
                .stores(entry.method, entry.verifier.as_ref(), ctx.roots)
                .map(Some)
        })
    }
}

/// `http-connector-creation`: the transport's connector for `entry`'s method to `site`
/// (at the address the run resolves it to, looked up before the stage), verifying at `time`.
fn connector<T: TlsStack>(
    ctx: &Ctx<'_, T>,
    entry: &Entry<T>,
    (site, time): (&Site, u64),
    stores: Option<T::Stores>,
    reuse: &mut T::Reuse,
    rec: &mut Recorder,
) -> Result<T::Connector, Failure> {
    let addr = ctx.opts.address(entry.profile, &site.host, site.port);
    rec.time(Stage::HttpConnectorCreation, || {
        ctx.transport.connector(
            entry.method,
            &entry.verifier,
            stores,
            site,
            addr,
            time,
            &entry.checks,
            reuse,
        )
    })
}

/// The connection, bounded by the run's timeout: resolution, TCP, TLS (verification
/// inside), HTTP to the response head.
async fn connect<T: TlsStack>(
    t: &T,
    connector: &T::Connector,
    site: &Site,
    opts: &DriverOptions,
) -> Result<(Open<T::Io>, ConnInfo), Failure> {
    let connection = async {
        let (io, info) = t.handshake(connector, site).await?;
        Ok::<_, Failure>((http_get(io, site).await?, info))
    };
    match tokio::time::timeout(opts.timeout, connection).await {
        Ok(r) => r,
        Err(_) => Err(Failure::Timeout(opts.timeout)),
    }
}

/// The verifier's stages inside the handshake, and what it found (EV, CT, revocation).
fn record_verification(verification: &Verification, rec: &mut Recorder, meta: &mut SampleMeta) {
    for (stage, ns) in verification.stages.to_map() {
        rec.add(stage, ns);
    }
    meta.ev = verification.stages.ev();
    meta.ct = verification.stages.ct();
    meta.revocation = verification.stages.revocation().cloned().map(|mut r| {
        // Loaded before the handshake, in this sample: its check was the cold one.
        r.cold |= rec.get(Stage::RevocationLoad).is_some();
        r
    });
}

/// A finished connection's facts into the sample.
fn record_connection(info: ConnInfo, opts: &DriverOptions, meta: &mut SampleMeta) {
    meta.tls_version = info.tls_version;
    meta.cipher = info.cipher;
    meta.chain_len = info.chain_len;
    meta.key_types = info.key_types;
    meta.chain_bytes = info.chain_bytes;
    meta.cert_message_bytes = info.cert_message_bytes;
    meta.first_flight_bytes = info.first_flight_bytes;
    meta.first_flight_handshake_bytes = info.first_flight_handshake_bytes;
    meta.tcp_window = info.first_flight_bytes.and(opts.served.window);
    meta.compressed_cert_message_bytes = info.compressed_cert_message_bytes;
    meta.quic = info.quic;
    meta.link_counts = info.link_counts;
    if opts.resumption {
        meta.resumed = Some(info.resumed);
    }
}

/// Why a connection failed: a timeout stays one; a handshake that failed because the
/// verifier said no is its rejection.
fn connection_failure(rejection: Option<String>, failure: Failure) -> Failure {
    match (rejection, failure) {
        (_, timeout @ Failure::Timeout(_)) => timeout,
        (Some(reason), _) => Failure::Rejected(reason),
        (None, failure) => failure,
    }
}

/// The configuration of `entry`'s samples over `ctx`'s transport.
fn config<T: TlsStack>(ctx: &Ctx<'_, T>, entry: &Entry<T>) -> Config {
    let (t, opts) = (ctx.transport, ctx.opts);
    let library = entry.verifier.library();
    let (stack, stack_version) = t.library();
    Config {
        transport: Some(t.kind().into()),
        hook: t.hook(entry.method).map(Into::into),
        resumption: opts.resumption,
        cache_roots: opts.cache_roots,
        roots: Some(ctx.roots.trust_store().into()),
        openssl_policy: t
            .openssl_verifies(entry.method)
            .then(|| OpenSslVerifier::default().policy().into()),
        versions: [
            (library.name.to_owned(), library.version),
            (stack.to_owned(), stack_version),
        ]
        .into(),
        extra_intermediates: 0,
        profile: entry.profile.map(|p| p.profile.into()),
        scenario: entry.profile.and_then(|p| p.scenario),
        link: opts.served.link.clone().map(Into::into),
        ct: entry.checks.ct.as_deref().map(|logs| logs.label().into()),
        revocation: (entry.checks.revocation.as_ref()).map(|(m, data)| data.label(*m).into()),
        // Offered by the rustls client only (`--compress-certs` needs that transport).
        compression: (t.kind() == certbench_schema::Transport::Rustls)
            .then_some(opts.served.compression)
            .flatten()
            .map(Into::into),
    }
}

/// A sample that failed in `stage`: the verdict and the kind of failure as data; the stage
/// that did not complete, and `total`, leave the measured stages (into `failed_stage` /
/// `failed_after_ns`). Stages that completed stay (a rejection's verification stages: the
/// verifier ran and answered no).
fn failed(mut sample: Sample, rec: Recorder, stage: Stage, failure: Failure) -> Sample {
    sample.meta.error_kind = Some(failure.kind());
    sample.verdict = match failure {
        Failure::Rejected(reason) => Verdict::Rejected(reason),
        other => Verdict::Error(other.to_string()),
    };
    sample.stages = rec.to_map();
    sample.meta.failed_stage = Some(stage);
    sample.meta.failed_after_ns = sample.stages.remove(&stage);
    sample.stages.remove(&Stage::Total);
    sample
}
