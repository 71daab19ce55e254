//! `certbench handshake --ct`: the run's certificate with SCTs embedded, and the CT logs they
//! are from, which the run's clients trust as they trust its CA.
//!
//! The chain is made by [`crate::certs::test::with_scts`]: as the run's certificate without
//! `--ct` is (the same names, key types, validity and, with `intermediate`, depth), its leaf
//! issued with two SCTs (RFC 6962 §3.3) from two logs made for the run, each of its own
//! operator. No other log list knows these logs, so the run takes no `--ct-logs`.

use std::sync::Arc;

use certbench_core::ct::CtLogs;

use super::error::HandshakeError;
use crate::certs::test::{self as certs, ServerCert, SignedError};
use crate::tls::KeyType;

pub use crate::certs::test::{Ca, Signed};

/// Where the run's logs come from, as samples and titles name it.
pub const ORIGIN: &str = "the handshake run";

/// A leaf ← CA chain (with `intermediate`, leaf ← intermediate ← root), all of `key`'s type,
/// its leaf with two SCTs; and the logs that signed them, as the clients know them.
pub fn generate(
    key: KeyType,
    intermediate: bool,
) -> Result<(ServerCert, Arc<CtLogs>), HandshakeError> {
    let signed = generate_signed(key, intermediate)?;
    Ok((signed.cert, signed.logs))
}

/// [`generate`], keeping the CAs' keys (for `--revocation`'s CRLs and OCSP response).
pub fn generate_signed(key: KeyType, intermediate: bool) -> Result<Signed, HandshakeError> {
    certs::with_scts(key, intermediate, ORIGIN).map_err(|e| match e {
        SignedError::Generate(e) => HandshakeError::Generate(e),
        SignedError::Sct(e) => HandshakeError::Setup(format!("the certificate's SCTs: {e}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs::test::SERVER_NAME;
    use certbench_core::methods::Method;
    use certbench_core::stages::Recorder;
    use certbench_core::verifier::Target;

    /// The chain verifies with its CT check under Chrome's policy (rustlsserial's), both shapes.
    #[test]
    fn the_chain_passes_a_ct_check_against_its_own_logs() {
        for intermediate in [false, true] {
            let (cert, logs) = generate(KeyType::P256, intermediate).unwrap();
            assert_eq!(cert.chain.len(), 2);
            let v = Method::RustlsSerial.verifier();
            let roots = v.build_roots(std::slice::from_ref(&cert.ca)).unwrap();
            let chain = certbench_core::chain::Chain {
                leaf: cert.chain[0].clone(),
                intermediates: cert.chain[1..].to_vec(),
            };
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            let mut rec = Recorder::new();
            let target = Target::server(SERVER_NAME, now).with_ct(Some(&logs));
            v.verify(&roots, &chain, target, &mut rec).unwrap();
            let ct = rec.ct().expect("a CT check");
            assert_eq!((ct.scts, ct.valid, ct.compliant), (2, 2, true), "{ct:?}");
        }
    }
}
