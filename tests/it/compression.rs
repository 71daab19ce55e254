//! Certificate compression (`--compress-certs`, RFC 8879) and the CertificateVerify stage,
//! against loopback mirrors this test starts: compressed, a classical chain's first flight
//! shrinks markedly and an ML-DSA-44 twin's barely (its keys and signatures are random bytes);
//! the handshake completes with the same verdicts; `cert-decompression` is recorded only when
//! the server compressed; `certificate-verify` is recorded for every key type, and a bad
//! signature is a rejection.

use std::collections::HashMap;
use std::sync::Arc;

use certbench::mirror::MirrorSet;
use certbench::pq::Profile;
use certbench::tls::compression::CertCompression;
use certbench::transport::rustls::{LastVerification, TimedVerifier};
use certbench_core::methods::Method;
use certbench_schema::{Sample, Stage, Verdict};
use rustls::client::danger::ServerCertVerifier;
use rustls::internal::msgs::codec::{Codec, Reader};
use rustls::{DigitallySignedStruct, SignatureScheme};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};

use crate::pq::{drive_pq_compressing, pq_set};

/// Sites whose served chains have three certificates (cross-signs) and two, real and synthetic.
const SITES: &str = "github.com\nwikipedia.org\nreddit.com\ncnn.com\n";

/// A driver run of `rustlsserial` on [`SITES`], today's chains beside ML-DSA-44 twins, the
/// mirrors compressing with `compression` and the client offering it.
fn drive(compression: Option<CertCompression>) -> Vec<Sample> {
    let profiles = [Profile::Classical, Profile::MlDsa44];
    drive_pq_compressing(
        &[Method::RustlsSerial],
        SITES,
        &profiles,
        1,
        None,
        compression,
    )
}

type Key = (
    String,
    Option<certbench_schema::Named<certbench_schema::Profile>>,
);

fn by_site(samples: &[Sample]) -> HashMap<Key, &Sample> {
    (samples.iter())
        .map(|s| ((s.site.clone(), s.config.profile.clone()), s))
        .collect()
}

#[test]
fn compression_shrinks_a_classical_first_flight_and_barely_an_ml_dsa_one() {
    let plain = drive(None);
    let brotli = drive(Some(CertCompression::Brotli));
    assert_eq!(plain.len(), 8);
    assert_eq!(brotli.len(), 8);
    let (plain, brotli) = (by_site(&plain), by_site(&brotli));
    for (key, p) in &plain {
        let b = brotli[key];
        assert_eq!(p.verdict, Verdict::Ok, "{key:?}");
        assert_eq!(b.verdict, p.verdict, "{key:?}: the verdict is unchanged");
        assert_eq!(p.config.compression, None);
        assert_eq!(b.config.compression, Some(CertCompression::Brotli.into()));
        // Decompression only where the server compressed.
        assert!(!p.stages.contains_key(&Stage::CertDecompression), "{key:?}");
        assert!(p.meta.compressed_cert_message_bytes.is_none(), "{key:?}");
        assert!(
            b.stage(Stage::CertDecompression).is_some_and(|ns| ns > 0),
            "{key:?}: {b:?}"
        );
        // The same certificates, fewer bytes on the wire.
        assert_eq!(b.meta.cert_message_bytes, p.meta.cert_message_bytes);
        let message = p.meta.cert_message_bytes.unwrap();
        let compressed = b.meta.compressed_cert_message_bytes.unwrap();
        let (pf, bf) = (
            p.meta.first_flight_bytes.unwrap(),
            b.meta.first_flight_bytes.unwrap(),
        );
        // The flight shrinks by at least what the certificates' message did (record framing
        // aside): more where the host staples an OCSP response, which rustls' client asks for
        // and which goes into the compressed message too (`cert_message_bytes` leaves it out).
        let saved = message as i64 - compressed as i64;
        let shrunk = pf as i64 - bf as i64;
        assert!(shrunk > saved - 64, "{key:?}: {pf} {bf} {saved}");
        let ratio = bf as f64 / pf as f64;
        eprintln!(
            "{:?} {:?}: message {message} -> {compressed}, first flight {pf} -> {bf} ({:.1} %)",
            key.0,
            key.1,
            ratio * 100.0
        );
        // Measured (debug build): real chains 73–82 %, cnn.com's synthetic one (two bare
        // RSA certificates: no SCTs, policies or URLs to repeat) 90 %, the twins 92–97 %.
        match (key.1.as_ref().map(|p| p.as_str()), key.0.as_str()) {
            (Some("classical"), "cnn.com") => assert!(ratio < 0.95, "{key:?}: {ratio}"),
            (Some("classical"), _) => assert!(ratio < 0.85, "{key:?}: {ratio}"),
            _ => assert!(ratio > 0.90, "{key:?}: {ratio}"),
        }
        // The CertificateVerify, timed apart, beside the chain's verification.
        for s in [p, b] {
            assert!(s.stage(Stage::CertificateVerify).is_some_and(|ns| ns > 0));
            assert!(s.stage(Stage::TotalVerification).is_some());
        }
    }
}

#[test]
fn zlib_is_negotiated_when_offered() {
    let zlib = drive(Some(CertCompression::Zlib));
    for s in &zlib {
        assert_eq!(s.verdict, Verdict::Ok, "{s:?}");
        assert!(s.stage(Stage::CertDecompression).is_some(), "{s:?}");
        let (compressed, message) = (
            s.meta.compressed_cert_message_bytes.unwrap(),
            s.meta.cert_message_bytes.unwrap(),
        );
        // (`message` leaves out a stapled OCSP response, which `compressed` holds.)
        eprintln!(
            "zlib {} {:?}: {message} -> {compressed}",
            s.site, s.config.profile
        );
    }
}

/// `host`'s leaf and key in `set`, a message signed with the key, and a verifier over the
/// set's roots.
fn signed(set: &MirrorSet, host: &str) -> (CertificateDer<'static>, DigitallySignedStruct) {
    let hc = &set.hosts[host];
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    let key = (provider.key_provider)
        .load_private_key(PrivateKeyDer::Pkcs8(hc.key.clone().into()))
        .unwrap();
    let schemes = [
        SignatureScheme::ML_DSA_44,
        SignatureScheme::ECDSA_NISTP256_SHA256,
        SignatureScheme::ECDSA_NISTP384_SHA384,
        SignatureScheme::RSA_PSS_SHA256,
    ];
    let signer = key.choose_scheme(&schemes).expect("a TLS 1.3 scheme");
    let sig = signer.sign(MESSAGE).unwrap();
    let mut der = Vec::new();
    signer.scheme().encode(&mut der);
    (sig.len() as u16).encode(&mut der);
    der.extend_from_slice(&sig);
    let dss = DigitallySignedStruct::read(&mut Reader::init(&der)).unwrap();
    (hc.chain[0].clone(), dss)
}

const MESSAGE: &[u8] = b"TLS 1.3, server CertificateVerify\0transcript hash";

fn corrupt(dss: &DigitallySignedStruct) -> DigitallySignedStruct {
    let mut der = Vec::new();
    dss.encode(&mut der);
    let last = der.len() - 1;
    der[last] ^= 1;
    DigitallySignedStruct::read(&mut Reader::init(&der)).unwrap()
}

#[test]
fn certificate_verify_is_timed_apart_and_a_bad_signature_is_a_rejection() {
    for (set, host) in [
        (&crate::common::mirror().0, "github.com"),
        (pq_set(Profile::MlDsa44), "github.com"),
    ] {
        let (leaf, dss) = signed(set, host);
        let method = Method::RustlsSerial;
        let verifier: Arc<dyn certbench_core::methods::DynVerifier> = Arc::from(method.verifier());
        let roots = Arc::new(verifier.build_roots(&set.roots).unwrap());
        let last = Arc::new(LastVerification::default());
        let timed = TimedVerifier::for_method(
            verifier,
            roots,
            &certbench_core::Checks::none(),
            last.clone(),
        );
        let name = ServerName::try_from(host).unwrap();
        let inter = &set.hosts[host].chain[1..];
        for (good, dss) in [(true, dss.clone()), (false, corrupt(&dss))] {
            let chain = timed.verify_server_cert(&leaf, inter, &name, &[], UnixTime::now());
            assert!(chain.is_ok(), "{host}: {chain:?}");
            let sig = timed.verify_tls13_signature(MESSAGE, &leaf, &dss);
            assert_eq!(sig.is_ok(), good, "{:?} {sig:?}", set.profile);
            let (stages, verdict) = last.take().unwrap();
            assert!(
                stages
                    .get(Stage::CertificateVerify)
                    .is_some_and(|ns| ns > 0)
            );
            assert!(stages.get(Stage::TotalVerification).is_some());
            // A bad signature on an accepted chain is the verification's rejection.
            assert_eq!(verdict.is_ok(), good, "{:?}", set.profile);
        }
    }
}

#[test]
fn the_flag_names_its_algorithms_and_needs_the_rustls_transport() {
    let dir = tempfile::tempdir().unwrap();
    let sites = dir.path().join("sites.txt");
    std::fs::write(&sites, "cnn.com\n").unwrap();
    let run = |extra: &[&str]| {
        let out = crate::common::certbench_command()
            .args(["--sites", sites.to_str().unwrap(), "--runs", "1"])
            .args(extra)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["--compress-certs=zstd"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("invalid value 'zstd'") && err.contains("[possible values: brotli, zlib]"),
        "{err}"
    );
    let (code, err) = run(&["--compress-certs"]);
    assert_ne!(code, Some(0), "{err}");
    assert!(
        err.contains("--compress-certs needs --transport rustls"),
        "{err}"
    );
}
