//! The site driver: real connections (or the loopback mirror), one fresh connection per
//! sample, methods interleaved, stages recorded where they happen.
//!
//! One sample = one method connecting to one site over one [`Transport`], through one
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
//! square ([`crate::run::schedule::permutation`]).
//!
//! With `--ct`, every method that checks Certificate Transparency
//! ([`crate::verifier::Capabilities::ct`]) checks the leaf's SCTs against the run's logs
//! inside the handshake (the `ct` stage, inside `total-verification`; the counts in the
//! sample's `meta.ct`, the list in its `config.ct`); the others (`openssl`, `gnutls`, …) verify
//! as without it.
//!
//! With `--revocation`, every method with a revocation mechanism
//! ([`crate::verifier::Capabilities::revocation`]) checks the path it verified inside the
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

mod plan;
mod sample;

pub use plan::{DrivePlan, PlanError, measure, measured_with};

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use certbench_analysis::Sample;
use certbench_core::ct::CtLogs;
use certbench_core::revocation::{Mechanism, RevocationData};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;

use crate::methods::{DynVerifier, Method};
use crate::mirror::local::ResolveMap;
use crate::pq::Profile;
use crate::roots::RootSet;
use crate::run::schedule::{period, permutation_in_block};
use crate::sites::Site;
use crate::tls::Stack;
use crate::transport::openssl::{HookMode, OpensslTransport};
use crate::transport::rustls::RustlsTransport;
use crate::transport::{Failure, Transport};

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
    pub transport: Stack,
    /// How webpki methods are hooked into OpenSSL (OpenSSL transport).
    pub hook: HookMode,
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
    /// `--ct`: the CT logs every method with a CT check checks the leaves' SCTs against (the
    /// `ct` stage); `None`: no CT check.
    pub ct: Option<Arc<CtLogs>>,
    /// `--revocation`: the data every method with a revocation mechanism checks against (the
    /// `revocation` stage); `None`: no check.
    pub revocation: Option<Arc<RevocationData>>,
}

/// What the mirror serves beyond today's chains, and how it is reached.
#[derive(Clone, Debug, Default)]
pub struct Served {
    /// With `--pq`: today's chains and each post-quantum profile's twins, each served by its
    /// own mirror, whose addresses `resolve` holds (filled in by [`measure`]). Empty: one
    /// chain per site, reached through [`DriverOptions::resolve`].
    pub profiles: Vec<Profile>,
    /// Per profile, `(host, port)` → its mirror's address.
    pub resolve: HashMap<Profile, ResolveMap>,
    /// The emulated link between client and mirror (`--link`), as its model describes it.
    pub link: Option<String>,
}

impl DriverOptions {
    /// Where to connect for `site` in a sample of `profile`, instead of resolving its name.
    pub fn address(&self, profile: Option<Profile>, host: &str, port: u16) -> Option<SocketAddr> {
        let key = (host.to_owned(), port);
        (profile.and_then(|p| self.served.resolve.get(&p)?.get(&key)))
            .or_else(|| self.resolve.get(&key))
            .copied()
    }
}

/// Identifies one sample of a run: (site id — host, port and path —, method, profile,
/// warm-up, run index). Two samples of one run never share a key (sites are deduplicated by
/// host, port and path), so a run can be resumed by key.
pub type SampleKey = (String, String, Option<String>, bool, u32);

/// The key of `sample`.
pub fn sample_key(sample: &Sample) -> SampleKey {
    (
        sample.site_id(),
        sample.method.clone(),
        sample.config.profile.as_ref().map(|p| p.to_string()),
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

/// Measures every site with every method, `warmup + runs` times, handing each sample to
/// `sink` as soon as it is taken.
pub async fn run(sites: &[Site], roots: &RootSet, opts: &DriverOptions, sink: impl FnMut(Sample)) {
    run_with(sites, roots, opts, &RunControl::default(), sink).await;
}

/// [`run`], steered by `control`; returns `false` when stopped before the end.
pub async fn run_with(
    sites: &[Site],
    roots: &RootSet,
    opts: &DriverOptions,
    control: &RunControl,
    sink: impl FnMut(Sample),
) -> bool {
    match opts.transport {
        Stack::Openssl => {
            let t = OpensslTransport {
                hook: opts.hook,
                resumption: opts.resumption,
                hook_openssl: false,
            };
            schedule(&t, sites, roots, opts, control, sink).await
        }
        Stack::Rustls => {
            let t = RustlsTransport {
                resumption: opts.resumption,
                hybrid_first: !opts.served.profiles.is_empty(),
            };
            schedule(&t, sites, roots, opts, control, sink).await
        }
    }
}

/// One method of a run (on one profile's chains with `--pq`): its verifier, its stores when
/// they are built once, and why it cannot verify that profile's chains, if it cannot.
struct Entry<T: Transport> {
    method: Method,
    profile: Option<Profile>,
    verifier: Arc<dyn DynVerifier>,
    /// The CT logs this method checks against (`--ct` and a method with a CT check).
    ct: Option<Arc<CtLogs>>,
    /// The revocation data and the mechanism this method checks it with (`--revocation` and a
    /// method with a mechanism).
    revocation: Option<(Arc<RevocationData>, Mechanism)>,
    cached: Option<Result<T::Stores, Failure>>,
    unsupported: Option<String>,
}

/// Everything a run's samples share.
struct Ctx<'a, T: Transport> {
    transport: &'a T,
    entries: &'a [Entry<T>],
    roots: &'a RootSet,
    opts: &'a DriverOptions,
    control: &'a RunControl,
}

async fn schedule<T: Transport>(
    transport: &T,
    sites: &[Site],
    roots: &RootSet,
    opts: &DriverOptions,
    control: &RunControl,
    mut sink: impl FnMut(Sample),
) -> bool {
    let profiles: Vec<Option<Profile>> = match opts.served.profiles.as_slice() {
        [] => vec![None],
        some => some.iter().copied().map(Some).collect(),
    };
    let entries: Vec<Entry<T>> = (opts.methods.iter())
        .flat_map(|&method| profiles.iter().map(move |&profile| (method, profile)))
        .map(|(method, profile)| {
            let verifier: Arc<dyn DynVerifier> = Arc::from(method.verifier());
            let ct = (opts.ct.clone()).filter(|_| verifier.capabilities().ct);
            let support = verifier.capabilities().revocation;
            let revocation =
                (opts.revocation.clone()).and_then(|d| Some((d.clone(), support.mechanism(&d)?)));
            let unsupported = profile
                .and_then(|p| p.unsupported_by(&verifier.capabilities()))
                .map(|u| u.to_string());
            let cached = (opts.cache_roots && unsupported.is_none())
                .then(|| transport.stores(method, verifier.as_ref(), roots));
            Entry {
                method,
                profile,
                verifier,
                ct,
                revocation,
                cached,
                unsupported,
            }
        })
        .collect();
    let ctx = Ctx {
        transport,
        entries: &entries,
        roots,
        opts,
        control,
    };
    let states: Vec<RefCell<HashMap<usize, T::Reuse>>> =
        sites.iter().map(|_| RefCell::default()).collect();
    let sink: RefCell<&mut dyn FnMut(Sample)> = RefCell::new(&mut sink);
    let concurrency = opts.concurrency.max(1);
    let mut runs_before = 0usize;
    for (warmup, runs) in [(true, opts.warmup), (false, opts.runs)] {
        for run in 0..runs {
            let order = runs_before + run as usize;
            let block = order / period(ctx.entries.len());
            let one = |c: usize| {
                ctx.site(
                    &sites[c],
                    warmup,
                    run,
                    (order + c, block),
                    &states[c],
                    &sink,
                )
            };
            // Up to `concurrency` sites at once (one sample at a time per site, its methods
            // in their rotating order); every site of this run before the next run.
            let mut pending = FuturesUnordered::new();
            let mut next = 0;
            let mut stopped = false;
            loop {
                while pending.len() < concurrency && next < sites.len() && !stopped {
                    pending.push(one(next));
                    next += 1;
                }
                match pending.next().await {
                    Some(finished) => stopped |= !finished,
                    None => break,
                }
            }
            if stopped {
                return false;
            }
        }
        runs_before += runs as usize;
    }
    true
}

impl<T: Transport> Ctx<'_, T> {
    /// One run of one site: each method once, in the order row `order` of block `block` picks
    /// ([`permutation_in_block`]), each sample
    /// handed to `sink` as soon as it is taken. `false` when stopped (before a sample).
    async fn site(
        &self,
        site: &Site,
        warmup: bool,
        run: u32,
        (order, block): (usize, usize),
        state: &RefCell<HashMap<usize, T::Reuse>>,
        sink: &RefCell<&mut dyn FnMut(Sample)>,
    ) -> bool {
        for k in permutation_in_block(self.entries.len(), order, block) {
            let entry = &self.entries[k];
            if self.control.stop.load(Ordering::SeqCst) {
                return false;
            }
            let profile = entry.profile.map(|p| p.name().to_owned());
            let key = (
                site.id(),
                entry.method.name().to_owned(),
                profile,
                warmup,
                run,
            );
            if self.control.done.contains(&key) {
                continue;
            }
            // Taken out of the site's state while the sample runs, put back after.
            let mut reuse = state.borrow_mut().remove(&k).unwrap_or_default();
            let mut sample = sample::measure(self, entry, site, &mut reuse).await;
            state.borrow_mut().insert(k, reuse);
            sample.run = run;
            sample.warmup = warmup;
            (sink.borrow_mut())(sample);
        }
        true
    }
}
