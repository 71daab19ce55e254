//! The mirror's clones have their real chains' shape and verdicts; the fault hosts fail as
//! named; a second load reuses the cache.

use std::collections::BTreeMap;

use crate::common::{Fault, browser_reason, corpus, verdict, verdict_with};
use certbench::Method;
use certbench::chain::Chain;
use certbench::der::key_type;
use certbench::mirror::clone::CA_SUFFIX;
use certbench::mirror::{EXPIRED_HOST, MirrorSet, UNTRUSTED_HOST, WRONG_HOST};
use x509_parser::prelude::{FromDer, X509Certificate};

/// The binary's mirror set (generated once, in a new folder: see `common::mirror`).
fn set() -> &'static MirrorSet {
    let set = &crate::common::mirror().0;
    assert!(!set.from_cache, "a new folder has no cache");
    set
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn chain_of(certs: &[rustls_pki_types::CertificateDer<'static>]) -> Chain {
    Chain {
        leaf: certs[0].clone(),
        intermediates: certs[1..].to_vec(),
    }
}

/// (oid, critical) → value, leaving out the key identifiers, which are new by design.
fn extensions(x: &X509Certificate<'_>) -> BTreeMap<(String, bool), Vec<u8>> {
    x.extensions()
        .iter()
        .filter(|e| !["2.5.29.14", "2.5.29.35"].contains(&e.oid.to_id_string().as_str()))
        .map(|e| ((e.oid.to_id_string(), e.critical), e.value.to_vec()))
        .collect()
}

fn has(x: &X509Certificate<'_>, oid: &str) -> bool {
    x.extensions().iter().any(|e| e.oid.to_id_string() == oid)
}

#[test]
fn every_clone_has_its_real_chains_shape() {
    let corpus = corpus();
    let set = set();
    let mut checked = 0;
    for (host, served) in &set.hosts {
        let Some(original) = corpus.chains.iter().find(|c| c.id == served.source) else {
            assert_eq!(served.source, "synthetic", "{host}");
            continue;
        };
        let orig: Vec<_> = original.chain.iter().cloned().collect();
        assert_eq!(served.chain.len(), orig.len(), "{host}: depth");
        for (i, (o, c)) in orig.iter().zip(&served.chain).enumerate() {
            assert_eq!(
                key_type(o),
                key_type(c),
                "{host} cert {i}: key type and size"
            );
            let (_, ox) = X509Certificate::from_der(o).unwrap();
            let (_, cx) = X509Certificate::from_der(c).unwrap();
            assert_eq!(
                extensions(&ox),
                extensions(&cx),
                "{host} cert {i}: extensions"
            );
            for id in ["2.5.29.14", "2.5.29.35"] {
                assert_eq!(has(&ox, id), has(&cx, id), "{host} cert {i}: {id} present");
            }
            let span = |x: &X509Certificate<'_>| {
                x.validity().not_after.timestamp() - x.validity().not_before.timestamp()
            };
            assert_eq!(span(&ox), span(&cx), "{host} cert {i}: validity span");
            assert_eq!(ox.raw_serial(), cx.raw_serial(), "{host} cert {i}: serial");
            let o_cn = ox
                .subject()
                .iter_common_name()
                .next()
                .map(|a| a.as_str().unwrap().to_owned());
            let c_cn = cx
                .subject()
                .iter_common_name()
                .next()
                .map(|a| a.as_str().unwrap().to_owned());
            if i == 0 {
                assert_eq!(o_cn, c_cn, "{host}: leaf subject");
            } else {
                assert!(
                    c_cn.unwrap().ends_with(CA_SUFFIX),
                    "{host} cert {i}: CA renamed"
                );
            }
        }
        checked += 1;
    }
    // Every corpus host (32 distinct hosts among the 34 chains) has a clone.
    assert_eq!(checked, 32);
    for host in ["cnn.com", EXPIRED_HOST, WRONG_HOST, UNTRUSTED_HOST] {
        assert!(set.hosts.contains_key(host), "{host}");
    }
}

#[test]
fn clones_get_the_verdicts_their_originals_get() {
    let corpus = corpus();
    let set = set();
    for &method in crate::common::all_methods() {
        for (host, served) in &set.hosts {
            let Some(original) = corpus.chains.iter().find(|c| c.id == served.source) else {
                continue;
            };
            let want = verdict(method, original).is_ok();
            let v = method.verifier();
            let got = verdict_with(
                v.as_ref(),
                &set.roots,
                &chain_of(&served.chain),
                host,
                now(),
            );
            if method == Method::WebpkiLegacy && host == "irelease-dev.sanofi.com" {
                // The one known difference: the real leaf's RSA signature identifier has no
                // NULL parameters, which webpki 0.22 does not accept; the clone is signed by
                // rcgen with the standard identifier (with NULL), so webpki 0.22 accepts it.
                let sig_alg = |der: &[u8]| {
                    certbench::der::SignedParts::parse(der)
                        .unwrap()
                        .sig_alg
                        .len()
                };
                assert_eq!(sig_alg(&original.chain.leaf), 11, "OID only");
                assert_eq!(sig_alg(&served.chain[0]), 13, "OID + NULL");
                assert!(!want && got.is_ok());
                continue;
            }
            if method == Method::Gnutls && host == "aws.amazon.com" {
                // GnuTLS follows the chain as sent to its last certificate (the cross-signed
                // Starfield G2, issued by Starfield Class 2) and builds no other path: under the
                // original's one root (the self-signed Amazon Root CA 1) it finds no anchor;
                // the mirror trusts a clone of every root its chains end in.
                assert!(!want && got.is_ok(), "{got:?}");
                continue;
            }
            assert_eq!(got.is_ok(), want, "{method} {host}: {got:?}");
        }
        let v = method.verifier();
        let cnn = &set.hosts["cnn.com"];
        let ok = verdict_with(
            v.as_ref(),
            &set.roots,
            &chain_of(&cnn.chain),
            "www.cnn.com",
            now(),
        );
        assert_eq!(ok, Ok(()), "{method} cnn.com");
    }
}

#[test]
fn fault_hosts_are_rejected_for_their_reason() {
    let set = set();
    for &method in crate::common::all_methods() {
        let v = method.verifier();
        let run = |host: &str| {
            verdict_with(
                v.as_ref(),
                &set.roots,
                &chain_of(&set.hosts[host].chain),
                host,
                now(),
            )
            .unwrap_err()
        };
        let (expired, wrong, untrusted) = (run(EXPIRED_HOST), run(WRONG_HOST), run(UNTRUSTED_HOST));
        if crate::common::speaks_openssl(method) {
            assert!(expired.starts_with("certificate has expired"), "{expired}");
            assert!(
                wrong.to_lowercase().starts_with("hostname mismatch"),
                "{wrong}"
            );
            assert!(
                untrusted.starts_with("unable to get local issuer certificate"),
                "{untrusted}"
            );
        } else if let Some(want) = browser_reason(method.name(), Fault::Expired) {
            assert!(expired.starts_with(want), "{method}: {expired}");
            let want = browser_reason(method.name(), Fault::WrongHost).unwrap();
            assert!(wrong.starts_with(want), "{method}: {wrong}");
            let want = browser_reason(method.name(), Fault::Untrusted).unwrap();
            assert!(untrusted.starts_with(want), "{method}: {untrusted}");
        } else if crate::common::speaks_rustls(method) {
            assert!(expired.contains("certificate expired"), "{expired}");
            assert!(wrong.contains("certificate not valid for name"), "{wrong}");
            assert!(untrusted.contains("UnknownIssuer"), "{untrusted}");
        } else {
            assert!(expired.starts_with("CertExpired"), "{expired}");
            assert!(wrong.starts_with("CertNotValidForName"), "{wrong}");
            assert!(untrusted.starts_with("UnknownIssuer"), "{untrusted}");
        }
    }
}

#[test]
fn a_second_load_reuses_the_cached_clones() {
    let set = set();
    let again = MirrorSet::load_or_generate(&corpus(), &set.dir).unwrap();
    assert!(again.from_cache, "no key generation the second time");
    assert_eq!(again.hosts.len(), set.hosts.len());
    for (host, h) in &set.hosts {
        assert_eq!(
            again.hosts[host].chain, h.chain,
            "{host}: same certificates"
        );
        assert_eq!(again.hosts[host].key, h.key, "{host}: same key");
    }
    assert_eq!(again.roots, set.roots);
}

#[test]
fn a_damaged_cache_is_made_anew_not_an_error() {
    let set = set();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("m");
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(&set.dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, copy.join(p.file_name().unwrap())).unwrap();
        }
    }
    // index.json and roots.pem are there, but no host folder: the cache cannot be used.
    let again = MirrorSet::load_or_generate(&corpus(), &copy).unwrap();
    assert!(!again.from_cache);
    assert_eq!(again.hosts.len(), set.hosts.len());
}
