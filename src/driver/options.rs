//! What a driver run measures with ([`DriverOptions`], [`Served`]), how one of its samples is
//! named ([`SampleKey`]: unique within a run, so a run resumes by key), and how it is steered
//! from outside ([`RunControl`]).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use certbench_core::RunChecks;
use certbench_schema::Sample;

use crate::mirror::local::ResolveMap;
use crate::pq::scenario::{TwinSet, key};
use crate::tls::compression::CertCompression;
use certbench_core::methods::Method;
use certbench_schema::Hook;
use certbench_schema::Transport;

/// What to measure.
#[derive(Clone, Debug)]
pub struct DriverOptions {
    /// Methods, in the order of the first run.
    pub methods: Vec<Method>,
    /// Measured runs.
    pub runs: u32,
    /// Warm-up runs (recorded with `warmup: true`).
    pub warmup: u32,
    /// The TLS stack.
    pub transport: Transport,
    /// How webpki methods are hooked into OpenSSL (OpenSSL transport).
    pub hook: Hook,
    /// Bound on one sample's connection (resolution + connect + handshake + response head).
    pub timeout: Duration,
    /// Build each store once and reuse it.
    pub cache_roots: bool,
    /// `(host, port)` → address, used instead of DNS (`--resolve`, and every site with
    /// `--mirror`).
    pub resolve: HashMap<(String, u16), SocketAddr>,
    /// Offer each (site, method)'s previous TLS session for resumption (`--tls-resumption`);
    /// otherwise every sample is a full handshake.
    pub resumption: bool,
    /// Sites measured at once (`--concurrency`; 1 = one sample at a time, the default).
    pub concurrency: usize,
    /// What the mirror serves and how it is reached (`--pq`, `--link`).
    pub served: Served,
    /// What the methods check beyond the path (the `ct` and `revocation` stages): each
    /// browser's method as shipped, Servo's what `--ct` and `--revocation` add, none with
    /// `--path-only`; resolved per method ([`RunChecks::for_method`]).
    pub checks: RunChecks,
}

/// What the mirror serves beyond today's chains, and how it is reached.
#[derive(Clone, Debug, Default)]
pub struct Served {
    /// With `--pq`: today's chains and each post-quantum profile's twins under each scenario,
    /// each set served by its own mirror, whose addresses `resolve` holds (filled in by
    /// [`measure`]). Empty: one chain per site, reached through [`DriverOptions::resolve`].
    pub profiles: Vec<TwinSet>,
    /// Per set, `(host, port)` → its mirror's address.
    pub resolve: HashMap<TwinSet, ResolveMap>,
    /// The emulated link between client and mirror (`--link`), as its model describes it.
    pub link: Option<String>,
    /// The TCP window first flights are counted against (the link's, else the kernel's;
    /// `crate::link::kernel_window`), recorded in each sample that counted one.
    pub window: Option<certbench_schema::TcpWindow>,
    /// `--compress-certs`: the certificate compression the mirror's rustls servers compress
    /// with and the rustls client offers (the sample's `config.compression`); `None`: none
    /// offered.
    pub compression: Option<CertCompression>,
    /// `--transport quic`: whose Initials the client sends (the link's `h3` browser, else
    /// Chrome's).
    pub quic_client: Option<certbench_schema::wire::QuicClient>,
}

impl DriverOptions {
    /// Where to connect for `site` in a sample of the set `profile`, instead of resolving its
    /// name.
    pub fn address(&self, profile: Option<TwinSet>, host: &str, port: u16) -> Option<SocketAddr> {
        let key = (host.to_owned(), port);
        (profile.and_then(|p| self.served.resolve.get(&p)?.get(&key)))
            .or_else(|| self.resolve.get(&key))
            .copied()
    }
}

/// Identifies one sample of a run: (site id — host, port and path —, method, set — its
/// profile and scenario, [`crate::pq::scenario::key`] —, warm-up, run index). Two samples of one run never share a key (sites are deduplicated by
/// host, port and path), so a run can be resumed by key.
pub type SampleKey = (String, String, Option<String>, bool, u32);

/// The key of `sample`.
pub fn sample_key(sample: &Sample) -> SampleKey {
    (
        sample.site_id(),
        sample.method.clone(),
        (sample.config.profile.as_ref()).map(|p| key(p.as_str(), sample.config.scenario.as_ref())),
        sample.warmup,
        sample.run,
    )
}

/// Steering a run from outside: stop it between samples, and skip samples already taken.
#[derive(Clone, Debug, Default)]
pub struct RunControl {
    /// Set (e.g. on SIGINT) to stop before the next sample; the current one finishes.
    pub stop: Arc<AtomicBool>,
    /// Samples already taken (`--resume`): not measured again.
    pub done: HashSet<SampleKey>,
}
