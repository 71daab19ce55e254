//! The child process of `servo_api`'s tests: the calls the Servo patch makes
//! (`certbench_core::servo`), driven as the patched `connector.rs` and `http_loader.rs` drive
//! them. Each of Servo's three verifier choices (the cached platform verifier, built once and
//! handed out twice as at start-up; the platform verifier with `--certificate-path` roots;
//! webpki-roots) goes through `servo::verifier`; then a page load makes two real in-memory
//! TLS handshakes to a loopback-only name per verifier (the second resumed), through a
//! stand-in of Servo's override verifier whose exception list holds the leaf, as Servo's
//! does once a user accepted it. With `CERTBENCH_CHILD_FRAMES` it is instead the servoshell
//! of docs/servo.md's workflow ([`workflow`]). [`child`] does nothing unless `servo_api`
//! runs it.

use std::sync::{Arc, LazyLock};

use certbench_core::servo;
use certbench_schema::servo::{ServoChoice, ServoException};
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
    pki_for(&[HOST.to_owned()])
}

/// A CA and a leaf for all of `names`.
fn pki_for(names: &[String]) -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    (ca_params.distinguished_name).push(DnType::CommonName, "certbench servo test CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let leaf_params = CertificateParams::new(names.to_vec()).unwrap();
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
            // As connector.rs: Servo's own crate's anchors.
            let mut store = rustls::RootCertStore::empty();
            store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
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
    // Servo's prefs (servoshell's --pref certbench_method=…), stood in for by a variable.
    let prefs = servo::Prefs {
        method: std::env::var("CERTBENCH_CHILD_PREF_METHOD").unwrap_or_default(),
        ..servo::Prefs::default()
    };
    // As the patch does with a refusal: say it, exit with status 2.
    servo::verifier(chosen, timer, webpki, given, &prefs).unwrap_or_else(|refusal| {
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
    host: &str,
) -> Result<Option<HandshakeKind>, rustls::Error> {
    let name = ServerName::try_from(host.to_owned()).unwrap();
    let mut c = ClientConnection::new(client.clone(), name)?;
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

/// One connection through the patched connector: `Connection`, the stream (`stream_up`, as
/// `ProxyConnector::call`'s future) and the handshake polled inside `connecting`, then
/// `finish` or `failed`.
async fn connect(client: &Arc<ClientConfig>, server: &Arc<ServerConfig>, host: &str, port: u16) {
    let certbench = servo::Connection::start(host, Some(port));
    let result = servo::connecting(certbench.as_ref(), async {
        // The TCP stream: in memory, up at once.
        servo::stream_up(async {}).await;
        handshake(client, server, host)
    })
    .await;
    if let Some(connection) = certbench {
        match &result {
            Ok(kind) => connection.finish(Some(*kind)),
            Err(e) => connection.failed(e),
        }
    }
}

/// The child: every choice, one page load each (a document fetch, then two connections).
#[test]
#[ignore = "run by the tests of servo_api, in a process of their own"]
fn child() {
    if std::env::var_os("CERTBENCH_SERVO_CHILD").is_none() {
        return;
    }
    if let Ok(frames) = std::env::var("CERTBENCH_CHILD_FRAMES") {
        let page = std::env::var("CERTBENCH_CHILD_PAGE").unwrap();
        return workflow(&page, &frames);
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
            connect(&client, &server, HOST, 443).await;
            connect(&client, &server, HOST, 443).await;
        });
        load.now_or_never()
            .expect("in-memory handshakes do not wait");
    }
    servo::flush();
}

/// `https://host:port/…` as host and port.
fn host_port(url: &str) -> (String, u16) {
    let authority = url
        .trim_start_matches("https://")
        .split('/')
        .next()
        .unwrap();
    let (host, port) = authority.rsplit_once(':').unwrap_or((authority, "443"));
    (host.to_owned(), port.parse().unwrap())
}

/// servoshell in docs/servo.md's workflow, with `--certificate-path` (Servo's choice
/// `platform-extra-roots`): one page load of `page` (the document over plain HTTP: no TLS
/// connection), then each of `frames` (space-separated URLs) fetched in the page, one
/// connection each: a frame whose origin already has a connection opens a second one, which
/// resumes the first's TLS session (two frames of a site loaded together).
fn workflow(page: &str, frames: &str) {
    let frames: Vec<(String, u16)> = frames.split_whitespace().map(host_port).collect();
    let mut names: Vec<String> = frames.iter().map(|(h, _)| h.clone()).collect();
    names.dedup();
    let pki = pki_for(&names);
    let server = Arc::new(
        ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![pki.leaf.clone()], pki.key.clone_key())
            .unwrap(),
    );
    // `--certificate-path` with the mirror's roots: the test CA is an override certificate.
    let overrides = vec![pki.ca.clone()];
    let verifier = Override {
        main: servo_verifier(ServoChoice::PlatformExtraRoots, &overrides),
        exceptions: Vec::new(),
    };
    let client = Arc::new(
        ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth(),
    );
    let webview = || Some("webview-1".to_owned());
    let document = servo::page_of_fetch(webview(), Some("request-1"), page);
    servo::within_page(document, async {})
        .now_or_never()
        .expect("the document fetch stands in, at once");
    for (host, port) in &frames {
        let url = format!("https://{host}:{port}/");
        let page = servo::page_of_fetch(webview(), None, &url);
        servo::within_page(page, connect(&client, &server, host, *port))
            .now_or_never()
            .expect("in-memory handshakes do not wait");
    }
    servo::flush();
}
