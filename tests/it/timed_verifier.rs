//! `TimedVerifier` changes no verdict: over rustls' `WebPkiServerVerifier` it returns what the
//! bare verifier returns (same Ok, same error) on every corpus chain and on every limbo sample
//! testcase a server verifier can be asked, delegates every other trait method, and records
//! stages > 0 for each call.

use std::sync::Arc;

use certbench::limbo::LimboFile;
use certbench::transport::rustls::{LastVerification, TimedVerifier};
use certbench_core::methods::Method;
use certbench_core::methods::webpki_server::provider;
use certbench_schema::Stage;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};

fn bare(roots: &[CertificateDer<'static>]) -> Arc<dyn ServerCertVerifier> {
    let mut store = rustls::RootCertStore::empty();
    store.add_parsable_certificates(roots.iter().cloned());
    WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider())
        .build()
        .unwrap()
}

/// Both verdicts on one input, as text (`Ok` or the error's `Display`), and the stages.
fn both(
    inner: Arc<dyn ServerCertVerifier>,
    ee: &CertificateDer<'_>,
    inter: &[CertificateDer<'_>],
    name: &ServerName<'_>,
    now: UnixTime,
) -> (String, String, certbench_core::stages::Recorder) {
    let text = |r: Result<_, rustls::Error>| r.map_or_else(|e| e.to_string(), |_| "Ok".into());
    let last = Arc::new(LastVerification::default());
    let timed = TimedVerifier::new(inner.clone(), last.clone());
    let b = text(inner.verify_server_cert(ee, inter, name, &[], now));
    let t = text(timed.verify_server_cert(ee, inter, name, &[], now));
    // The other trait methods answer exactly as the inner verifier's.
    assert_eq!(
        timed.supported_verify_schemes(),
        inner.supported_verify_schemes()
    );
    assert_eq!(
        timed.requires_raw_public_keys(),
        inner.requires_raw_public_keys()
    );
    assert_eq!(
        timed.root_hint_subjects().map(<[_]>::len),
        inner.root_hint_subjects().map(<[_]>::len)
    );
    let (stages, verdict) = last.take().expect("the sink got the call");
    assert_eq!(verdict.is_ok(), t == "Ok");
    (b, t, stages)
}

#[test]
fn timed_webpki_gives_the_bare_verdict_on_every_corpus_chain() {
    let corpus = crate::common::corpus();
    let n = corpus.chains.len();
    let mut rejected = 0;
    for (i, c) in corpus.chains.iter().enumerate() {
        let name = ServerName::try_from(c.host.as_str()).unwrap();
        let now = UnixTime::since_unix_epoch(std::time::Duration::from_secs(c.validation_time));
        // Its own root, and another chain's (mostly a rejection: UnknownIssuer).
        let other = &corpus.chains[(i + 7) % n].roots;
        for verifier in [bare(&c.roots), bare(other)] {
            let (b, t, stages) = both(verifier, &c.chain.leaf, &c.chain.intermediates, &name, now);
            assert_eq!(b, t, "{}", c.id);
            rejected += usize::from(t != "Ok");
            assert!(stages.get(Stage::Verify).unwrap() > 0, "{}", c.id);
            assert!(
                stages.get(Stage::TotalVerification).unwrap() >= stages.get(Stage::Verify).unwrap()
            );
        }
    }
    assert!(
        rejected >= 20,
        "both verdicts are compared ({rejected} rejections)"
    );
}

#[test]
fn timed_webpki_gives_the_bare_verdict_on_the_limbo_sample() {
    let file = LimboFile::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus/x509-limbo/limbo-sample.json"),
    )
    .unwrap();
    let caps = Method::Webpki.verifier().capabilities();
    let (mut compared, mut accepted) = (0, 0);
    for case in file.cases.iter().flatten() {
        let target = case.target();
        if case.unsupported.is_some() || caps.missing(&target).is_some() {
            continue;
        }
        let name = match target.peer {
            Some(certbench_core::verifier::PeerName::Dns(d)) => ServerName::try_from(d).unwrap(),
            Some(certbench_core::verifier::PeerName::Ip(ip)) => ServerName::IpAddress(ip.into()),
            _ => unreachable!("the capabilities allow DNS and IP names only"),
        };
        let now = UnixTime::since_unix_epoch(std::time::Duration::from_secs(target.time_or_now()));
        let (b, t, stages) = both(
            bare(&case.roots),
            &case.chain.leaf,
            &case.chain.intermediates,
            &name,
            now,
        );
        assert_eq!(b, t, "{}", case.id);
        assert!(stages.get(Stage::TotalVerification).unwrap() > 0);
        compared += 1;
        accepted += usize::from(t == "Ok");
    }
    assert_eq!(compared, 452, "every testcase the webpki method runs");
    assert!(
        accepted > 50 && accepted < compared - 50,
        "{accepted} accepted"
    );
}

#[test]
fn timed_certbench_methods_record_their_own_stages() {
    let corpus = crate::common::corpus();
    let c = crate::common::chain(&corpus, "www.washingtonpost.com__rustls-bench");
    let name = ServerName::try_from(c.host.as_str()).unwrap();
    let now = UnixTime::since_unix_epoch(std::time::Duration::from_secs(c.validation_time));
    for &m in crate::common::all_methods() {
        let v: Arc<dyn certbench_core::methods::DynVerifier> = Arc::from(m.verifier());
        let roots = Arc::new(v.build_roots(&corpus.roots()).unwrap());
        let last = Arc::new(LastVerification::default());
        let timed =
            TimedVerifier::for_method(v, roots, &certbench_core::Checks::none(), last.clone());
        let r = timed.verify_server_cert(&c.chain.leaf, &c.chain.intermediates, &name, &[], now);
        assert!(r.is_ok(), "{m}: {r:?}");
        let (stages, verdict) = last.take().unwrap();
        assert_eq!(verdict, Ok(()));
        let opaque = matches!(m, Method::Webpki | Method::Platform);
        assert_eq!(stages.get(Stage::ChainCreation).is_some(), !opaque, "{m}");
        assert!(stages.get(Stage::Verify).unwrap() > 0, "{m}");
        // A wrong name is the inner verifier's rejection, returned as a rustls error.
        let wrong = ServerName::try_from("not-this-site.example").unwrap();
        let e = timed
            .verify_server_cert(&c.chain.leaf, &c.chain.intermediates, &wrong, &[], now)
            .unwrap_err();
        assert!(
            matches!(e, rustls::Error::InvalidCertificate(_)),
            "{m}: {e:?}"
        );
    }
}
