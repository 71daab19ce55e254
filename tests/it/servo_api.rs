//! The calls the Servo patch makes (`certbench::servo`), in a process of their own (the
//! environment is read once): with `CERTBENCH_METHOD=rustlsparallel`, the verifier Servo gets
//! is certbench's, inside a `TimedVerifier`; it verifies a real chain as the bare method does,
//! and the samples land in `CERTBENCH_SAMPLES` as JSONL in the driver's format, which
//! `certbench report` turns into tables.

use std::sync::Arc;

use certbench::servo;
use certbench_analysis::{Source, Stage, Verdict};
use rustls::client::danger::ServerCertVerifier;
use rustls_pki_types::{ServerName, UnixTime};

#[derive(Debug)]
struct Unused;

impl ServerCertVerifier for Unused {
    fn verify_server_cert(
        &self,
        _: &rustls_pki_types::CertificateDer<'_>,
        _: &[rustls_pki_types::CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        panic!("CERTBENCH_METHOD is set: Servo's own verifier must not be called")
    }
    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &rustls_pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        unreachable!()
    }
    fn verify_tls13_signature(
        &self,
        _: &[u8],
        _: &rustls_pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        unreachable!()
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        Vec::new()
    }
}

#[test]
fn the_patch_api_swaps_the_method_and_writes_driver_format_samples() {
    let dir = tempfile::tempdir().unwrap();
    let samples_path = dir.path().join("servo.jsonl");
    // SAFETY: this test binary has this one test; nothing else reads the environment yet.
    unsafe {
        std::env::set_var("CERTBENCH_METHOD", "rustlsparallel");
        std::env::set_var("CERTBENCH_SAMPLES", &samples_path);
    }
    let corpus = crate::common::corpus();
    // Servo's override certificates (`--certificate-path`): here the corpus roots, since
    // some corpus chains end at roots outside the Mozilla set.
    let timer = servo::Timer::start();
    let v = servo::verifier(Arc::new(Unused), timer, &corpus.roots());
    let connector_timer = servo::Timer::start();
    servo::connector_created(connector_timer);
    for c in &corpus.chains {
        let name = ServerName::try_from(c.host.as_str()).unwrap();
        let now = UnixTime::since_unix_epoch(std::time::Duration::from_secs(c.validation_time));
        let got = v.verify_server_cert(&c.chain.leaf, &c.chain.intermediates, &name, &[], now);
        let bare = crate::common::verdict(certbench::Method::RustlsSerial, c);
        assert_eq!(got.is_ok(), bare.is_ok(), "{}", c.id);
    }
    assert!(!v.supported_verify_schemes().is_empty());

    let file = std::fs::File::open(&samples_path).unwrap();
    let (samples, errors) = certbench_analysis::io::read_jsonl(std::io::BufReader::new(file));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(samples.len(), 2 + corpus.chains.len());
    for s in &samples {
        assert_eq!(s.source, Source::Servo);
        assert_eq!(s.method, "rustlsparallel");
        assert_eq!(s.config.transport.as_deref(), Some("rustls"));
    }
    let startup: Vec<_> = samples.iter().filter(|s| s.site == "(startup)").collect();
    assert_eq!(startup.len(), 2);
    assert!(
        startup
            .iter()
            .any(|s| s.stage(Stage::RootsCreation).unwrap_or(0) > 0)
    );
    assert!(
        startup
            .iter()
            .any(|s| s.stages.contains_key(&Stage::HttpConnectorCreation))
    );
    let verifications: Vec<_> = samples.iter().filter(|s| s.site != "(startup)").collect();
    for s in &verifications {
        assert!(s.stage(Stage::TotalVerification).unwrap() > 0, "{s:?}");
        assert!(s.stage(Stage::ChainCreation).unwrap() > 0, "{s:?}");
        assert!(s.stage(Stage::Verify).unwrap() > 0, "{s:?}");
    }
    assert!(verifications.iter().any(
        |s| matches!(&s.verdict, Verdict::Rejected(r) if r.contains("NameConstraintViolation"))
    ));

    // `certbench report` makes the seed's tables of them.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_certbench"))
        .args(["report", samples_path.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("### rustlsparallel — hook timed-verifier"),
        "{text}"
    );
    assert!(text.contains("| reddit.com"), "{text}");
    assert!(text.contains("(startup)"), "{text}");
}
