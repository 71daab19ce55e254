//! The calls the Servo patch makes (`certbench::servo`), driven as the patched `connector.rs`
//! and `http_loader.rs` drive them, each run in a process of its own (the environment is read
//! once per process): the test binary runs itself with the ignored test [`child`] and the
//! settings of the run. In the child, each of Servo's three verifier choices (the cached
//! platform verifier, built once and handed out twice as at start-up; the platform verifier
//! with `--certificate-path` roots; webpki-roots) goes through `servo::verifier`, then a page
//! load makes two real in-memory TLS handshakes to a loopback-only name per verifier (the
//! second resumed), through a stand-in of Servo's override verifier whose exception list
//! holds the leaf, as Servo's does once a user accepted it. The parent checks the samples:
//! trust set, stages, connection and page, cold and warm marks, exceptions, one store build
//! per process; and `certbench report` on them.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, LazyLock};

use certbench::servo;
use certbench_analysis::servo::{ServoChoice, ServoEvent, ServoException, ServoMeta};
use certbench_analysis::{Sample, Stage, Verdict};
use futures_util::FutureExt;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::{ClientConfig, ClientConnection, HandshakeKind, ServerConfig, ServerConnection};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};

const HOST: &str = "servo.test";

/// A CA (Servo's override certificate) and a leaf for [`HOST`] it signed, with its key.
struct Pki {
    ca: CertificateDer<'static>,
    leaf: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
}

fn pki() -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    (ca_params.distinguished_name).push(DnType::CommonName, "certbench servo test CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let leaf_params = CertificateParams::new(vec![HOST.to_owned()]).unwrap();
    let leaf = (leaf_params.signed_by(&leaf_key, &Issuer::new(ca_params, ca_key))).unwrap();
    Pki {
        ca: ca.der().clone(),
        leaf: leaf.der().clone(),
        key: PrivateKeyDer::try_from(leaf_key.serialize_der()).unwrap(),
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// Servo's `RUSTLS_PLATFORM_VERIFIER_CACHE`.
static PLATFORM_CACHE: LazyLock<Arc<rustls_platform_verifier::Verifier>> =
    LazyLock::new(|| Arc::new(rustls_platform_verifier::Verifier::new(provider()).unwrap()));

/// What `CertificateVerificationOverrideVerifier::new` builds for each choice, through
/// `servo::verifier` as the patch calls it.
fn servo_verifier(
    choice: ServoChoice,
    overrides: &[CertificateDer<'static>],
) -> Arc<dyn ServerCertVerifier> {
    let timer = servo::Timer::start();
    let (chosen, webpki, given): (Arc<dyn ServerCertVerifier>, bool, Option<&[_]>) = match choice {
        ServoChoice::PlatformCached => (PLATFORM_CACHE.clone(), false, None),
        ServoChoice::PlatformExtraRoots => (
            Arc::new(
                rustls_platform_verifier::Verifier::new_with_extra_roots(
                    overrides.to_vec(),
                    provider(),
                )
                .unwrap(),
            ),
            false,
            Some(overrides),
        ),
        ServoChoice::WebpkiRoots => {
            let mut store = rustls::RootCertStore::empty();
            store.add_parsable_certificates(
                webpki_root_certs::TLS_SERVER_ROOT_CERTS.iter().cloned(),
            );
            store.add_parsable_certificates(overrides.iter().cloned());
            let v = rustls::client::WebPkiServerVerifier::builder_with_provider(
                store.into(),
                provider(),
            )
            .build()
            .unwrap();
            (v, true, Some(overrides))
        }
    };
    // As the patch does with a refusal: say it, exit with status 2.
    servo::verifier(chosen, timer, webpki, given).unwrap_or_else(|refusal| {
        eprintln!("{refusal}");
        std::process::exit(2)
    })
}

/// Servo's override verifier, as `connector.rs` has it with the patch.
#[derive(Debug)]
struct Override {
    main: Arc<dyn ServerCertVerifier>,
    exceptions: Vec<CertificateDer<'static>>,
}

impl ServerCertVerifier for Override {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let certbench = servo::Verification::begin();
        let error =
            match self
                .main
                .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
            {
                Ok(ok) => return Ok(ok),
                Err(e) => e,
            };
        if self.exceptions.iter().any(|c| c == end_entity) {
            certbench.accepted(ServoException::CertificateOverride);
            return Ok(ServerCertVerified::assertion());
        }
        Err(error)
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.main.verify_tls12_signature(m, c, d)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.main.verify_tls13_signature(m, c, d)
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.main.supported_verify_schemes()
    }
}

/// One TLS handshake in memory, client against server: its kind, or why it failed.
fn handshake(
    client: &Arc<ClientConfig>,
    server: &Arc<ServerConfig>,
) -> Result<Option<HandshakeKind>, rustls::Error> {
    let mut c = ClientConnection::new(client.clone(), ServerName::try_from(HOST).unwrap())?;
    let mut s = ServerConnection::new(server.clone())?;
    for _ in 0..20 {
        let (mut to_server, mut to_client) = (Vec::new(), Vec::new());
        while c.wants_write() {
            c.write_tls(&mut to_server).unwrap();
        }
        let mut rd = &to_server[..];
        while !rd.is_empty() {
            s.read_tls(&mut rd).unwrap();
            s.process_new_packets()?;
        }
        while s.wants_write() {
            s.write_tls(&mut to_client).unwrap();
        }
        let mut rd = &to_client[..];
        while !rd.is_empty() {
            c.read_tls(&mut rd).unwrap();
            c.process_new_packets()?;
        }
        if to_server.is_empty() && to_client.is_empty() && !c.is_handshaking() {
            return Ok(c.handshake_kind());
        }
    }
    panic!("the in-memory handshake did not settle");
}

/// One connection through the patched connector: `Connection`, the handshake polled inside
/// `connecting`, then `finish` or `failed`.
async fn connect(client: &Arc<ClientConfig>, server: &Arc<ServerConfig>) {
    let certbench = servo::Connection::start(HOST, Some(443));
    let result = servo::connecting(certbench.as_ref(), async { handshake(client, server) }).await;
    if let Some(connection) = certbench {
        match &result {
            Ok(kind) => connection.finish(Some(*kind)),
            Err(e) => connection.failed(e),
        }
    }
}

/// The child: every choice, one page load each (a document fetch, then two connections).
#[test]
#[ignore = "run by the other tests of this module, in a process of their own"]
fn child() {
    if std::env::var_os("CERTBENCH_SERVO_CHILD").is_none() {
        return;
    }
    let pki = pki();
    let server = Arc::new(
        ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![pki.leaf.clone()], pki.key.clone_key())
            .unwrap(),
    );
    let overrides = vec![pki.ca.clone()];
    // Start-up: Servo's two `create_tls_config` calls hand out the cached verifier twice.
    // (Servo makes one choice per process; the child makes the three one after the other.)
    let _second = servo_verifier(ServoChoice::PlatformCached, &overrides);
    let choices = [
        ServoChoice::PlatformCached,
        ServoChoice::PlatformExtraRoots,
        ServoChoice::WebpkiRoots,
    ];
    for (n, choice) in choices.into_iter().enumerate() {
        let verifier = Override {
            main: servo_verifier(choice, &overrides),
            exceptions: vec![pki.leaf.clone()],
        };
        let client = Arc::new(
            ClientConfig::builder_with_provider(provider())
                .with_safe_default_protocol_versions()
                .unwrap()
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth(),
        );
        let request = format!("request-{n}");
        let page = servo::page_of_fetch(
            Some("webview-1".into()),
            Some(&request),
            "https://servo.test/",
        );
        let load = servo::within_page(page, async {
            connect(&client, &server).await;
            connect(&client, &server).await;
        });
        load.now_or_never()
            .expect("in-memory handshakes do not wait");
    }
    servo::flush();
}

fn run_child(dir: &Path, vars: &[(&str, &str)]) -> (Output, Vec<Sample>) {
    let samples = dir.join("servo.jsonl");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "servo_api::child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env_remove("CERTBENCH_METHOD")
        .env_remove("CERTBENCH_TRUST")
        .env("CERTBENCH_SERVO_CHILD", "1")
        .env("CERTBENCH_SAMPLES", &samples)
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    let read = match std::fs::read(&samples) {
        Ok(bytes) => {
            let (s, errors) = certbench_analysis::io::read_jsonl(&bytes[..]);
            assert!(errors.is_empty(), "{errors:?}");
            s
        }
        Err(_) => Vec::new(),
    };
    (out, read)
}

fn meta(s: &Sample) -> &ServoMeta {
    s.meta
        .servo
        .as_ref()
        .unwrap_or_else(|| panic!("no servo meta: {s:?}"))
}

fn of(samples: &[Sample], event: ServoEvent) -> Vec<&Sample> {
    samples.iter().filter(|s| meta(s).event == event).collect()
}

/// The roots each choice's verifier samples name, in choice order.
fn roots_by_choice(samples: &[Sample]) -> Vec<(ServoChoice, String)> {
    let mut v: Vec<_> = of(samples, ServoEvent::Verifier)
        .iter()
        .map(|s| (meta(s).choice.unwrap(), s.config.roots.clone().unwrap()))
        .collect();
    v.dedup();
    v
}

#[test]
fn servo_own_verifier_is_timed_per_choice_connection_and_page() {
    let dir = tempfile::tempdir().unwrap();
    let (out, samples) = run_child(dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(samples.iter().all(|s| s.method == "servo"));
    let pid = meta(&samples[0]).pid;
    for (i, s) in samples.iter().enumerate() {
        let m = meta(s);
        assert_eq!(
            (m.pid, m.seq),
            (pid, i as u64),
            "one process, in order: {s:?}"
        );
        if i > 0 {
            assert!(m.since_start_ns >= meta(&samples[i - 1]).since_start_ns);
        }
    }
    // One store build per process: the cached platform verifier's second hand-out is cached.
    let built = of(&samples, ServoEvent::Verifier);
    let choices: Vec<_> = built
        .iter()
        .map(|s| (meta(s).choice.unwrap(), s.meta.roots_cached))
        .collect();
    assert_eq!(
        choices,
        [
            (ServoChoice::PlatformCached, false),
            (ServoChoice::PlatformCached, true),
            (ServoChoice::PlatformExtraRoots, false),
            (ServoChoice::WebpkiRoots, false),
        ]
    );
    assert!(built[0].stage(Stage::RootsCreation).unwrap() > 0);
    assert_eq!(built[1].stage(Stage::RootsCreation), Some(0));
    let roots = roots_by_choice(&samples);
    assert!(roots[0].1.starts_with("system ("), "{roots:?}");
    assert!(roots[1].1.starts_with("system+overrides ("), "{roots:?}");
    let mozilla = webpki_root_certs::TLS_SERVER_ROOT_CERTS.len() + 1;
    assert_eq!(roots[2].1, format!("mozilla+overrides ({mozilla})"));

    // Per choice: one page load, a full handshake with one verification, then a resumed one.
    let verifications = of(&samples, ServoEvent::Verification);
    let connections = of(&samples, ServoEvent::Connection);
    assert_eq!((verifications.len(), connections.len()), (3, 6));
    for (n, v) in verifications.iter().enumerate() {
        let m = meta(v);
        assert_eq!(m.page, Some(n as u64 + 1), "{v:?}");
        assert_eq!(
            v.warmup,
            n == 0,
            "the process's first verification is the cold one"
        );
        assert!(v.stage(Stage::TotalVerification).unwrap() > 0);
        let full = connections[2 * n];
        let resumed = connections[2 * n + 1];
        assert_eq!(m.connection, meta(full).connection, "{v:?} in {full:?}");
        assert_eq!(full.meta.resumed, Some(false));
        assert_eq!(resumed.meta.resumed, Some(true));
        assert!(
            verifications
                .iter()
                .all(|v| meta(v).connection != meta(resumed).connection)
        );
        assert!(full.stage(Stage::Handshake).unwrap() > v.stage(Stage::TotalVerification).unwrap());
        assert_eq!(meta(full).page_url.as_deref(), Some("https://servo.test/"));
    }
    // The system store does not hold the test CA: Servo's exception list accepted the leaf.
    assert!(matches!(verifications[0].verdict, Verdict::Rejected(_)));
    assert_eq!(
        meta(verifications[0]).exception,
        Some(ServoException::CertificateOverride)
    );
    for v in &verifications[1..] {
        assert_eq!((&v.verdict, meta(v).exception), (&Verdict::Ok, None));
    }

    let report = Command::new(env!("CARGO_BIN_EXE_certbench"))
        .args([
            "report",
            dir.path().join("servo.jsonl").to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(
        text.contains("### Servo: verification per connection and per page load"),
        "{text}"
    );
    let row = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("`{needle}` in {text}"))
            .to_owned()
    };
    assert!(
        row("servo · platform-cached · system (").contains("| 1 | 1 per process |"),
        "{text}"
    );
    assert!(
        row("| first of process |").contains("| 1 | first of process | 2 | 1 | 1 |"),
        "{text}"
    );
    assert!(
        row("| later |").contains("| 1 | later | 2 | 1 | 1 |"),
        "{text}"
    );
}

#[test]
fn a_method_gets_servos_trust_set_or_the_mozilla_one_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (_, own) = run_child(dir.path(), &[]);
    let dir = tempfile::tempdir().unwrap();
    let (out, method) = run_child(dir.path(), &[("CERTBENCH_METHOD", "rustlsparallel")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(method.iter().all(|s| s.method == "rustlsparallel"));
    assert_eq!(
        roots_by_choice(&method),
        roots_by_choice(&own),
        "the same trust set as Servo's"
    );
    // Built once per process on the cached choice, as Servo builds its verifier.
    let built = of(&method, ServoEvent::Verifier);
    assert_eq!(
        built
            .iter()
            .map(|s| s.meta.roots_cached)
            .collect::<Vec<_>>(),
        [false, true, false, false]
    );
    let staged = of(&method, ServoEvent::Verification);
    assert!(
        staged
            .iter()
            .all(|s| s.stage(Stage::ChainCreation).is_some()),
        "the method's own stages"
    );

    let dir = tempfile::tempdir().unwrap();
    let (out, mozilla) = run_child(
        dir.path(),
        &[
            ("CERTBENCH_METHOD", "webpki"),
            ("CERTBENCH_TRUST", "mozilla"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = webpki_root_certs::TLS_SERVER_ROOT_CERTS.len() + 1;
    let roots = roots_by_choice(&mozilla);
    assert_eq!(
        roots[0].1,
        format!("mozilla ({})", n - 1),
        "no overrides on the cached choice"
    );
    for (_, roots) in &roots[1..] {
        assert_eq!(roots, &format!("mozilla+overrides ({n})"));
    }
}

/// The loop of `docs/servo.md` step 4, as written: every method it names either records
/// samples under its own name or is refused at start with nothing written.
#[test]
fn the_documented_loop_records_no_row_under_a_wrong_name() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/servo.md")).unwrap();
    let line = (doc.lines())
        .find_map(|l| l.trim().strip_prefix("for method in "))
        .expect("docs/servo.md has the loop");
    let methods: Vec<&str> = line.trim_end_matches("; do").split_whitespace().collect();
    assert!(
        methods.contains(&"servo") && methods.len() > 2,
        "{methods:?}"
    );
    for method in methods.iter().copied().chain(["nosuch"]) {
        let dir = tempfile::tempdir().unwrap();
        let (out, samples) = run_child(dir.path(), &[("CERTBENCH_METHOD", method)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            assert!(!samples.is_empty(), "{method}: {stderr}");
            assert!(samples.iter().all(|s| s.method == method), "{method}");
        } else {
            assert_eq!(out.status.code(), Some(2), "{method}: {stderr}");
            assert!(stderr.contains("nothing recorded"), "{method}: {stderr}");
            assert!(samples.is_empty(), "{method}: a refused run writes nothing");
        }
        if method == "nosuch" {
            assert!(
                stderr.contains("CERTBENCH_METHOD=nosuch: unknown method `nosuch`"),
                "{stderr}"
            );
        } else {
            assert!(
                out.status.success(),
                "{method} is in the documented loop: {stderr}"
            );
        }
    }
}
