//! Helpers shared by the integration tests.
#![allow(dead_code)]

use certbench::Method;
use certbench::chain::Chain;
use certbench::corpus::{Corpus, CorpusChain};
use certbench::methods::{DynVerifier, Target};
use certbench::stages::Recorder;
use rustls_pki_types::CertificateDer;

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

/// Whether the method is one of rustls' own verifiers, which speak rustls' error messages.
pub fn speaks_rustls(method: Method) -> bool {
    matches!(method, Method::Webpki | Method::Platform)
}
