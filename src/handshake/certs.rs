//! The loopback handshake server's certificate: a fresh CA and a leaf for [`SERVER_NAME`]
//! with the requested key type (rcgen, aws-lc-rs).

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

fn keypair(key: KeyType) -> Result<KeyPair, rcgen::Error> {
    match key {
        KeyType::Rsa2048 => {
            KeyPair::generate_rsa_for(&rcgen::PKCS_RSA_SHA256, rcgen::RsaKeySize::_2048)
        }
        KeyType::P256 => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256),
        KeyType::P384 => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384),
    }
}

/// Makes a CA and a leaf, both with `key`'s type.
pub fn generate(key: KeyType) -> Result<ServerCert, rcgen::Error> {
    let now = time::OffsetDateTime::now_utc();
    let ca_key = keypair(key)?;
    let mut ca = CertificateParams::default();
    ca.distinguished_name.push(
        DnType::CommonName,
        format!("certbench handshake CA ({key})"),
    );
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca.not_before = now - time::Duration::days(1);
    ca.not_after = now + time::Duration::days(30);
    let ca_cert = ca.self_signed(&ca_key)?;
    let issuer = Issuer::new(ca, &ca_key);
    let leaf_key = keypair(key)?;
    let mut leaf = CertificateParams::new(vec![SERVER_NAME.to_owned()])?;
    leaf.distinguished_name
        .push(DnType::CommonName, SERVER_NAME);
    leaf.is_ca = IsCa::ExplicitNoCa;
    leaf.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    leaf.not_before = now - time::Duration::days(1);
    leaf.not_after = now + time::Duration::days(30);
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer)?;
    Ok(ServerCert {
        chain: vec![leaf_cert.der().clone(), ca_cert.der().clone()],
        key: leaf_key.serialize_der(),
        ca: ca_cert.der().clone(),
    })
}
