//! Every method's verdict on the 34 bundled real chains, against what the manifest recorded.

use crate::common::{chain, corpus, verdict, verdict_with};
use certbench_core::methods::DynVerifier;
use certbench_core::methods::Method;
use certbench_core::methods::rustls_serial::{RustlsSerial, signature_algorithms};
use certbench_core::verifier::Verifier;
use rustls_pki_types::SignatureVerificationAlgorithm;

/// Chains each method rejects on this build, with the start of its reason.
fn rejected_here(method: Method) -> Vec<(&'static str, &'static str)> {
    match method {
        Method::OpenSsl => vec![(
            "netflix.com__webpki-tests",
            "Missing Authority Key Identifier (depth 1)",
        )],
        // rustls' own verifiers say it through rustls' error type, which names webpki's.
        Method::RustlsSerial | Method::RustlsParallel | Method::Webpki | Method::Platform => {
            vec![("udctest.ads.vt.edu__go-x509", "NameConstraintViolation")]
        }
        // AWS-LC has no X509_STRICT: netflix's intermediate without an Authority Key
        // Identifier passes, as with OpenSSL's default flags.
        Method::AwsLc => vec![],
        // webpki 0.22 knows neither the absent-parameters RSA identifier nor DirectoryName
        // name constraints, and says so as UnknownIssuer (no path found).
        Method::WebpkiLegacy => vec![
            ("irelease-dev.sanofi.com__webpki-tests", "UnknownIssuer"),
            ("udctest.ads.vt.edu__go-x509", "UnknownIssuer"),
        ],
        // GnuTLS (as glib-networking calls it) verifies the chain as sent up to its last
        // certificate and builds no other path: aws.amazon.com sends Amazon Root CA 1
        // cross-signed by Starfield G2 and that one cross-signed by Starfield Class 2; the
        // chain's root.pem is the self-signed Amazon Root CA 1, which GnuTLS never reaches.
        Method::Gnutls => vec![(
            "aws.amazon.com__platform-verifier",
            "The certificate issuer is unknown",
        )],
        // Chrome's path builder accepts all 34, udctest.ads.vt.edu too: libpki checks its
        // DirectoryName name constraints, which webpki refuses outright (rustls/webpki#19).
        Method::Chrome => vec![],
        // mozilla::pkix accepts all 34 as well (it checks DirectoryName constraints).
        Method::Firefox => vec![],
        // `mtc` verifies no X.509 chain (`all_methods` leaves it out; tests/it/mtc.rs).
        Method::Mtc => vec![],
    }
}

#[test]
fn every_method_gives_the_recorded_verdict_on_every_chain() {
    let corpus = corpus();
    assert_eq!(corpus.chains.len(), 34);
    for &method in crate::common::all_methods() {
        let rejected = rejected_here(method);
        for c in &corpus.chains {
            let got = verdict(method, c);
            match rejected.iter().find(|(id, _)| *id == c.id) {
                Some((_, reason)) => {
                    let e = got
                        .clone()
                        .expect_err(&format!("{method} must reject {}", c.id));
                    assert!(e.contains(reason), "{method} on {}: {e}", c.id);
                }
                None => assert_eq!(got.clone(), Ok(()), "{method} on {}", c.id),
            }
            // The manifest agrees, chain by chain, except the one documented below.
            let recorded = match method {
                Method::OpenSsl => c.expected.openssl_strict,
                // No AWS-LC verdict is recorded: compare with OpenSSL's without X509_STRICT
                // (AWS-LC's checks are OpenSSL 1.1.1's, always strict but for that flag's
                // extra RFC 5280 profile checks).
                Method::AwsLc => c.expected.openssl_default,
                Method::RustlsSerial
                | Method::RustlsParallel
                | Method::Webpki
                | Method::Platform => c.expected.rustls_webpki,
                Method::WebpkiLegacy => c.expected.webpki_legacy,
                // No GnuTLS verdict is recorded: the manifest's own expectation.
                Method::Gnutls | Method::Chrome | Method::Firefox | Method::Mtc => c.expected.valid,
            }
            .expect("manifest records a verdict");
            let rustls = !matches!(
                method,
                Method::OpenSsl | Method::AwsLc | Method::WebpkiLegacy
            );
            let gnutls_path =
                method == Method::Gnutls && c.id == "aws.amazon.com__platform-verifier";
            if (c.id != "irelease-dev.sanofi.com__webpki-tests" || !rustls) && !gnutls_path {
                assert_eq!(recorded, got.is_ok(), "{method} on {}: manifest", c.id);
            }
        }
    }
}

/// The manifest's rustls-webpki 0.103.13 (ring harness) rejected sanofi: its leaf is signed
/// with an RSA AlgorithmIdentifier without NULL parameters. The rustls-webpki 0.103 and rustls
/// 0.23 resolved today list `RSA_PKCS1_2048_8192_SHA*_ABSENT_PARAMS`, so a browser on rustls
/// accepts it. With those algorithms taken out, the same verifier gives the recorded verdict.
#[test]
fn sanofi_differs_from_the_manifest_only_by_the_absent_params_algorithms() {
    let corpus = corpus();
    let c = chain(&corpus, "irelease-dev.sanofi.com__webpki-tests");
    assert_eq!(c.expected.rustls_webpki, Some(false));
    assert_eq!(verdict(Method::RustlsSerial, c), Ok(()));

    let absent_params = |a: &&dyn SignatureVerificationAlgorithm| {
        // sha{256,384,512}WithRSAEncryption OID with no parameters: the whole identifier is
        // the 11-byte OID TLV.
        let id = a.signature_alg_id();
        id.as_ref().len() == 11 && id.as_ref().starts_with(&[0x06, 0x09, 0x2a, 0x86, 0x48])
    };
    assert!(signature_algorithms().iter().any(absent_params));
    let older: Vec<&'static dyn SignatureVerificationAlgorithm> = signature_algorithms()
        .iter()
        .copied()
        .filter(|a| !absent_params(a))
        .collect();
    let older = RustlsSerial::with_algorithms(Vec::leak(older));
    let roots = older.build_roots(&c.roots).unwrap();
    let mut rec = certbench_core::stages::Recorder::new();
    let e = older
        .verify(
            &roots,
            &c.chain,
            certbench_core::verifier::Target::server(&c.host, c.validation_time),
            &mut rec,
        )
        .unwrap_err();
    assert!(e.reason.starts_with("UnsupportedSignatureAlgorithm"), "{e}");
}

#[test]
fn rustlsparallel_gives_exactly_the_serial_verdicts() {
    let before = crate::common::force_overlap();
    let mut compared = 0;
    let corpus = corpus();
    let serial = Method::RustlsSerial.verifier();
    let parallel = Method::RustlsParallel.verifier();
    let mut all_roots = corpus.roots();
    all_roots.extend(webpki_root_certs::TLS_SERVER_ROOT_CERTS.iter().cloned());
    for c in &corpus.chains {
        // Own root, all roots, wrong host, far future, no intermediates: same words each time.
        let cases: [(&[_], &str, u64, bool); 5] = [
            (&c.roots, &c.host, c.validation_time, true),
            (&all_roots, &c.host, c.validation_time, true),
            (&c.roots, "wrong.example", c.validation_time, true),
            (&c.roots, &c.host, 4_102_444_800, true),
            (&c.roots, &c.host, c.validation_time, false),
        ];
        for (roots, host, time, with_intermediates) in cases {
            let mut ch = c.chain.clone();
            if !with_intermediates {
                ch.intermediates.clear();
            }
            let a = verdict_with(serial.as_ref(), roots, &ch, host, time);
            let b = verdict_with(parallel.as_ref(), roots, &ch, host, time);
            assert_eq!(a, b, "{} host={host} time={time}", c.id);
            compared += 1;
        }
    }
    crate::common::assert_overlapped_since(before, compared, "corpus verdicts");
}

#[test]
fn key_types_read_from_the_certificates_match_the_manifest() {
    let text = std::fs::read_to_string(certbench_core::corpus::bundled_dir().join("manifest.json"))
        .unwrap();
    let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    let corpus = corpus();
    for (c, m) in corpus
        .chains
        .iter()
        .zip(manifest["chains"].as_array().unwrap())
    {
        let recorded: Vec<&str> = m["certs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["role"] != "root")
            .map(|x| x["key"].as_str().unwrap())
            .collect();
        assert_eq!(c.key_types, recorded, "{}", c.id);
    }
}

#[test]
fn a_store_from_another_method_is_a_rejection_not_a_panic() {
    let corpus = corpus();
    let c = chain(&corpus, "reddit.com__rustls-bench");
    let openssl_store = Method::OpenSsl.verifier().build_roots(&c.roots).unwrap();
    let v: Box<dyn DynVerifier> = Method::RustlsSerial.verifier();
    let mut rec = certbench_core::stages::Recorder::new();
    let e = v
        .verify(
            &openssl_store,
            &c.chain,
            certbench_core::verifier::Target::server(&c.host, c.validation_time),
            &mut rec,
        )
        .unwrap_err();
    assert!(e.reason.contains("built by `openssl`"), "{e}");
}

/// `awslc` fails closed: bytes AWS-LC cannot parse, in the chain or as a CRL, and an empty
/// trust store are rejections with AWS-LC's reason, never an accept or a crash.
#[test]
fn awslc_rejects_what_it_cannot_parse_with_its_reason() {
    let corpus = corpus();
    let c = chain(&corpus, "reddit.com__rustls-bench");
    let v = Method::AwsLc.verifier();
    let store = v.build_roots(&c.roots).unwrap();
    let check = |ch: &certbench_core::chain::Chain,
                 crls: &[rustls_pki_types::CertificateRevocationListDer<'static>]| {
        let mut target = certbench_core::verifier::Target::server(&c.host, c.validation_time);
        target.crls = crls;
        v.verify(
            &store,
            ch,
            target,
            &mut certbench_core::stages::Recorder::new(),
        )
        .map_err(|r| r.reason)
    };
    assert_eq!(check(&c.chain, &[]), Ok(()));
    let mut junk_leaf = c.chain.clone();
    junk_leaf.leaf = rustls_pki_types::CertificateDer::from(b"junk".to_vec());
    let e = check(&junk_leaf, &[]).unwrap_err();
    assert!(e.starts_with("bad chain: not a DER certificate"), "{e}");
    let mut trailing = c.chain.clone();
    let mut bytes = trailing.intermediates[0].to_vec();
    bytes.push(0);
    trailing.intermediates[0] = bytes.into();
    let e = check(&trailing, &[]).unwrap_err();
    assert!(e.contains("trailing data"), "{e}");
    let e = check(&c.chain, &[b"not a CRL".to_vec().into()]).unwrap_err();
    assert!(e.starts_with("bad CRL"), "{e}");
    let empty = v.build_roots(&[]).unwrap();
    let e = v
        .verify(
            &empty,
            &c.chain,
            certbench_core::verifier::Target::server(&c.host, c.validation_time),
            &mut certbench_core::stages::Recorder::new(),
        )
        .unwrap_err()
        .reason;
    assert!(
        e.starts_with("unable to get local issuer certificate"),
        "{e}"
    );
}
