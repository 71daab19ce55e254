//! A driver run's schedule driven: the transport its stack makes ([`run_with`]), the entries
//! (one per method, and per profile with `--pq`), then the steps of [`crate::run::schedule`]:
//! warm-up runs, then measured runs; in each run every site (up to `concurrency` at once),
//! each site's methods in its row of the balanced Latin square.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use certbench_schema::Sample;
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;

use super::options::{DriverOptions, RunControl};
use super::sample::{self, Ctx, Entry};
use crate::pq::scenario::TwinSet;
use crate::run::schedule::{Step, steps};
use crate::sites::Site;
use crate::tls::compression;
use crate::transport::TlsStack;
use crate::transport::setup::{TransportSetup, with_transport};
use certbench_core::methods::DynVerifier;
use certbench_core::roots::RootSet;

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
    let setup = TransportSetup {
        stack: opts.transport,
        resumption: opts.resumption,
        hook: opts.hook,
        hook_openssl: false,
        hybrid_first: !opts.served.profiles.is_empty(),
        decompressor: (opts.served.compression.as_ref()).map(compression::decompressor),
        quic_client: opts
            .served
            .quic_client
            .unwrap_or(certbench_schema::wire::CHROME),
    };
    with_transport!(setup, |t| {
        schedule(&t, sites, roots, opts, control, sink).await
    })
}

/// The run's entries (each method's verifier, its checks, its stores when built once), then
/// every step of the schedule over the sites; `false` when stopped.
async fn schedule<T: TlsStack>(
    transport: &T,
    sites: &[Site],
    roots: &RootSet,
    opts: &DriverOptions,
    control: &RunControl,
    mut sink: impl FnMut(Sample),
) -> bool {
    let profiles: Vec<Option<TwinSet>> = match opts.served.profiles.as_slice() {
        [] => vec![None],
        some => some.iter().copied().map(Some).collect(),
    };
    let entries: Vec<Entry<T>> = (opts.methods.iter())
        .flat_map(|&method| profiles.iter().map(move |&profile| (method, profile)))
        .map(|(method, profile)| {
            let verifier: Arc<dyn DynVerifier> = Arc::from(method.verifier());
            let checks = opts.checks.for_method(&verifier.capabilities());
            let unsupported = profile
                .and_then(|p| crate::pq::unsupported_by(p.profile, &verifier.capabilities()))
                .map(|u| u.to_string());
            let cached = (opts.cache_roots && unsupported.is_none())
                .then(|| transport.stores(method, verifier.as_ref(), roots));
            Entry {
                method,
                profile,
                verifier,
                checks,
                cached,
                unsupported,
            }
        })
        .collect();
    // The revocation data, loaded before any sample, untimed: its load is start-up (measured
    // apart over fresh processes, `crate::startup`), which no connection of a browser waits
    // for.
    for e in &entries {
        if let Some((mechanism, data)) = &e.checks.revocation {
            data.preload(*mechanism, &mut certbench_core::stages::Recorder::new());
        }
    }
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
    for step in steps(ctx.entries.len(), opts.warmup, opts.runs) {
        let one = |c: usize| ctx.site(&sites[c], step, c, &states[c], &sink);
        // Up to `concurrency` sites at once (one sample at a time per site, its methods in
        // their rotating order); every site of this run before the next run.
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
    true
}

impl<T: TlsStack> Ctx<'_, T> {
    /// One run (`step`) of one site, the `item`th: each method once, in the order the step
    /// gives the site ([`Step::order`]), each sample handed to `sink` as soon as it is taken.
    /// `false` when stopped (before a sample).
    async fn site(
        &self,
        site: &Site,
        step: Step,
        item: usize,
        state: &RefCell<HashMap<usize, T::Reuse>>,
        sink: &RefCell<&mut dyn FnMut(Sample)>,
    ) -> bool {
        let Step { warmup, run, .. } = step;
        for k in step.order(item) {
            let entry = &self.entries[k];
            if self.control.stop.load(Ordering::SeqCst) {
                return false;
            }
            let profile = entry.profile.map(|p| p.key());
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
            let sample = sample::measure(self, entry, site, step, &mut reuse).await;
            state.borrow_mut().insert(k, reuse);
            (sink.borrow_mut())(sample);
        }
        true
    }
}
