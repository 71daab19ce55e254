//! Key classes read without a crypto library: what signed a certificate ([`Signer`], from its
//! signature algorithm and length), the ML-DSA parameter sets in a chain ([`MlDsa`]), and a
//! certificate's own key type ([`key_type`], as samples record it).
//!
//! Invariant: an unknown algorithm is `Signer::Other`, `None` or `unknown`, never an error.

use super::cert::{SignedParts, Spki};
use super::reader::{BIT_STRING, Der, INTEGER, SEQUENCE};

/// What made a certificate's signature — its issuer's key class — as its signature algorithm
/// and length tell, without a crypto library: an RSA signature is as long as the modulus; an
/// ECDSA one is a DER pair of two integers of the curve's size (P-256 about 70 bytes, P-384
/// about 102, P-521 about 137).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signer {
    /// RSA (PKCS#1 v1.5 or PSS) with a modulus of this many bits.
    Rsa {
        /// Modulus size in bits (the signature's length × 8).
        bits: usize,
    },
    /// ECDSA on P-256.
    EcdsaP256,
    /// ECDSA on P-384.
    EcdsaP384,
    /// ECDSA on P-521.
    EcdsaP521,
    /// Ed25519.
    Ed25519,
    /// ML-DSA-44 (FIPS 204; RFC 9881 in X.509).
    MlDsa44,
    /// ML-DSA-65.
    MlDsa65,
    /// ML-DSA-87.
    MlDsa87,
    /// Any other algorithm.
    Other,
}

impl Signer {
    /// The ML-DSA parameter set, for the ML-DSA signers.
    pub fn ml_dsa(self) -> Option<MlDsa> {
        match self {
            Signer::MlDsa44 => Some(MlDsa::P44),
            Signer::MlDsa65 => Some(MlDsa::P65),
            Signer::MlDsa87 => Some(MlDsa::P87),
            _ => None,
        }
    }
}

/// An ML-DSA parameter set (FIPS 204), the post-quantum signatures RFC 9881 puts in X.509.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MlDsa {
    /// ML-DSA-44: 1,312-byte public keys, 2,420-byte signatures.
    P44,
    /// ML-DSA-65: 1,952-byte public keys, 3,309-byte signatures.
    P65,
    /// ML-DSA-87: 2,592-byte public keys, 4,627-byte signatures.
    P87,
}

impl MlDsa {
    /// `ML-DSA-44`, `ML-DSA-65`, `ML-DSA-87`: the key type's name in samples and tables.
    pub fn name(self) -> &'static str {
        match self {
            MlDsa::P44 => "ML-DSA-44",
            MlDsa::P65 => "ML-DSA-65",
            MlDsa::P87 => "ML-DSA-87",
        }
    }

    /// The parameter set whose OID (the whole AlgorithmIdentifier contents: RFC 9881 says its
    /// parameters are absent) is `alg`.
    fn from_alg(alg: &[u8]) -> Option<MlDsa> {
        ML_DSA
            .iter()
            .find(|(oid, _)| alg == *oid)
            .map(|(_, set)| *set)
    }
}

/// The ML-DSA AlgorithmIdentifier contents (the OID TLV; parameters absent, RFC 9881 §2),
/// 2.16.840.1.101.3.4.3.17–19.
const ML_DSA: &[(&[u8], MlDsa)] = &[
    (
        &[6, 9, 0x60, 0x86, 0x48, 1, 0x65, 3, 4, 3, 0x11],
        MlDsa::P44,
    ),
    (
        &[6, 9, 0x60, 0x86, 0x48, 1, 0x65, 3, 4, 3, 0x12],
        MlDsa::P65,
    ),
    (
        &[6, 9, 0x60, 0x86, 0x48, 1, 0x65, 3, 4, 3, 0x13],
        MlDsa::P87,
    ),
];

/// The ML-DSA parameter sets a chain needs a verifier to know: those of the certificates'
/// keys and of their signatures (an ML-DSA root's shows in the signature of what it signed),
/// in order, without repeats; empty for a classical chain. Malformed certificates add nothing
/// (the verifier rejects them).
pub fn ml_dsa_in<'a>(certs: impl IntoIterator<Item = &'a [u8]>) -> Vec<MlDsa> {
    let mut found = Vec::new();
    for der in certs {
        let key = SignedParts::parse(der)
            .ok()
            .and_then(|p| MlDsa::from_alg(p.spki.alg));
        let sig = signer(der).and_then(Signer::ml_dsa);
        for set in [key, sig].into_iter().flatten() {
            if !found.contains(&set) {
                found.push(set);
            }
        }
    }
    found.sort();
    found
}

/// DER of the OID arcs the signature algorithms of [`Signer`] start with (tag and length
/// included): ecdsa-with-SHA2 (1.2.840.10045.4.3), pkcs-1 (1.2.840.113549.1.1), Ed25519.
const ECDSA_WITH_SHA2: &[u8] = &[6, 8, 0x2a, 0x86, 0x48, 0xce, 0x3d, 4, 3];
const PKCS1: &[u8] = &[6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 1];

/// The [`Signer`] of a certificate, reading only the DER headers before its signature; `None`
/// if those do not parse.
pub fn signer(der: &[u8]) -> Option<Signer> {
    let mut outer = Der::new(der);
    let mut c = Der::new(outer.expect(SEQUENCE).ok()?);
    c.next().ok()?; // tbsCertificate
    let alg = c.expect(SEQUENCE).ok()?;
    let len = c.expect(BIT_STRING).ok()?.len().checked_sub(1)?;
    if let Some(set) = MlDsa::from_alg(alg) {
        return Some(match set {
            MlDsa::P44 => Signer::MlDsa44,
            MlDsa::P65 => Signer::MlDsa65,
            MlDsa::P87 => Signer::MlDsa87,
        });
    }
    Some(if alg.starts_with(ECDSA_WITH_SHA2) {
        match len {
            ..=73 => Signer::EcdsaP256,
            74..=105 => Signer::EcdsaP384,
            _ => Signer::EcdsaP521,
        }
    } else if alg.starts_with(PKCS1) {
        Signer::Rsa { bits: len * 8 }
    } else if alg == ED25519 {
        Signer::Ed25519
    } else {
        Signer::Other
    })
}

/// Key type of a certificate's public key: `RSA-2048`, `ECDSA-P256`, `ECDSA-P384`,
/// `ECDSA-P521`, `Ed25519`, `ML-DSA-44`, `ML-DSA-65`, `ML-DSA-87`, or `unknown` (read from its DER, without a crypto library).
pub fn key_type(cert: &[u8]) -> String {
    SignedParts::parse(cert)
        .ok()
        .and_then(|parts| spki_key_type(parts.spki))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// DER of the OIDs [`key_type`] names (tag and length included).
const RSA_ENCRYPTION: &[u8] = &[6, 9, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 1, 1, 1];
const EC_PUBLIC_KEY: &[u8] = &[6, 7, 0x2a, 0x86, 0x48, 0xce, 0x3d, 2, 1];
const ED25519: &[u8] = &[6, 3, 0x2b, 0x65, 0x70];
const CURVES: &[(&[u8], &str)] = &[
    (&[6, 8, 0x2a, 0x86, 0x48, 0xce, 0x3d, 3, 1, 7], "P256"),
    (&[6, 5, 0x2b, 0x81, 4, 0, 0x22], "P384"),
    (&[6, 5, 0x2b, 0x81, 4, 0, 0x23], "P521"),
];

fn spki_key_type(spki: Spki<'_>) -> Option<String> {
    if let Some(params) = spki.alg.strip_prefix(EC_PUBLIC_KEY) {
        let curve = CURVES
            .iter()
            .find(|(oid, _)| params == *oid)
            .map_or("unknown", |(_, name)| name);
        return Some(format!("ECDSA-{curve}"));
    }
    if spki.alg == ED25519 {
        return Some("Ed25519".to_owned());
    }
    if let Some(set) = MlDsa::from_alg(spki.alg) {
        return Some(set.name().to_owned());
    }
    if spki.alg.starts_with(RSA_ENCRYPTION) {
        // RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }
        let mut r = Der::new(spki.key);
        let mut key = Der::new(r.expect(SEQUENCE).ok()?);
        let modulus = key.expect(INTEGER).ok()?;
        let significant: &[u8] = match modulus.iter().position(|&b| b != 0) {
            Some(first) => &modulus[first..],
            None => &[],
        };
        let bits = significant
            .first()
            .map_or(0, |&b| significant.len() * 8 - b.leading_zeros() as usize);
        return Some(format!("RSA-{bits}"));
    }
    None
}
