//! [`CachingVerifier`] under each policy: hits, expiry, coalescing, panics.

use super::*;
use crate::methods::Method;
use std::sync::atomic::AtomicBool;

/// A verifier that accepts a chain whose leaf's first byte is even, sleeping `delay`
/// first; it panics on a leaf of one byte 0xFF.
struct Slow {
    delay: Duration,
    inside: AtomicU64,
    overlapped: AtomicBool,
}

impl DynVerifier for Slow {
    fn capabilities(&self) -> Capabilities {
        Capabilities::default()
    }
    fn library(&self) -> Library {
        Method::RustlsSerial.verifier().library()
    }
    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<AnyRoots, Error> {
        Method::RustlsSerial.verifier().build_roots(roots)
    }
    fn rustls_verifier(&self, _: &AnyRoots) -> Option<Arc<dyn ServerCertVerifier>> {
        None
    }
    fn verify(
        &self,
        _: &AnyRoots,
        chain: &Chain,
        _: Target<'_>,
        _: &mut Recorder,
    ) -> Result<(), Rejection> {
        if self.inside.fetch_add(1, Ordering::SeqCst) > 0 {
            self.overlapped.store(true, Ordering::SeqCst);
        }
        std::thread::sleep(self.delay);
        self.inside.fetch_sub(1, Ordering::SeqCst);
        match chain.leaf.as_ref() {
            [0xFF] => panic!("boom"),
            [b, ..] if b % 2 == 0 => Ok(()),
            _ => Err(Rejection::new("odd")),
        }
    }
}

fn slow(ms: u64) -> Arc<Slow> {
    Arc::new(Slow {
        delay: Duration::from_millis(ms),
        inside: AtomicU64::new(0),
        overlapped: AtomicBool::new(false),
    })
}

fn chain(b: u8) -> Chain {
    Chain {
        leaf: CertificateDer::from(vec![b]),
        intermediates: Vec::new(),
    }
}

fn roots() -> AnyRoots {
    Method::RustlsSerial
        .verifier()
        .build_roots(webpki_root_certs::TLS_SERVER_ROOT_CERTS)
        .unwrap()
}

fn call(v: &CachingVerifier, roots: &AnyRoots, b: u8, host: &str) -> Outcome {
    v.verify(
        roots,
        &chain(b),
        Target::server(host, 0),
        &mut Recorder::new(),
    )
}

#[test]
fn chrome_caches_results_by_chain_host_and_flags_and_none_runs_every_time() {
    let roots = roots();
    let chrome = CachingVerifier::new(slow(0), CachePolicy::Chrome);
    assert_eq!(call(&chrome, &roots, 2, "a.test"), Ok(()));
    assert_eq!(call(&chrome, &roots, 2, "a.test"), Ok(()));
    // A rejection is cached too, and given back as it was.
    assert_eq!(
        call(&chrome, &roots, 3, "a.test").unwrap_err().reason,
        "odd"
    );
    assert_eq!(
        call(&chrome, &roots, 3, "a.test").unwrap_err().reason,
        "odd"
    );
    // Another host is another key.
    assert_eq!(call(&chrome, &roots, 2, "b.test"), Ok(()));
    let c = chrome.counts();
    assert_eq!((c.calls, c.ran, c.hits, c.coalesced), (5, 3, 2, 0));

    let none = CachingVerifier::new(slow(0), CachePolicy::None);
    for _ in 0..3 {
        assert_eq!(call(&none, &roots, 2, "a.test"), Ok(()));
    }
    let c = none.counts();
    assert_eq!((c.calls, c.ran, c.hits), (3, 3, 0));
    assert!(c.call_ns >= c.ran_ns);
}

#[test]
fn firefox_runs_every_verification_and_the_sct_signatures_checked_are_counted() {
    /// Accepts, noting a CT check of two SCT signatures.
    struct Ct;
    impl DynVerifier for Ct {
        fn capabilities(&self) -> Capabilities {
            Capabilities::default()
        }
        fn library(&self) -> Library {
            Method::RustlsSerial.verifier().library()
        }
        fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<AnyRoots, Error> {
            Method::RustlsSerial.verifier().build_roots(roots)
        }
        fn rustls_verifier(&self, _: &AnyRoots) -> Option<Arc<dyn ServerCertVerifier>> {
            None
        }
        fn verify(
            &self,
            _: &AnyRoots,
            _: &Chain,
            _: Target<'_>,
            rec: &mut Recorder,
        ) -> Result<(), Rejection> {
            rec.note_ct(crate::ct::CtOutcome {
                scts: 2,
                checked: 2,
                valid: 2,
                compliant: true,
                ..Default::default()
            });
            Ok(())
        }
    }
    let roots = roots();
    for (policy, ran, checked) in [(CachePolicy::Chrome, 1, 2), (CachePolicy::Firefox, 3, 6)] {
        let v = CachingVerifier::new(Arc::new(Ct), policy);
        for _ in 0..3 {
            call(&v, &roots, 2, "a.test").unwrap();
        }
        let c = v.counts();
        assert_eq!(
            (c.calls, c.ran, c.sct_checked),
            (3, ran, checked),
            "{policy:?}"
        );
    }
    assert!(CachePolicy::Firefox.signature_cache());
    assert!(!CachePolicy::Chrome.signature_cache() && !CachePolicy::None.signature_cache());
}

#[test]
fn results_expire_and_a_full_cache_drops_the_oldest() {
    let roots = roots();
    let v =
        CachingVerifier::with_limits(slow(0), CachePolicy::Chrome, 2, Duration::from_millis(50));
    call(&v, &roots, 2, "a").unwrap();
    call(&v, &roots, 4, "a").unwrap();
    call(&v, &roots, 6, "a").unwrap(); // evicts 2
    call(&v, &roots, 4, "a").unwrap(); // hit
    call(&v, &roots, 2, "a").unwrap(); // ran again
    assert_eq!((v.counts().ran, v.counts().hits), (4, 1));
    std::thread::sleep(Duration::from_millis(60));
    call(&v, &roots, 2, "a").unwrap(); // expired: ran again
    assert_eq!((v.counts().ran, v.counts().hits), (5, 1));
}

#[test]
fn identical_verifications_in_flight_run_once_and_others_wait() {
    let roots = Arc::new(roots());
    let inner = slow(100);
    let v = Arc::new(CachingVerifier::new(inner.clone(), CachePolicy::Chrome));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (v, roots) = (v.clone(), roots.clone());
            std::thread::spawn(move || call(&v, &roots, 2, "a.test"))
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), Ok(()));
    }
    let c = v.counts();
    assert_eq!((c.calls, c.ran, c.hits + c.coalesced), (4, 1, 3));
    assert!(c.coalesced >= 1, "{c:?}");
    assert!(!inner.overlapped.load(Ordering::SeqCst));
}

#[test]
fn a_panicking_verifier_is_a_rejection_for_the_leader_and_those_waiting() {
    let roots = Arc::new(roots());
    let v = Arc::new(CachingVerifier::new(slow(50), CachePolicy::Chrome));
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let (v, roots) = (v.clone(), roots.clone());
            std::thread::spawn(move || call(&v, &roots, 0xFF, "a.test"))
        })
        .collect();
    for t in threads {
        let r = t.join().expect("no panic crosses the cache");
        assert!(r.unwrap_err().reason.contains("panicked"));
    }
    assert_eq!(v.counts().ran, 1);
}
