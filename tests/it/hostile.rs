//! Hostile chains: every method returns a verdict (no panic, no hang) within a stated bound,
//! and `rustlsparallel` keeps `rustlsserial`'s verdict on every mutation.
//!
//! The bound is about termination, not speed: a verification that takes longer than
//! `BOUND` is treated as a hang. (A chain of 0 certificates cannot be expressed as a
//! `Chain`; it is an input error when loading, tested in `tests/cli.rs`, and "no peer
//! certificate" in the handshake hooks.)

use std::time::{Duration, Instant};

use crate::common::{assert_overlapped_since, chain, corpus, force_overlap, verdict_with};
use certbench_core::chain::Chain;
use certbench_core::methods::Method;
use rustls_pki_types::CertificateDer;

const BOUND: Duration = Duration::from_secs(5);

/// Runs every method on `ch`; returns the serial and parallel verdicts.
fn all_methods(
    roots: &[CertificateDer<'static>],
    ch: &Chain,
    host: &str,
    time: u64,
) -> Vec<Result<(), String>> {
    crate::common::all_methods()
        .iter()
        .map(|m| {
            let v = m.verifier();
            let start = Instant::now();
            let r = verdict_with(v.as_ref(), roots, ch, host, time);
            assert!(start.elapsed() < BOUND, "{m}: no verdict within {BOUND:?}");
            r
        })
        .collect()
}

fn parallel_matches_serial(verdicts: &[Result<(), String>], what: &str) {
    let at = |m| {
        crate::common::all_methods()
            .iter()
            .position(|x| *x == m)
            .unwrap()
    };
    assert_eq!(
        verdicts[at(Method::RustlsSerial)],
        verdicts[at(Method::RustlsParallel)],
        "{what}"
    );
}

#[test]
fn long_chains_get_a_verdict() {
    let before = force_overlap();
    let corpus = corpus();
    let c = chain(&corpus, "reddit.com__rustls-bench");
    // Every certificate of the corpus, cycled, as "intermediates".
    let pool: Vec<CertificateDer<'static>> = corpus
        .chains
        .iter()
        .flat_map(|c| c.chain.intermediates.iter().cloned())
        .collect();
    for n in [1usize, 50, 1000] {
        let mut ch = c.chain.clone();
        ch.intermediates = if n == 1 {
            Vec::new()
        } else {
            // The real intermediate last, so the path exists but must be searched for.
            let mut v: Vec<_> = pool.iter().cycle().take(n - 2).cloned().collect();
            v.extend(c.chain.intermediates.iter().cloned());
            v
        };
        assert_eq!(ch.len(), n);
        let verdicts = all_methods(&c.roots, &ch, &c.host, c.validation_time);
        parallel_matches_serial(&verdicts, &format!("{n} certificates"));
        if n == 1 {
            assert!(
                verdicts.iter().all(|v| v.is_err()),
                "a leaf alone is not a path"
            );
        }
    }
    // The leaf alone overlaps; 50 and 1,000 certificates exceed MAX_PRECHECKS (serial walk).
    assert_overlapped_since(before, 1, "long chains");
}

#[test]
fn a_one_mebibyte_certificate_gets_a_verdict() {
    let mut params = rcgen::CertificateParams::new(vec!["big.example".to_owned()]).unwrap();
    params
        .custom_extensions
        .push(rcgen::CustomExtension::from_oid_content(
            &[1, 3, 6, 1, 4, 1, 55555, 1],
            {
                // An OCTET STRING of 1 MiB.
                let len: usize = 1 << 20;
                let mut v = vec![0x04, 0x83, (len >> 16) as u8, (len >> 8) as u8, len as u8];
                v.extend(std::iter::repeat_n(0xAB, len));
                v
            },
        ));
    let before = force_overlap();
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    assert!(cert.der().len() > 1 << 20);
    let ch = Chain {
        leaf: cert.der().clone(),
        intermediates: vec![],
    };
    // Trusted: an ordinary root (webpki cannot even read a 1 MiB certificate as an anchor).
    let corpus = corpus();
    let roots = &chain(&corpus, "reddit.com__rustls-bench").roots;
    let verdicts = all_methods(roots, &ch, "big.example", 1_770_205_316);
    parallel_matches_serial(&verdicts, "1 MiB certificate");
    assert!(
        verdicts.iter().all(|v| v.is_err()),
        "self-signed leaf: {verdicts:?}"
    );
    // webpki cannot parse a 1 MiB leaf, so no path building is reached (min 0); whatever
    // reached it overlapped.
    assert_overlapped_since(before, 0, "1 MiB certificate");
}

#[test]
fn every_truncation_and_byte_flip_of_a_leaf_gets_a_verdict() {
    let corpus = corpus();
    let c = chain(&corpus, "cloudflare.com__limbo-online");
    let leaf = c.chain.leaf.as_ref().to_vec();
    let mut accepted = 0;
    let (before, mut cases) = (force_overlap(), 0);
    let step = |i: usize| if cfg!(debug_assertions) { i * 7 } else { i };
    // Truncations.
    for len in (0..leaf.len()).map(step).take_while(|&l| l < leaf.len()) {
        let mut ch = c.chain.clone();
        ch.leaf = CertificateDer::from(leaf[..len].to_vec());
        let verdicts = all_methods(&c.roots, &ch, &c.host, c.validation_time);
        assert!(
            verdicts.iter().all(|v| v.is_err()),
            "truncated to {len}: {verdicts:?}"
        );
        parallel_matches_serial(&verdicts, &format!("truncated to {len}"));
        cases += 1;
    }
    // One flipped byte at a time.
    for i in (0..leaf.len()).map(step).take_while(|&i| i < leaf.len()) {
        let mut bytes = leaf.clone();
        bytes[i] ^= 0xFF;
        let mut ch = c.chain.clone();
        ch.leaf = CertificateDer::from(bytes);
        let verdicts = all_methods(&c.roots, &ch, &c.host, c.validation_time);
        parallel_matches_serial(&verdicts, &format!("byte {i} flipped"));
        accepted += verdicts.iter().filter(|v| v.is_ok()).count();
        cases += 1;
    }
    // Truncated leaves never reach path building; most flipped ones do.
    let paths = assert_overlapped_since(before, cases / 4, "truncations and flips");
    eprintln!("{cases} cases; rustlsparallel paths: {paths:?}");
    // A flip in the signed part breaks the signature; only unsigned bytes (e.g. inside the
    // outer signature algorithm's parameters) could ever be accepted, and none are here.
    assert_eq!(accepted, 0);
}
