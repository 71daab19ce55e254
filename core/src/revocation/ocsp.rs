//! A stapled OCSP response (RFC 6960) checked as a rustls user (Servo) would check the
//! `ocsp_response` rustls hands its `ServerCertVerifier`: parsed with RustCrypto's
//! `x509-ocsp` 0.2.1 (over `der`, `spki`, `x509-cert`), its signature verified with rustls'
//! provider algorithms, the digests (SHA-1, SHA-256) from aws-lc-rs.
//!
//! What [`check_stapled`] requires, in order (mozilla::pkix's `pkixocsp.cpp` makes the same
//! checks in the same order):
//! 1. `responseStatus` successful and a `responseType` id-pkix-ocsp-basic (RFC 6960 §4.2.1);
//! 2. the signer (§4.2.2.2): the leaf's issuer itself, when the ResponderID names it (byName:
//!    its subject; byKey: the SHA-1 of its key), or a delegated responder certificate among
//!    the response's `certs` that the ResponderID names, issued by the issuer (its issuer name
//!    and its signature, verified with the issuer's key), with id-kp-OCSPSigning in its EKU
//!    and valid at the verification time; the response's signature verified with that key,
//!    the algorithm picked as rustls-webpki's `verify_signed_data` picks it;
//! 3. the SingleResponse whose CertID is the leaf's (§4.1.1): issuerNameHash over the
//!    issuer's subject Name (DER), issuerKeyHash over its subjectPublicKey bits, with the
//!    CertID's own hash (SHA-1 or SHA-256; others are skipped), and the leaf's serial;
//! 4. its time (§4.2.2.1, §3.2 item 5): thisUpdate no later than now plus
//!    [`THIS_UPDATE_SKEW_SECS`], now no later than nextUpdate when present.
//!
//! Verdicts: `good` is [`Status::Good`], `revoked` is [`Status::Revoked`] at depth 0,
//! `unknown` is [`SoftFail::NoData`]. No response is [`SoftFail::NoData`] unless the leaf
//! carries the must-staple TLS feature (RFC 7633: id-pe-tlsfeature listing status_request, 5),
//! which makes it [`RevocationError::Invalid`] (as Firefox requires a staple for must-staple).
//! Any response that fails a check (malformed, not successful, for another certificate, badly
//! signed, expired or from the future) is an error, never an accept: a rustls user that asks
//! for OCSP hard-fails a bad staple (Firefox's `security.ssl.enable_ocsp_stapling` path
//! rejects an invalid stapled response too; the server could simply have stapled nothing).
//!
//! Left out: a response without nextUpdate is accepted however old (mozilla::pkix caps its
//! age at 10 days); nextUpdate gets no skew (mozilla::pkix adds its day there too); the
//! delegated responder's own revocation status (id-pkix-ocsp-nocheck) is not looked at.

use aws_lc_rs::digest;
use der::Decode;
use der::asn1::ObjectIdentifier;
use rustls_pki_types::SignatureVerificationAlgorithm;
use x509_ocsp::{
    BasicOcspResponse, CertStatus, OcspResponse, OcspResponseStatus, ResponderId, SingleResponse,
};

use super::crl::{CertFields, Reader, SEQUENCE, signed_parts, tlv_contents, verify_signed};
use super::types::{Mechanism, RevocationError, SoftFail, Status, VerifiedPath};
use crate::der::Spki;

/// How far in the future a response's thisUpdate may be (clock skew): one day, mozilla::pkix's
/// `SLOP_SECONDS` (`Time::ONE_DAY_IN_SECONDS`, `pkixocsp.cpp`).
pub const THIS_UPDATE_SKEW_SECS: u64 = 86_400;

/// id-pkix-ocsp-basic, 1.3.6.1.5.5.7.48.1.1.
const OCSP_BASIC: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.48.1.1");
/// id-sha1 and id-sha256.
const SHA1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.14.3.2.26");
const SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.2.1");
/// id-kp-OCSPSigning, 1.3.6.1.5.5.7.3.9, as DER OID contents.
const OCSP_SIGNING: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x09];
/// The TLS feature `status_request` (RFC 6066's extension number 5).
const STATUS_REQUEST: u8 = 5;

/// Checks the response the server stapled (`None`: it stapled none) for `path`'s leaf at
/// `now_unix`, with `algs` (see the module docs).
pub fn check_stapled(
    response: Option<&[u8]>,
    path: &VerifiedPath<'_>,
    algs: &[&dyn SignatureVerificationAlgorithm],
    now_unix: u64,
) -> Result<Status, RevocationError> {
    let leaf_der = *path
        .certs
        .first()
        .ok_or_else(|| RevocationError::BadPath("no certificate below the anchor".into()))?;
    let leaf = CertFields::parse(leaf_der)
        .map_err(|e| RevocationError::BadPath(format!("the leaf: {e}")))?;
    let Some(response) = response else {
        return if must_staple(&leaf) {
            Err(invalid(
                "no stapled response for a must-staple certificate (RFC 7633)",
            ))
        } else {
            Ok(Status::SoftFail(SoftFail::NoData))
        };
    };
    let issuer = Issuer::of(path)?;

    // 1. A successful basic response.
    let outer = OcspResponse::from_der(response).map_err(|e| corrupt(format!("{e}")))?;
    if outer.response_status != OcspResponseStatus::Successful {
        return Err(invalid(format!(
            "response status {:?}",
            outer.response_status
        )));
    }
    let bytes = outer
        .response_bytes
        .ok_or_else(|| corrupt("a successful response without responseBytes".into()))?;
    if bytes.response_type != OCSP_BASIC {
        return Err(invalid(format!(
            "response type {} is not id-pkix-ocsp-basic",
            bytes.response_type
        )));
    }
    let basic_der = bytes.response.as_bytes();
    let basic = BasicOcspResponse::from_der(basic_der).map_err(|e| corrupt(format!("{e}")))?;
    let (tbs, sig_alg, signature) =
        signed_parts(basic_der).map_err(|e| corrupt(format!("BasicOCSPResponse: {e}")))?;

    // 2. The signer, and the signature.
    let responder = &basic.tbs_response_data.responder_id;
    let signer_spki = if names(responder, issuer.subject_tlv, issuer.key)? {
        issuer.spki
    } else {
        delegated(basic_der, responder, &issuer, algs, now_unix)?
    };
    verify_signed(algs, signer_spki, sig_alg, tbs, signature)
        .map_err(|e| invalid(format!("the response's signature: {e}")))?;

    // 3. The leaf's SingleResponse.
    let single = basic
        .tbs_response_data
        .responses
        .iter()
        .find(|single| for_leaf(single, &issuer, leaf.serial))
        .ok_or_else(|| invalid("the response is not for this certificate"))?;

    // 4. Its time.
    let this_update = single.this_update.0.to_unix_duration().as_secs();
    if this_update > now_unix.saturating_add(THIS_UPDATE_SKEW_SECS) {
        return Err(invalid(format!(
            "thisUpdate {this_update} is in the future (time {now_unix})"
        )));
    }
    if let Some(next) = single.next_update {
        let next = next.0.to_unix_duration().as_secs();
        if now_unix > next {
            return Err(invalid(format!(
                "the response expired (nextUpdate {next}, time {now_unix})"
            )));
        }
    }
    Ok(match single.cert_status {
        CertStatus::Good(_) => Status::Good,
        CertStatus::Revoked(_) => Status::Revoked { depth: 0 },
        CertStatus::Unknown(_) => Status::SoftFail(SoftFail::NoData),
    })
}

/// Whether the leaf requires a stapled response: a TLS feature extension listing
/// status_request (RFC 7633 §4.2).
pub fn must_staple_cert(leaf_der: &[u8]) -> bool {
    CertFields::parse(leaf_der).is_ok_and(|leaf| must_staple(&leaf))
}

fn must_staple(leaf: &CertFields<'_>) -> bool {
    let Some(features) = leaf
        .tls_feature
        .and_then(|v| tlv_contents(v, SEQUENCE).ok())
    else {
        return false;
    };
    let mut r = Reader::new(features);
    while let Ok(n) = r.expect(super::crl::INTEGER) {
        if n == [STATUS_REQUEST] {
            return true;
        }
    }
    false
}

/// The leaf's issuer as the check reads it.
struct Issuer<'a> {
    /// Its subject Name, a whole TLV.
    subject_tlv: &'a [u8],
    /// Its subject's contents.
    subject: &'a [u8],
    /// Its SubjectPublicKeyInfo's contents.
    spki: &'a [u8],
    /// Its subjectPublicKey bits (what issuerKeyHash and ResponderID byKey hash).
    key: &'a [u8],
}

impl<'a> Issuer<'a> {
    fn of(path: &VerifiedPath<'a>) -> Result<Issuer<'a>, RevocationError> {
        let bad = |what: &str, e: &str| RevocationError::BadPath(format!("{what}: {e}"));
        let (subject_tlv, subject, spki) = match path.certs.get(1) {
            Some(der) => {
                let f = CertFields::parse(der).map_err(|e| bad("the leaf's issuer", e))?;
                (f.subject_tlv, f.subject, f.spki)
            }
            None => (
                path.anchor_subject,
                tlv_contents(path.anchor_subject, SEQUENCE)
                    .map_err(|e| bad("the anchor's subject", e))?,
                tlv_contents(path.anchor_spki, SEQUENCE).map_err(|e| bad("the anchor's key", e))?,
            ),
        };
        let key = Spki::from_contents(spki)
            .map_err(|e| bad("the issuer's key", &e.to_string()))?
            .key;
        Ok(Issuer {
            subject_tlv,
            subject,
            spki,
            key,
        })
    }
}

/// Whether the ResponderID names the certificate of subject `subject_tlv` and key bits `key`.
fn names(responder: &ResponderId, subject_tlv: &[u8], key: &[u8]) -> Result<bool, RevocationError> {
    Ok(match responder {
        ResponderId::ByName(name) => {
            let name = der::Encode::to_der(name).map_err(|e| corrupt(format!("{e}")))?;
            name == subject_tlv
        }
        ResponderId::ByKey(hash) => {
            hash.as_bytes() == digest::digest(&digest::SHA1_FOR_LEGACY_USE_ONLY, key).as_ref()
        }
    })
}

/// The key (SubjectPublicKeyInfo contents) of the delegated responder certificate among the
/// response's `certs` that the ResponderID names (RFC 6960 §4.2.2.2).
fn delegated<'b>(
    basic_der: &'b [u8],
    responder: &ResponderId,
    issuer: &Issuer<'_>,
    algs: &[&dyn SignatureVerificationAlgorithm],
    now_unix: u64,
) -> Result<&'b [u8], RevocationError> {
    let certs = response_certs(basic_der).map_err(|e| corrupt(format!("certs: {e}")))?;
    let mut why = "no certificate in the response is the responder's";
    for cert in certs {
        let fields =
            CertFields::parse(cert).map_err(|e| corrupt(format!("a responder cert: {e}")))?;
        let key = Spki::from_contents(fields.spki)
            .map_err(|e| corrupt(format!("a responder key: {e}")))?
            .key;
        if !names(responder, fields.subject_tlv, key)? {
            continue;
        }
        if fields.issuer != issuer.subject {
            why = "the responder certificate is not issued by the certificate's issuer";
            continue;
        }
        let parts = crate::der::SignedParts::parse(cert)
            .map_err(|e| corrupt(format!("the responder cert: {e}")))?;
        if verify_signed(algs, issuer.spki, parts.sig_alg, parts.tbs, parts.signature).is_err() {
            why = "the responder certificate's signature does not verify with the issuer's key";
            continue;
        }
        if !has_ocsp_signing(fields.eku) {
            why = "the responder certificate lacks id-kp-OCSPSigning";
            continue;
        }
        match crate::der::validity(cert) {
            Some((from, until)) if from <= now_unix && now_unix <= until => {}
            _ => {
                why = "the responder certificate is not valid at the verification time";
                continue;
            }
        }
        return Ok(fields.spki);
    }
    Err(invalid(why))
}

/// The certificates after a BasicOCSPResponse's signature (`certs [0] EXPLICIT SEQUENCE OF
/// Certificate OPTIONAL`), each a whole DER TLV.
fn response_certs(basic_der: &[u8]) -> Result<Vec<&[u8]>, &'static str> {
    let mut r = Reader::new(tlv_contents(basic_der, SEQUENCE)?);
    for _ in 0..3 {
        r.next()?; // tbsResponseData, signatureAlgorithm, signature
    }
    let mut out = Vec::new();
    if r.peek().is_none() {
        return Ok(out);
    }
    let mut seq = Reader::new(tlv_contents(r.expect(0xa0)?, SEQUENCE)?);
    while seq.peek().is_some() {
        let (tag, _, cert) = seq.next()?;
        if tag != SEQUENCE {
            return Err("a certificate that is not a SEQUENCE");
        }
        out.push(cert);
    }
    Ok(out)
}

fn has_ocsp_signing(eku: Option<&[u8]>) -> bool {
    let Some(purposes) = eku.and_then(|v| tlv_contents(v, SEQUENCE).ok()) else {
        return false;
    };
    let mut r = Reader::new(purposes);
    while let Ok(oid) = r.expect(super::crl::OID) {
        if oid == OCSP_SIGNING {
            return true;
        }
    }
    false
}

/// Whether the SingleResponse's CertID is the leaf's (RFC 6960 §4.1.1).
fn for_leaf(single: &SingleResponse, issuer: &Issuer<'_>, serial: &[u8]) -> bool {
    let id = &single.cert_id;
    if id.serial_number.as_bytes() != serial {
        return false;
    }
    let alg = match id.hash_algorithm.oid {
        SHA1 => &digest::SHA1_FOR_LEGACY_USE_ONLY,
        SHA256 => &digest::SHA256,
        _ => return false,
    };
    id.issuer_name_hash.as_bytes() == digest::digest(alg, issuer.subject_tlv).as_ref()
        && id.issuer_key_hash.as_bytes() == digest::digest(alg, issuer.key).as_ref()
}

fn corrupt(detail: String) -> RevocationError {
    RevocationError::Corrupt {
        mechanism: Mechanism::Ocsp,
        detail,
    }
}

fn invalid(detail: impl Into<String>) -> RevocationError {
    RevocationError::Invalid {
        mechanism: Mechanism::Ocsp,
        detail: detail.into(),
    }
}

#[cfg(test)]
#[path = "ocsp_tests.rs"]
mod tests;
