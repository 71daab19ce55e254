//! The test servers' certificates (the loopback handshake server's, the in-memory pairs'): a
//! fresh CA and a leaf for [`SERVER_NAME`] with the requested key type (rcgen, aws-lc-rs);
//! and for `certbench handshake --ct`/`--revocation`, the same chain with two SCTs embedded
//! in its leaf, keeping its CAs' keys ([`with_scts`]).
//!
//! Every certificate is valid from a day ago for thirty days: a run is over long before.

use std::sync::Arc;

use certbench_core::ct::CtLogs;
use rcgen::{
    CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
};
use rustls_pki_types::CertificateDer;

use super::ca::{self, GenError, Signs};
use super::ct::{CtError, MirrorLog, SctSpec, issue_with_scts};
use crate::tls::KeyType;

/// The name the server's leaf is for, and the clients ask for.
pub const SERVER_NAME: &str = "handshake.certbench.test";

/// A leaf ← CA pair.
pub struct ServerCert {
    /// Leaf then CA (the chain the server sends).
    pub chain: Vec<CertificateDer<'static>>,
    /// The leaf's key, PKCS#8 DER.
    pub key: Vec<u8>,
    /// The CA the clients trust.
    pub ca: CertificateDer<'static>,
}

/// A fresh key of `key`'s type.
fn keypair(key: KeyType) -> Result<KeyPair, rcgen::Error> {
    match key {
        KeyType::Rsa2048 => {
            KeyPair::generate_rsa_for(&rcgen::PKCS_RSA_SHA256, rcgen::RsaKeySize::_2048)
        }
        KeyType::P256 => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256),
        KeyType::P384 => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384),
    }
}

/// Makes a root CA, an intermediate CA it issues and a leaf the intermediate issues, all with
/// `key`'s type; the server sends leaf and intermediate, the clients trust the root: two
/// signature checks per verification (what `rustlsparallel` can overlap).
pub fn generate_with_intermediate(key: KeyType) -> Result<ServerCert, GenError> {
    let now = time::OffsetDateTime::now_utc();
    let root_key = keypair(key)?;
    let root_params = ca_params(now, format!("certbench handshake root ({key})"));
    let root = root_params.self_signed(&root_key)?;
    let root_issuer = Issuer::new(root_params, &root_key);
    let inter_key = keypair(key)?;
    let inter_params = ca_params(now, format!("certbench handshake intermediate ({key})"));
    let inter = inter_params.signed_by(&inter_key, &root_issuer)?;
    let inter_issuer = Issuer::new(inter_params, &inter_key);
    let leaf_key = keypair(key)?;
    let leaf = leaf_params(now)?.signed_by(&leaf_key, &inter_issuer)?;
    Ok(ServerCert {
        chain: vec![leaf.der().clone(), inter.der().clone()],
        key: leaf_key.serialize_der(),
        ca: root.der().clone(),
    })
}

/// A test CA's parameters: `name`, valid from a day before `now` for thirty days.
fn ca_params(now: time::OffsetDateTime, name: String) -> CertificateParams {
    let (from, to) = (
        now - time::Duration::days(1),
        now + time::Duration::days(30),
    );
    ca::params(ca::common_name(name), Signs::CertsAndCrls, from, to)
}

/// The leaf's parameters: [`SERVER_NAME`], a server's, valid as the CAs are.
fn leaf_params(now: time::OffsetDateTime) -> Result<CertificateParams, rcgen::Error> {
    let mut leaf = CertificateParams::new(vec![SERVER_NAME.to_owned()])?;
    leaf.distinguished_name
        .push(DnType::CommonName, SERVER_NAME);
    leaf.is_ca = IsCa::ExplicitNoCa;
    leaf.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    leaf.not_before = now - time::Duration::days(1);
    leaf.not_after = now + time::Duration::days(30);
    Ok(leaf)
}

/// Makes a CA and a leaf, both with `key`'s type.
pub fn generate(key: KeyType) -> Result<ServerCert, GenError> {
    let now = time::OffsetDateTime::now_utc();
    let ca_key = keypair(key)?;
    let ca = ca_params(now, format!("certbench handshake CA ({key})"));
    let ca_cert = ca.self_signed(&ca_key)?;
    let issuer = Issuer::new(ca, &ca_key);
    let leaf_key = keypair(key)?;
    let leaf_cert = leaf_params(now)?.signed_by(&leaf_key, &issuer)?;
    Ok(ServerCert {
        chain: vec![leaf_cert.der().clone(), ca_cert.der().clone()],
        key: leaf_key.serialize_der(),
        ca: ca_cert.der().clone(),
    })
}

/// A CA of the chain [`with_scts`] makes, kept for the revocation data of the run: its
/// certificate, its parameters and its key, which sign its CRL (and, for the leaf's issuer,
/// the stapled OCSP response).
pub struct Ca {
    /// Its certificate.
    pub der: CertificateDer<'static>,
    /// What it was made from.
    pub params: CertificateParams,
    /// Its key.
    pub key: KeyPair,
}

impl Ca {
    /// The CA as the signer of a CRL ([`super::crl`]).
    pub fn signer(&self) -> Issuer<'_, &KeyPair> {
        Issuer::new(self.params.clone(), &self.key)
    }
}

/// The chain with SCTs, the logs of its SCTs and its CAs.
pub struct Signed {
    /// The chain the server sends, its key and the root the clients trust.
    pub cert: ServerCert,
    /// The logs of the leaf's SCTs, as the clients know them (named for `origin`).
    pub logs: Arc<CtLogs>,
    /// The CAs, the leaf's issuer first (with `intermediate`: intermediate, then root).
    pub cas: Vec<Ca>,
}

/// Why [`with_scts`] failed.
#[derive(Debug, thiserror::Error)]
pub enum SignedError {
    /// A key or a certificate (rcgen's own message).
    #[error(transparent)]
    Generate(#[from] GenError),
    /// A log, or the leaf's SCTs.
    #[error("{0}")]
    Sct(String),
}

impl From<rcgen::Error> for SignedError {
    fn from(e: rcgen::Error) -> SignedError {
        SignedError::Generate(e.into())
    }
}

impl From<CtError> for SignedError {
    fn from(e: CtError) -> SignedError {
        SignedError::Sct(e.to_string())
    }
}

/// A leaf ← CA chain (with `intermediate`, leaf ← intermediate ← root) made as [`generate`]
/// makes it (the same names, key types, validity and, with `intermediate`, depth), its leaf
/// issued with two SCTs (RFC 6962 §3.3) from two logs made for it, each of its own operator:
/// what Chrome's and Firefox's policies ask of a certificate of up to 180 days. The logs are
/// named `certbench handshake log 1` and `2`, and known to the clients as from `origin`.
pub fn with_scts(key: KeyType, intermediate: bool, origin: &str) -> Result<Signed, SignedError> {
    let now = time::OffsetDateTime::now_utc();
    let logs: Vec<MirrorLog> = (1..=2)
        .map(|i| {
            MirrorLog::generate(
                &format!("certbench handshake log {i}"),
                &format!("certbench handshake operator {i}"),
            )
        })
        .collect::<Result<_, _>>()?;
    // Logged half a day ago: after the leaf's notBefore, before any validation time.
    let timestamp_ms = u64::try_from((now - time::Duration::hours(12)).unix_timestamp())
        .map_err(|e| SignedError::Sct(e.to_string()))?
        * 1000;
    let scts: Vec<SctSpec<'_>> = logs
        .iter()
        .map(|log| SctSpec {
            log,
            timestamp_ms,
            extensions: Vec::new(),
            corrupt_signature: false,
        })
        .collect();

    let ca = |name: &str, signer: Option<&Ca>| -> Result<Ca, SignedError> {
        let key_pair = keypair(key)?;
        let params = ca_params(now, format!("certbench handshake {name} ({key})"));
        let cert = match signer {
            None => params.self_signed(&key_pair),
            Some(s) => params.signed_by(&key_pair, &s.signer()),
        };
        Ok(Ca {
            der: cert?.der().clone(),
            params,
            key: key_pair,
        })
    };
    // The server sends leaf and its issuer (the CA itself without `intermediate`, as
    // [`generate`] makes it).
    let mut cas = vec![ca(if intermediate { "root" } else { "CA" }, None)?];
    if intermediate {
        let inter = ca("intermediate", Some(&cas[0]))?;
        cas.insert(0, inter);
    }
    let leaf_key = keypair(key)?;
    let leaf = issue_with_scts(&leaf_params(now)?, &leaf_key, &cas[0].signer(), &scts)?;

    let known = logs.iter().map(MirrorLog::ct_log).collect();
    let root = cas.last().expect("a root").der.clone();
    Ok(Signed {
        cert: ServerCert {
            chain: vec![leaf.der().clone(), cas[0].der.clone()],
            key: leaf_key.serialize_der(),
            ca: root,
        },
        logs: Arc::new(CtLogs::new(known, origin)),
        cas,
    })
}
