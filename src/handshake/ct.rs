//! `certbench handshake --ct`: the run's certificate with SCTs embedded, and the CT logs they
//! are from, which the run's clients trust as they trust its CA.
//!
//! The chain is made as [`crate::tls::certs`] makes it (the same names, key types, validity
//! and, with `intermediate`, depth), and its leaf is issued with two SCTs (RFC 6962 §3.3) from
//! two logs made for the run, each of its own operator: what Chrome's and Firefox's policies
//! ask of a certificate of up to 180 days. No other log list knows these logs, so the run
//! takes no `--ct-logs`.

use std::sync::Arc;

use certbench_core::ct::CtLogs;
use rcgen::{CertificateParams, Issuer, KeyPair};
use rustls_pki_types::CertificateDer;

use super::error::HandshakeError;
use crate::mirror::ct::{MirrorLog, SctSpec, issue_with_scts};
use crate::tls::KeyType;
use crate::tls::certs::{ServerCert, ca_params, keypair, leaf_params};

/// Where the run's logs come from, as samples and titles name it.
pub const ORIGIN: &str = "the handshake run";

fn ct_error(e: impl std::fmt::Display) -> HandshakeError {
    HandshakeError::Setup(format!("the certificate's SCTs: {e}"))
}

/// A CA of the run's chain, as the revocation data generators need it
/// ([`super::revocation`]): its certificate, its parameters and its key, which sign its CRL
/// (and, for the leaf's issuer, the stapled OCSP response).
pub struct Ca {
    /// Its certificate.
    pub der: CertificateDer<'static>,
    /// What it was made from.
    pub params: CertificateParams,
    /// Its key.
    pub key: KeyPair,
}

/// The run's chain with SCTs, the logs of its SCTs and its CAs.
pub struct Signed {
    /// The chain the server sends, its key and the root the clients trust.
    pub cert: ServerCert,
    /// The logs of the leaf's SCTs, as the clients know them.
    pub logs: Arc<CtLogs>,
    /// The CAs, the leaf's issuer first (with `intermediate`: intermediate, then root).
    pub cas: Vec<Ca>,
}

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
    let now = time::OffsetDateTime::now_utc();
    let gen_err = HandshakeError::Generate;
    let logs: Vec<MirrorLog> = (1..=2)
        .map(|i| {
            MirrorLog::generate(
                &format!("certbench handshake log {i}"),
                &format!("certbench handshake operator {i}"),
            )
        })
        .collect::<Result<_, _>>()
        .map_err(ct_error)?;
    // Logged half a day ago: after the leaf's notBefore, before any validation time.
    let timestamp_ms =
        u64::try_from((now - time::Duration::hours(12)).unix_timestamp()).map_err(ct_error)? * 1000;
    let scts: Vec<SctSpec<'_>> = logs
        .iter()
        .map(|log| SctSpec {
            log,
            timestamp_ms,
            extensions: Vec::new(),
            corrupt_signature: false,
        })
        .collect();

    let ca = |name: &str, signer: Option<&Ca>| -> Result<Ca, HandshakeError> {
        let key_pair = keypair(key).map_err(gen_err)?;
        let params = ca_params(now, format!("certbench handshake {name} ({key})"));
        let cert = match signer {
            None => params.self_signed(&key_pair),
            Some(s) => params.signed_by(&key_pair, &Issuer::new(s.params.clone(), &s.key)),
        };
        Ok(Ca {
            der: cert.map_err(gen_err)?.der().clone(),
            params,
            key: key_pair,
        })
    };
    // The server sends leaf and its issuer (the CA itself without `intermediate`, as
    // `certs::generate` makes it).
    let mut cas = vec![ca(if intermediate { "root" } else { "CA" }, None)?];
    if intermediate {
        let inter = ca("intermediate", Some(&cas[0]))?;
        cas.insert(0, inter);
    }
    let leaf_key = keypair(key).map_err(gen_err)?;
    let issuer = Issuer::new(cas[0].params.clone(), &cas[0].key);
    let leaf = issue_with_scts(
        &leaf_params(now).map_err(gen_err)?,
        &leaf_key,
        &issuer,
        &scts,
    )
    .map_err(ct_error)?;

    let known = logs.iter().map(MirrorLog::ct_log).collect();
    let root = cas.last().expect("a root").der.clone();
    Ok(Signed {
        cert: ServerCert {
            chain: vec![leaf.der().clone(), cas[0].der.clone()],
            key: leaf_key.serialize_der(),
            ca: root,
        },
        logs: Arc::new(CtLogs::new(known, ORIGIN)),
        cas,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::Method;
    use crate::stages::Recorder;
    use crate::tls::certs::SERVER_NAME;
    use crate::verifier::Target;

    /// The chain verifies with its CT check under Chrome's policy (rustlsserial's), both shapes.
    #[test]
    fn the_chain_passes_a_ct_check_against_its_own_logs() {
        for intermediate in [false, true] {
            let (cert, logs) = generate(KeyType::P256, intermediate).unwrap();
            assert_eq!(cert.chain.len(), 2);
            let v = Method::RustlsSerial.verifier();
            let roots = v.build_roots(std::slice::from_ref(&cert.ca)).unwrap();
            let chain = crate::chain::Chain {
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
