//! The test servers' certificates (the loopback handshake server's, the in-memory pairs'): a
//! fresh CA and a leaf for [`SERVER_NAME`] with the requested key type (rcgen, aws-lc-rs).

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls_pki_types::CertificateDer;

use super::KeyType;

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

pub(crate) fn keypair(key: KeyType) -> Result<KeyPair, rcgen::Error> {
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
pub fn generate_with_intermediate(key: KeyType) -> Result<ServerCert, rcgen::Error> {
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

pub(crate) fn ca_params(now: time::OffsetDateTime, name: String) -> CertificateParams {
    let mut p = CertificateParams::default();
    p.distinguished_name.push(DnType::CommonName, name);
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    p.not_before = now - time::Duration::days(1);
    p.not_after = now + time::Duration::days(30);
    p
}

pub(crate) fn leaf_params(now: time::OffsetDateTime) -> Result<CertificateParams, rcgen::Error> {
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
pub fn generate(key: KeyType) -> Result<ServerCert, rcgen::Error> {
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
