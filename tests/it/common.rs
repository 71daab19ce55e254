//! Helpers shared by the integration tests.
#![allow(dead_code)]

use certbench_core::chain::Chain;
use certbench_core::corpus::{Corpus, CorpusChain};
use certbench_core::methods::DynVerifier;
use certbench_core::methods::Method;
use certbench_core::methods::rustls_parallel::{Paths, paths_on_this_thread};
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use rustls_pki_types::CertificateDer;

/// Every method that can verify an X.509 chain in this process: `Method::ALL` less `mtc`
/// (Merkle Tree Certificates only: `tests/it/mtc.rs`) and less a browser's verifier that was
/// not built (say, `firefox` before `scripts/fetch-nss-source`), which is named on standard
/// error. With `CERTBENCH_REQUIRE_NATIVE` set (as `.ci/run` sets it), a missing one
/// fails the test instead.
pub fn all_methods() -> &'static [Method] {
    static ALL: std::sync::OnceLock<Vec<Method>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        for m in Method::ALL {
            if let Some(why) = m.unavailable() {
                assert!(
                    std::env::var_os("CERTBENCH_REQUIRE_NATIVE").is_none(),
                    "CERTBENCH_REQUIRE_NATIVE is set: {why}"
                );
                eprintln!("note: tests leave out `{m}`: {why}");
            }
        }
        (Method::available().into_iter())
            .filter(|m| !m.verifier().capabilities().mtc)
            .collect()
    })
}

pub fn corpus() -> Corpus {
    let c = Corpus::bundled().expect("bundled corpus");
    assert!(c.failures.is_empty(), "{:?}", c.failures);
    c
}

pub fn chain<'a>(corpus: &'a Corpus, id: &str) -> &'a CorpusChain {
    corpus
        .chains
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no chain {id}"))
}

/// `m` on corpus chain `id` under its own root, at its validation time, for its host: the
/// stages and outcome it recorded (a rejection fails the test).
pub fn verified(m: Method, id: &str) -> Recorder {
    let corpus = corpus();
    let c = chain(&corpus, id);
    let v = m.verifier();
    let store = v.build_roots(&c.roots).expect("roots");
    let mut rec = Recorder::new();
    v.verify(
        &store,
        &c.chain,
        Target::server(&c.host, c.validation_time),
        &mut rec,
    )
    .unwrap_or_else(|e| panic!("{m} on {id}: {e}"));
    rec
}

/// The verdict of `verifier` on `chain` for `host` at `time`, trusting `roots`.
pub fn verdict_with(
    verifier: &dyn DynVerifier,
    roots: &[CertificateDer<'static>],
    chain: &Chain,
    host: &str,
    time: u64,
) -> Result<(), String> {
    let store = verifier.build_roots(roots).expect("roots build");
    let mut rec = Recorder::new();
    verifier
        .verify(&store, chain, Target::server(host, time), &mut rec)
        .map_err(|r| r.reason)
}

/// The verdict of `method` on a corpus chain as stored (its own root, host and time).
pub fn verdict(method: Method, c: &CorpusChain) -> Result<(), String> {
    verdict_with(
        method.verifier().as_ref(),
        &c.roots,
        &c.chain,
        &c.host,
        c.validation_time,
    )
}

/// Whether the operating system's trust store (what `platform` adds to any roots it is
/// given) holds `root`.
pub fn system_trusts(root: &CertificateDer<'_>) -> bool {
    rustls_native_certs::load_native_certs()
        .certs
        .iter()
        .any(|c| c.as_ref() == root.as_ref())
}

/// Whether `method` rejects in OpenSSL's `X509_verify_cert_error_string` words (OpenSSL and
/// AWS-LC).
pub fn speaks_openssl(method: Method) -> bool {
    matches!(method, Method::OpenSsl | Method::AwsLc)
}

/// Whether `method` rejects in rustls' words (rustls' own verifiers, through its error type).
pub fn speaks_rustls(method: Method) -> bool {
    matches!(method, Method::Webpki | Method::Platform)
}

/// Forces `rustlsparallel`'s overlapped path for the rest of this process (it changes which
/// path runs, never a verdict) and returns this thread's path counts now, for
/// [`assert_overlapped_since`].
pub fn force_overlap() -> Paths {
    certbench_core::methods::rustls_parallel::force_overlap(true);
    paths_on_this_thread()
}

/// Asserts that since `before`, every `rustlsparallel` verification on this thread that
/// reached path building took the overlapped path (but those with more candidate checks than
/// `MAX_PRECHECKS`), that at least `min` did, and that `overlapped_calls()` rose with them.
pub fn assert_overlapped_since(before: Paths, min: u64, what: &str) -> Paths {
    let global = certbench_core::methods::rustls_parallel::overlapped_calls();
    let d = paths_on_this_thread().since(before);
    assert_eq!(
        d.overlapped + d.too_many,
        d.walked,
        "{what}: some verifications took rustlsparallel's serial walk although overlap was forced: {d:?}"
    );
    assert!(
        d.overlapped >= min,
        "{what}: only {} verifications took rustlsparallel's overlapped path (expected ≥ {min}): the test compared the serial path with itself",
        d.overlapped
    );
    assert!(global >= d.overlapped, "overlapped_calls() counts them");
    d
}

/// The mirror's certificates, generated once for this test binary (generating them is most of
/// what a driver test would otherwise spend), with the folder they are cached in.
pub fn mirror() -> &'static (certbench::mirror::MirrorSet, tempfile::TempDir) {
    static M: std::sync::OnceLock<(certbench::mirror::MirrorSet, tempfile::TempDir)> =
        std::sync::OnceLock::new();
    M.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let set = certbench::mirror::MirrorSet::load_or_generate(&corpus(), &dir.path().join("m"))
            .unwrap();
        (set, dir)
    })
}

/// `certbench report FILE --html`, with `json` written to FILE (`name`) in a fresh folder: the
/// markdown it prints and the HTML page it writes. Fails the test if the command fails.
pub fn report_with_html(name: &str, json: &[u8]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, json).unwrap();
    let html = dir.path().join("report.html");
    let o = certbench_command()
        .arg("report")
        .arg(&file)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8_lossy(&o.stdout).into_owned();
    (md, std::fs::read_to_string(&html).unwrap())
}

/// The faults every method must reject (the mirror's fault hosts, `rejections.rs`' cases).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The end-entity certificate has expired.
    Expired,
    /// The certificate is not for the host.
    WrongHost,
    /// No path to a trusted root (the root unknown, or intermediates missing).
    Untrusted,
}

/// What a browser's verifier says about `fault` (the start of its reason), in its library's
/// own words; `None` for the other methods.
pub fn browser_reason(method: &str, fault: Fault) -> Option<&'static str> {
    Some(match (method, fault) {
        // GnuTLS's words (`gnutls_certificate_verification_status_print`), and the identity
        // check's, as glib-networking reports them.
        ("gnutls", Fault::Expired) => {
            "The certificate is NOT trusted. The certificate chain uses expired certificate"
        }
        ("gnutls", Fault::WrongHost) => "The certificate's owner does not match the name",
        ("gnutls", Fault::Untrusted) => {
            "The certificate is NOT trusted. The certificate issuer is unknown"
        }
        // BoringSSL's path builder (its VerifyError code, then its first error), and the
        // host check Chromium's X509Certificate::VerifyHostname makes.
        ("chrome", Fault::Expired) => "CERTIFICATE_EXPIRED: Time is after notAfter",
        ("chrome", Fault::WrongHost) => "the host is not among the certificate's dNSName names",
        ("chrome", Fault::Untrusted) => "PATH_NOT_FOUND",
        // mozilla::pkix's result names (MapResultToName), as Firefox's error pages show them.
        ("firefox", Fault::Expired) => "ERROR_EXPIRED_CERTIFICATE",
        ("firefox", Fault::WrongHost) => "ERROR_BAD_CERT_DOMAIN",
        ("firefox", Fault::Untrusted) => "ERROR_UNKNOWN_ISSUER",
        _ => return None,
    })
}

/// The `certbench` binary as a test runs it: with the revocation data made at the test scale
/// (`CERTBENCH_REVOCATION_SCALE=test`: the corpus' and mirror's issuers alone, a tiny filter),
/// since every browser's method checks revocation by default and the tests check verdicts,
/// not the cost of a realistic filter (the benchmarks and docs measure that).
pub fn certbench_command() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_certbench"));
    c.env("CERTBENCH_REVOCATION_SCALE", "test");
    c
}

/// The records of a result file's `text` of `kind` (`{"kind", "schema", "records"}`:
/// schema/src/records), checking its header.
pub fn records(text: &str, kind: &str) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(doc["kind"], kind, "{text}");
    assert_eq!(doc["schema"], 1, "{text}");
    serde_json::from_value(doc["records"].clone()).unwrap()
}
