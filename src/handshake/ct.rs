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
use rcgen::Issuer;

use super::HandshakeError;
use crate::mirror::ct::{MirrorLog, SctSpec, issue_with_scts};
use crate::tls::KeyType;
use crate::tls::certs::{ServerCert, ca_params, keypair, leaf_params};

/// Where the run's logs come from, as samples and titles name it.
pub const ORIGIN: &str = "the handshake run";

fn ct_error(e: impl std::fmt::Display) -> HandshakeError {
    HandshakeError::Setup(format!("the certificate's SCTs: {e}"))
}

/// A leaf ← CA chain (with `intermediate`, leaf ← intermediate ← root), all of `key`'s type,
/// its leaf with two SCTs; and the logs that signed them, as the clients know them.
pub fn generate(
    key: KeyType,
    intermediate: bool,
) -> Result<(ServerCert, Arc<CtLogs>), HandshakeError> {
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

    let root_key = keypair(key).map_err(gen_err)?;
    let (root_name, issuer_name) = match intermediate {
        true => ("root", "intermediate"),
        false => ("CA", "CA"),
    };
    let root_params = ca_params(now, format!("certbench handshake {root_name} ({key})"));
    let root = root_params.self_signed(&root_key).map_err(gen_err)?;
    let mut chain_tail = Vec::new();
    let inter_key;
    let issuer = if intermediate {
        let root_issuer = Issuer::new(root_params, &root_key);
        inter_key = keypair(key).map_err(gen_err)?;
        let inter_params = ca_params(now, format!("certbench handshake {issuer_name} ({key})"));
        let inter = (inter_params.signed_by(&inter_key, &root_issuer)).map_err(gen_err)?;
        chain_tail.push(inter.der().clone());
        Issuer::new(inter_params, &inter_key)
    } else {
        // The server sends leaf and CA, as `certs::generate` makes it.
        chain_tail.push(root.der().clone());
        Issuer::new(root_params, &root_key)
    };
    let leaf_key = keypair(key).map_err(gen_err)?;
    let leaf = issue_with_scts(
        &leaf_params(now).map_err(gen_err)?,
        &leaf_key,
        &issuer,
        &scts,
    )
    .map_err(ct_error)?;

    let known = logs.iter().map(MirrorLog::ct_log).collect();
    let mut chain = vec![leaf.der().clone()];
    chain.extend(chain_tail);
    Ok((
        ServerCert {
            chain,
            key: leaf_key.serialize_der(),
            ca: root.der().clone(),
        },
        Arc::new(CtLogs::new(known, ORIGIN)),
    ))
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
