//! The body of the fuzz target (`fuzz/fuzz_targets/verify_chain.rs`), kept in the library so
//! that the ordinary test suite runs it too, on the stable toolchain, over the seeds.
//!
//! Input format: byte 0 picks one of the bundled corpus chains' (host, validation time), and
//! its high bit whether Certificate Transparency is checked (`--ct`, the corpus's logs);
//! the rest is a sequence of certificates, each a 2-byte big-endian length and that many
//! bytes (a last certificate cut short is taken as it is). The first certificate is the leaf.
//!
//! The stores hold the corpus roots and the roots of the committed post-quantum twins
//! ([`crate::corpus::pq_twin_roots_file`]), so that the twins among the seeds (ML-DSA chains)
//! reach their signature checks rather than stopping at an unknown issuer.
//!
//! Invariants checked on every input (a violation panics, which is what a fuzzer reports):
//! reading a certificate's signed parts, key type and embedded SCTs never panics; every method returns a
//! verdict (no panic, no abort) against the corpus roots; `rustlsparallel` gives exactly
//! `rustlsserial`'s verdict, reason included.

use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::corpus::Corpus;
use crate::der::{SignedParts, key_type};
use crate::methods::{AnyRoots, DynVerifier, Method};
use crate::stages::Recorder;
use crate::verifier::Target;

/// Splits an input into the target selector and the certificates.
pub fn decode(data: &[u8]) -> (u8, Vec<&[u8]>) {
    let Some((&selector, mut rest)) = data.split_first() else {
        return (0, Vec::new());
    };
    let mut certs = Vec::new();
    while rest.len() >= 2 {
        let len = usize::from(u16::from_be_bytes([rest[0], rest[1]]));
        let end = (2 + len).min(rest.len());
        certs.push(&rest[2..end]);
        rest = &rest[end..];
    }
    (selector, certs)
}

/// The inverse of [`decode`] (certificates longer than 65,535 bytes are cut).
pub fn encode(selector: u8, certs: &[&[u8]]) -> Vec<u8> {
    let mut out = vec![selector];
    for c in certs {
        let c = &c[..c.len().min(usize::from(u16::MAX))];
        out.extend_from_slice(&(c.len() as u16).to_be_bytes());
        out.extend_from_slice(c);
    }
    out
}

/// Every method with a store built from the bundled corpus roots, and the corpus targets.
pub struct Harness {
    targets: Vec<(String, u64)>,
    methods: Vec<(Method, Box<dyn DynVerifier>, AnyRoots)>,
    /// The corpus's CT logs: an input whose selector has its high bit set is verified with
    /// `--ct` (so every method's SCT parsing and CT policy see hostile leaves too).
    ct: crate::ct::CtLogs,
}

impl Harness {
    /// Loads the bundled corpus and builds every available method's store from its roots (a
    /// browser's verifier that was not built is left out: [`Method::available`]). Forces
    /// `rustlsparallel`'s overlapped path for the process, so that the oracle compares the
    /// parallel path, not the serial walk it falls back to when overlap cannot pay.
    pub fn new() -> Harness {
        crate::methods::rustls_parallel::force_overlap(true);
        let corpus = Corpus::bundled().expect("the bundled corpus loads");
        let mut roots: Vec<CertificateDer<'static>> = corpus.roots();
        let twins = crate::corpus::pq_twin_roots_file();
        if twins.exists() {
            roots.extend(crate::chain::read_pem_certs(&twins).expect("the twins' roots load"));
        }
        let methods: Vec<(Method, Box<dyn DynVerifier>, AnyRoots)> = Method::available()
            .into_iter()
            .map(|m| {
                let v = m.verifier();
                let store = v.build_roots(&roots).expect("corpus roots build");
                (m, v, store)
            })
            .collect();
        let targets = corpus
            .chains
            .iter()
            .map(|c| (c.host.clone(), c.validation_time))
            .collect();
        let ct =
            crate::ct::CtLogs::load(&crate::corpus::bundled_dir().join("../ct-logs/log_list.json"))
                .expect("the corpus's CT logs load");
        for (_, v, _) in &methods {
            v.prepare_ct(&ct);
        }
        Harness {
            targets,
            methods,
            ct,
        }
    }

    /// The seed inputs: every corpus chain as sent, with its own target.
    pub fn seeds() -> Vec<(String, Vec<u8>)> {
        let corpus = Corpus::bundled().expect("the bundled corpus loads");
        corpus
            .chains
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let certs: Vec<&[u8]> = c.chain.iter().map(|d| d.as_ref()).collect();
                (c.id.clone(), encode(i as u8, &certs))
            })
            .collect()
    }

    /// Checks the invariants on one input (see the module documentation).
    pub fn check(&self, data: &[u8]) {
        let (selector, certs) = decode(data);
        for c in &certs {
            let _ = SignedParts::parse(c);
            let _ = key_type(c);
            if let Ok(Some(e)) = crate::der::embedded_scts(c) {
                for sct in crate::ct::sct::split_list(e.list).unwrap_or_default() {
                    let _ = crate::ct::sct::decode(sct);
                }
            }
        }
        let Some((leaf, rest)) = certs.split_first() else {
            return;
        };
        let chain = Chain {
            leaf: CertificateDer::from(leaf.to_vec()),
            intermediates: rest
                .iter()
                .map(|c| CertificateDer::from(c.to_vec()))
                .collect(),
        };
        let (host, time) = &self.targets[usize::from(selector) % self.targets.len()];
        let ct = (selector & 0x80 != 0).then_some(&self.ct);
        let target = Target::server(host, *time).with_ct(ct);
        let mut serial = None;
        let mut parallel = None;
        for (m, v, store) in &self.methods {
            let mut rec = Recorder::new();
            let verdict = v.verify(store, &chain, target, &mut rec);
            match m {
                Method::RustlsSerial => serial = Some(verdict),
                Method::RustlsParallel => parallel = Some(verdict),
                _ => {}
            }
        }
        assert_eq!(
            serial, parallel,
            "rustlsparallel and rustlsserial disagree on this input"
        );
    }
}

impl Default for Harness {
    fn default() -> Self {
        Harness::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_inverts_encode_and_takes_a_short_tail_as_is() {
        let data = encode(7, &[b"abc", b"", b"de"]);
        assert_eq!(decode(&data), (7, vec![&b"abc"[..], &b""[..], &b"de"[..]]));
        assert_eq!(decode(&[1, 0, 5, b'x']), (1, vec![&b"x"[..]]));
        assert_eq!(decode(&[]), (0, vec![]));
        assert_eq!(decode(&[3, 0]), (3, vec![])); // one stray byte: no certificate
    }
}
