//! One browser per method and cache policy ([`Browser`]), a page's load by it (the document's
//! connection, then every subresource host at once, each connection on a task of its own),
//! and the run of every load in the schedule's order ([`run`]); see the module above for the
//! model.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use certbench_core::ct::CtLogs;
use certbench_core::revocation::RevocationData;
use certbench_schema::records::page::PageLoad;

use super::pages::Page;
use crate::run::schedule::loads;
use crate::sites::Site;
use crate::transport::setup::{TransportSetup, with_transport};
use crate::transport::{Failure, TlsStack, http_get};
use certbench_core::cache::{CachePolicy, CachingVerifier};
use certbench_core::methods::{DynVerifier, Method};
use certbench_core::roots::RootSet;
use certbench_core::{Checks, RunChecks};
use certbench_schema::Hook;
use certbench_schema::Transport;

/// What to measure.
#[derive(Clone, Debug)]
pub struct PageOptions {
    /// Methods, in the order of the first load.
    pub methods: Vec<Method>,
    /// Measured loads per page and method.
    pub loads: u32,
    /// Warm-up loads per page and method, each with a browser of its own (thrown away).
    pub warmup: u32,
    /// The caches above every method: one browser per method and cache, side by side.
    pub caches: Vec<CachePolicy>,
    /// What the methods check beyond the path, resolved per method; each browser gets a
    /// set of its own of the CT logs, and a copy of its own of the revocation data, loaded
    /// once in that browser.
    pub checks: RunChecks,
    /// Offer TLS sessions again.
    pub resumption: bool,
    /// Connections opened to one host at once (1–6).
    pub concurrency: usize,
    /// The TLS stack.
    pub transport: Transport,
    /// Bound on one connection.
    pub timeout: Duration,
    /// `(host, port)` → address instead of DNS (the mirror, `--resolve`).
    pub resolve: HashMap<(String, u16), SocketAddr>,
}

/// What a browser keeps across loads for one method.
struct Browser<T: TlsStack> {
    method: Method,
    cache: Arc<CachingVerifier>,
    verifier: Arc<dyn DynVerifier>,
    /// What this browser's method checks, with a CT log set of its own (with Firefox's model
    /// it keeps the browser's SCT signature cache, cold at its first load) and revocation
    /// data of its own (loaded on its first check, once per browser).
    checks: Checks,
    stores: Result<T::Stores, Failure>,
    /// Per site id: the TLS client state kept between connections.
    reuse: Mutex<HashMap<String, T::Reuse>>,
}

impl<T: TlsStack> Browser<T> {
    fn new(
        t: &T,
        method: Method,
        roots: &RootSet,
        policy: CachePolicy,
        checks: &RunChecks,
    ) -> Browser<T> {
        let cache = Arc::new(CachingVerifier::new(Arc::from(method.verifier()), policy));
        let verifier: Arc<dyn DynVerifier> = cache.clone();
        let shared = checks.for_method(&verifier.capabilities());
        let checks = Checks {
            ct: shared.ct.map(|logs| {
                let own = CtLogs::new(logs.logs().to_vec(), &logs.origin)
                    .with_signature_cache(policy.signature_cache());
                Arc::new(own)
            }),
            revocation: (shared.revocation)
                .map(|(m, d)| (m, Arc::new(RevocationData::new(d.files().clone())))),
        };
        let stores = t.stores(method, verifier.as_ref(), roots);
        // What the method makes of the logs (a shim's log set, its SCT cache empty), now,
        // before any load, as the store.
        if let Some(logs) = &checks.ct {
            verifier.prepare_ct(logs);
        }
        Browser {
            method,
            cache,
            verifier,
            checks,
            stores,
            reuse: Mutex::default(),
        }
    }

    fn reuse(&self) -> std::sync::MutexGuard<'_, HashMap<String, T::Reuse>> {
        self.reuse.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One connection's outcome.
struct Conn {
    ns: u64,
    resumed: bool,
    error: Option<String>,
}

/// One connection, on a task of its own (as a browser's connections proceed in parallel:
/// two identical verifications can then be in flight at once, and the second coalesced).
async fn connect<T: TlsStack + Send + 'static>(
    t: Arc<T>,
    b: Arc<Browser<T>>,
    site: Site,
    opts: Arc<PageOptions>,
) -> Conn {
    let started = Instant::now();
    let result = async {
        let stores = b.stores.clone()?;
        let addr = opts.resolve.get(&(site.host.clone(), site.port)).copied();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let connector = {
            let mut reuse = b.reuse();
            let r = reuse.entry(site.id()).or_default();
            let v = &b.verifier;
            t.connector(b.method, v, Some(stores), &site, addr, now, &b.checks, r)?
        };
        let (io, info) = tokio::time::timeout(opts.timeout, async {
            let (io, info) = t.handshake(&connector, &site).await?;
            let open = http_get(io, &site).await?;
            Ok::<_, Failure>((open, info))
        })
        .await
        .map_err(|_| Failure::Timeout(opts.timeout))??;
        let ns = started.elapsed().as_nanos() as u64;
        io.close().await;
        t.keep(&connector, b.reuse().entry(site.id()).or_default());
        let rejection = t.verification(&connector).rejection;
        Ok::<_, Failure>((ns, info.resumed, rejection))
    }
    .await;
    match result {
        Ok((ns, resumed, None)) => Conn {
            ns,
            resumed,
            error: None,
        },
        Ok((ns, resumed, Some(r))) => Conn {
            ns,
            resumed,
            error: Some(format!("{}: {r}", site.authority())),
        },
        Err(e) => Conn {
            ns: started.elapsed().as_nanos() as u64,
            resumed: false,
            error: Some(format!("{}: {e}", site.authority())),
        },
    }
}

/// `count` connections to `site`, `concurrency` at a time, each on its own task.
async fn host<T: TlsStack + Send + 'static>(
    t: Arc<T>,
    b: Arc<Browser<T>>,
    site: Site,
    count: usize,
    opts: Arc<PageOptions>,
) -> Vec<Conn> {
    let mut done = Vec::with_capacity(count);
    let mut left = count;
    while left > 0 {
        let wave = left.min(opts.concurrency.max(1));
        let tasks: Vec<_> = (0..wave)
            .map(|_| tokio::spawn(connect(t.clone(), b.clone(), site.clone(), opts.clone())))
            .collect();
        for task in tasks {
            done.push(joined(task.await, &site));
        }
        left -= wave;
    }
    done
}

/// A connection task's outcome; a task that panicked is a failed connection, kept as such.
fn joined(r: Result<Conn, tokio::task::JoinError>, site: &Site) -> Conn {
    r.unwrap_or_else(|e| Conn {
        ns: 0,
        resumed: false,
        error: Some(format!(
            "{}: the connection's task failed: {e}",
            site.authority()
        )),
    })
}

/// One load of `page` by browser `b`.
async fn load<T: TlsStack + Send + 'static>(
    t: &Arc<T>,
    b: &Arc<Browser<T>>,
    page: &Page,
    opts: &Arc<PageOptions>,
    n: u32,
) -> PageLoad {
    let before = b.cache.counts();
    let started = Instant::now();
    let document = tokio::spawn(connect(
        t.clone(),
        b.clone(),
        page.document.clone(),
        opts.clone(),
    ));
    let mut conns = vec![joined(document.await, &page.document)];
    // Every subresource host at once.
    let hosts: Vec<_> = page
        .subresources
        .iter()
        .map(|(site, count)| {
            let task = host(t.clone(), b.clone(), site.clone(), *count, opts.clone());
            (site, tokio::spawn(task))
        })
        .collect();
    for (site, task) in hosts {
        match task.await {
            Ok(done) => conns.extend(done),
            Err(e) => conns.push(joined(Err(e), site)),
        }
    }
    let wall_ns = started.elapsed().as_nanos() as u64;
    let c = b.cache.counts().since(&before);
    PageLoad {
        page: page.document.host.clone(),
        line: page.line,
        method: b.method.name().to_owned(),
        transport: t.kind().into(),
        verify_cache: b.cache.policy().name().to_owned(),
        ct: b.checks.ct.as_deref().map(CtLogs::label),
        revocation: (b.checks.revocation.as_ref()).map(|(m, d)| d.label(*m)),
        resumption: opts.resumption,
        load: n,
        connections: conns.len() as u32,
        resumed: conns.iter().filter(|c| c.resumed).count() as u32,
        failed: conns.iter().filter(|c| c.error.is_some()).count() as u32,
        errors: conns.iter().filter_map(|c| c.error.clone()).collect(),
        verifications: c.calls,
        ran: c.ran,
        hits: c.hits,
        coalesced: c.coalesced,
        verification_ns: c.call_ns,
        verifier_ns: c.ran_ns,
        sct_checked: c.sct_checked,
        revocation_checked: c.revocation_checked,
        revocation_ns: c.revocation_ns,
        revocation_load_ns: c.revocation_load_ns,
        connection_ns: conns.iter().map(|c| c.ns).sum(),
        wall_ns,
    }
}

/// A browser's failure to build its store, as the reason its loads failed.
pub struct StoreFailure {
    /// The method.
    pub method: Method,
    /// Why.
    pub reason: String,
}

/// Runs every load, handing each [`PageLoad`] to `sink` as it finishes. Returns the methods
/// whose trust store could not be built (their loads are not run). Connections run on
/// tasks of the current (multi-threaded) tokio runtime.
pub async fn run(
    pages: &[Page],
    roots: &RootSet,
    opts: &PageOptions,
    sink: impl FnMut(PageLoad),
) -> Vec<StoreFailure> {
    // Over OpenSSL every method, `openssl` included, goes in through the replace hook, so
    // that the same cache sits above each.
    let setup = TransportSetup {
        stack: opts.transport,
        resumption: opts.resumption,
        hook: Hook::Replace,
        hook_openssl: true,
        hybrid_first: false,
        decompressor: None,
        quic_client: certbench_schema::wire::CHROME,
    };
    with_transport!(setup, |t| {
        run_on(Arc::new(t), pages, roots, opts, sink).await
    })
}

async fn run_on<T: TlsStack + Send + 'static>(
    t: Arc<T>,
    pages: &[Page],
    roots: &RootSet,
    opts: &PageOptions,
    mut sink: impl FnMut(PageLoad),
) -> Vec<StoreFailure> {
    let opts = Arc::new(opts.clone());
    let ct = &opts.checks;
    let browsers: Vec<Arc<Browser<T>>> = (opts.caches.iter())
        .flat_map(|&policy| opts.methods.iter().map(move |&m| (m, policy)))
        .map(|(m, policy)| Arc::new(Browser::new(t.as_ref(), m, roots, policy, ct)))
        .collect();
    let failures: Vec<StoreFailure> = browsers
        .iter()
        .filter_map(|b| {
            b.stores.as_ref().err().map(|e| StoreFailure {
                method: b.method,
                reason: e.to_string(),
            })
        })
        .collect();
    let usable: Vec<&Arc<Browser<T>>> = browsers.iter().filter(|b| b.stores.is_ok()).collect();
    for step in loads(usable.len(), pages.len(), opts.warmup, opts.loads) {
        for (p, page) in pages.iter().enumerate() {
            for k in step.order(p) {
                if step.warmup {
                    // Each warm-up load with a browser of its own, thrown away after.
                    for _ in 0..opts.warmup {
                        let (method, policy) = (usable[k].method, usable[k].cache.policy());
                        let fresh = Arc::new(Browser::new(t.as_ref(), method, roots, policy, ct));
                        load(&t, &fresh, page, &opts, 0).await;
                    }
                } else {
                    sink(load(&t, usable[k], page, &opts, step.run + 1).await);
                }
            }
        }
    }
    failures
}
