//! OCSP responses for the mirror to staple: a DER `OCSPResponse` (RFC 6960 §4.2.1) of status
//! successful holding a BasicOCSPResponse for one certificate, signed by its issuer's key
//! (no delegated responder), built from `x509-ocsp`'s types. `x509-ocsp`'s own builder
//! (feature `builder`) wants a RustCrypto `signature::Signer`; rcgen's keys are not one, so
//! the ResponseData is encoded here and signed with rcgen's [`SigningKey::sign`].
//!
//! The response is what a CA's responder sends (Let's Encrypt's form): ResponderID byKey
//! (SHA-1 of the issuer's key), producedAt = thisUpdate, one SingleResponse whose CertID uses
//! SHA-1 (RFC 6960 §4.3 and RFC 5019's profile), no nonce, no certs.

use aws_lc_rs::digest;
use certbench_core::der::push_tlv;
use der::asn1::{BitString, GeneralizedTime, Null, OctetString};
use der::{Decode, Encode};
use rcgen::SigningKey;
use rustls_pki_types::alg_id;
use x509_ocsp::{
    BasicOcspResponse, CertId, CertStatus, OcspGeneralizedTime, OcspResponse, ResponderId,
    ResponseData, RevokedInfo, SingleResponse, Version,
};

/// The status a response gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OcspStatus {
    /// `good`.
    Good,
    /// `revoked`, at this time (Unix seconds).
    Revoked {
        /// revocationTime.
        at: u64,
    },
    /// `unknown`.
    Unknown,
}

/// Why a response cannot be made from what was given.
#[derive(Debug, thiserror::Error)]
pub enum OcspGenError {
    /// A certificate that does not parse.
    #[error("the {which} certificate does not parse: {detail}")]
    BadCertificate {
        /// `issuer` or `leaf`.
        which: &'static str,
        /// The parser's words.
        detail: String,
    },
    /// The leaf's issuer name is not the issuer's subject.
    #[error("the leaf is not issued by this issuer (its issuer name is not the issuer's subject)")]
    NotIssuedBy,
    /// The key is not the issuer certificate's.
    #[error("the signing key is not the issuer certificate's key")]
    KeyMismatch,
    /// The key's algorithm has no X.509 signature algorithm here.
    #[error("no signature algorithm for the key's algorithm {0}")]
    UnsupportedKey(String),
    /// nextUpdate not after thisUpdate, or a time out of GeneralizedTime's range.
    #[error("bad times: {0}")]
    BadTime(String),
    /// Encoding or signing failed.
    #[error("encoding or signing the response: {0}")]
    Encode(String),
}

/// A DER OCSPResponse saying `status` for `leaf_der`, signed by its issuer (`issuer_cert_der`
/// and its key `issuer_key`), valid from `this_update` to `next_update` (Unix seconds;
/// `None`: no nextUpdate).
pub fn response(
    issuer_cert_der: &[u8],
    issuer_key: &impl SigningKey,
    leaf_der: &[u8],
    status: OcspStatus,
    this_update: u64,
    next_update: Option<u64>,
) -> Result<Vec<u8>, OcspGenError> {
    let bad = |which: &'static str| {
        move |e: x509_parser::nom::Err<x509_parser::error::X509Error>| {
            OcspGenError::BadCertificate {
                which,
                detail: e.to_string(),
            }
        }
    };
    let (_, issuer) =
        x509_parser::parse_x509_certificate(issuer_cert_der).map_err(bad("issuer"))?;
    let (_, leaf) = x509_parser::parse_x509_certificate(leaf_der).map_err(bad("leaf"))?;
    let subject = issuer.tbs_certificate.subject.as_raw();
    if leaf.tbs_certificate.issuer.as_raw() != subject {
        return Err(OcspGenError::NotIssuedBy);
    }
    if issuer.tbs_certificate.subject_pki.raw != issuer_key.subject_public_key_info().as_slice() {
        return Err(OcspGenError::KeyMismatch);
    }
    let key_bits = issuer
        .tbs_certificate
        .subject_pki
        .subject_public_key
        .data
        .as_ref();
    if next_update.is_some_and(|n| n <= this_update) {
        return Err(OcspGenError::BadTime(format!(
            "nextUpdate {next_update:?} is not after thisUpdate {this_update}"
        )));
    }

    let sha1 = |b: &[u8]| digest::digest(&digest::SHA1_FOR_LEGACY_USE_ONLY, b);
    let enc = |e: der::Error| OcspGenError::Encode(e.to_string());
    let octets = |b: &[u8]| OctetString::new(b).map_err(enc);
    // The leaf's serialNumber TLV, decoded as x509-cert's SerialNumber (its bytes as sent).
    let serial = {
        let mut tlv = Vec::with_capacity(leaf.tbs_certificate.raw_serial().len() + 4);
        push_tlv(&mut tlv, 0x02, leaf.tbs_certificate.raw_serial());
        x509_cert::serial_number::SerialNumber::from_der(&tlv).map_err(enc)?
    };
    let cert_id = CertId {
        hash_algorithm: spki::AlgorithmIdentifierOwned {
            oid: const_oid_sha1(),
            parameters: Some(Null.into()),
        },
        issuer_name_hash: octets(sha1(subject).as_ref())?,
        issuer_key_hash: octets(sha1(key_bits).as_ref())?,
        serial_number: serial,
    };
    let cert_status = match status {
        OcspStatus::Good => CertStatus::good(),
        OcspStatus::Revoked { at } => CertStatus::revoked(RevokedInfo {
            revocation_time: time(at)?,
            revocation_reason: None,
        }),
        OcspStatus::Unknown => CertStatus::unknown(),
    };
    let tbs = ResponseData {
        version: Version::V1,
        responder_id: ResponderId::ByKey(octets(sha1(key_bits).as_ref())?),
        produced_at: time(this_update)?,
        responses: vec![SingleResponse {
            cert_id,
            cert_status,
            this_update: time(this_update)?,
            next_update: next_update.map(time).transpose()?,
            single_extensions: None,
        }],
        response_extensions: None,
    };
    let tbs_der = tbs.to_der().map_err(enc)?;
    let signature = issuer_key
        .sign(&tbs_der)
        .map_err(|e| OcspGenError::Encode(e.to_string()))?;
    let basic = BasicOcspResponse {
        tbs_response_data: tbs,
        signature_algorithm: signature_algorithm(issuer_key)?,
        signature: BitString::from_bytes(&signature).map_err(enc)?,
        certs: None,
    };
    OcspResponse::successful(basic)
        .and_then(|r| r.to_der())
        .map_err(enc)
}

/// id-sha1, 1.3.14.3.2.26.
fn const_oid_sha1() -> der::asn1::ObjectIdentifier {
    der::asn1::ObjectIdentifier::new_unwrap("1.3.14.3.2.26")
}

fn time(unix: u64) -> Result<OcspGeneralizedTime, OcspGenError> {
    GeneralizedTime::from_unix_duration(std::time::Duration::from_secs(unix))
        .map(OcspGeneralizedTime)
        .map_err(|e| OcspGenError::BadTime(format!("{unix}: {e}")))
}

/// The X.509 AlgorithmIdentifier of the signatures `key` makes (rustls-pki-types' `alg_id`
/// encodings, the ones webpki matches).
fn signature_algorithm(
    key: &impl SigningKey,
) -> Result<spki::AlgorithmIdentifierOwned, OcspGenError> {
    let alg = key.algorithm();
    let table: [(&rcgen::SignatureAlgorithm, alg_id::AlgorithmIdentifier); 7] = [
        (&rcgen::PKCS_ECDSA_P256_SHA256, alg_id::ECDSA_SHA256),
        (&rcgen::PKCS_ECDSA_P384_SHA384, alg_id::ECDSA_SHA384),
        (&rcgen::PKCS_ECDSA_P521_SHA512, alg_id::ECDSA_SHA512),
        (&rcgen::PKCS_RSA_SHA256, alg_id::RSA_PKCS1_SHA256),
        (&rcgen::PKCS_RSA_SHA384, alg_id::RSA_PKCS1_SHA384),
        (&rcgen::PKCS_RSA_SHA512, alg_id::RSA_PKCS1_SHA512),
        (&rcgen::PKCS_ED25519, alg_id::ED25519),
    ];
    let (_, id) = table
        .iter()
        .find(|(a, _)| *a == alg)
        .ok_or_else(|| OcspGenError::UnsupportedKey(format!("{alg:?}")))?;
    let mut tlv = Vec::with_capacity(id.as_ref().len() + 4);
    push_tlv(&mut tlv, 0x30, id.as_ref());
    spki::AlgorithmIdentifierOwned::from_der(&tlv).map_err(|e| OcspGenError::Encode(e.to_string()))
}

#[cfg(test)]
#[path = "ocsp_tests.rs"]
mod tests;
