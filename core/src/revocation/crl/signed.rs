//! Signed DER structures (a CRL, a BasicOCSPResponse): their signed parts ([`signed_parts`],
//! [`split_signed`]), the signature check as webpki picks the algorithm ([`verify_signed`]),
//! and the times read from them ([`next_update`], [`time_tlv`]).

use rustls_pki_types::SignatureVerificationAlgorithm;

use super::entry::SignedRanges;
use super::fields::{BIT_STRING, INTEGER, Reader, SEQUENCE, tlv_contents};
use crate::der::Spki;

/// Verifies a signature as rustls-webpki's `verify_signed_data` picks the algorithm: among
/// `algs` whose `signature_alg_id` is `sig_alg` (an AlgorithmIdentifier's contents), the first
/// whose `public_key_alg_id` is the key's; `spki` is a SubjectPublicKeyInfo's contents.
pub(crate) fn verify_signed(
    algs: &[&dyn SignatureVerificationAlgorithm],
    spki: &[u8],
    sig_alg: &[u8],
    msg: &[u8],
    signature: &[u8],
) -> Result<(), String> {
    let key = Spki::from_contents(spki).map_err(|e| format!("issuer key: {e}"))?;
    let mut wrong_key = false;
    for alg in algs
        .iter()
        .filter(|a| a.signature_alg_id().as_ref() == sig_alg)
    {
        if alg.public_key_alg_id().as_ref() != key.alg {
            wrong_key = true;
            continue;
        }
        return alg
            .verify_signature(key.key, msg, signature)
            .map_err(|_| "invalid signature for the issuer's key".to_owned());
    }
    Err(if wrong_key {
        "signature algorithm not for the issuer's key type".to_owned()
    } else {
        "unsupported signature algorithm".to_owned()
    })
}

/// Splits a signed DER structure (a CRL or a BasicOCSPResponse: SEQUENCE { tbs, algorithm,
/// BIT STRING, ... }) into its signed parts' ranges.
pub(crate) fn split_signed(der: &[u8]) -> Result<SignedRanges, &'static str> {
    let (tbs, alg, sig) = signed_parts(der)?;
    let at = |part: &[u8]| {
        let start = part.as_ptr() as usize - der.as_ptr() as usize;
        (start, start + part.len())
    };
    Ok(SignedRanges {
        tbs: at(tbs),
        alg: at(alg),
        sig: at(sig),
    })
}

/// A signed structure's (tbs, signatureAlgorithm, signature), as [`signed_parts`] gives them.
pub(crate) type SignedParts<'a> = (&'a [u8], &'a [u8], &'a [u8]);

/// A signed structure's tbs TLV, its signatureAlgorithm's contents and its signature (the BIT
/// STRING's contents after the unused-bits octet, which must be 0). Fields after the
/// signature (a BasicOCSPResponse's `certs`) are allowed.
pub(crate) fn signed_parts(der: &[u8]) -> Result<SignedParts<'_>, &'static str> {
    let mut r = Reader::new(tlv_contents(der, SEQUENCE)?);
    let (tag, _, tbs) = r.next()?;
    if tag != SEQUENCE {
        return Err("the signed data is not a SEQUENCE");
    }
    let alg = r.expect(SEQUENCE)?;
    match r.expect(BIT_STRING)?.split_first() {
        Some((0, sig)) => Ok((tbs, alg, sig)),
        _ => Err("a signature BIT STRING with unused bits"),
    }
}

/// A CRL's nextUpdate (Unix seconds), from its tbsCertList.
pub(crate) fn next_update(der: &[u8], tbs: (usize, usize)) -> Option<u64> {
    let mut t = Reader::new(tlv_contents(&der[tbs.0..tbs.1], SEQUENCE).ok()?);
    if t.peek() == Some(INTEGER) {
        t.next().ok()?; // version
    }
    t.expect(SEQUENCE).ok()?; // signature
    t.expect(SEQUENCE).ok()?; // issuer
    t.next().ok()?; // thisUpdate
    let (_, _, next) = t.next().ok()?;
    time_tlv(next)
}

/// A DER time TLV (UTCTime or GeneralizedTime), in Unix seconds.
pub(crate) fn time_tlv(tlv: &[u8]) -> Option<u64> {
    use der::Decode;
    let t = match tlv.first()? {
        0x17 => der::asn1::UtcTime::from_der(tlv).ok()?.to_unix_duration(),
        0x18 => der::asn1::GeneralizedTime::from_der(tlv)
            .ok()?
            .to_unix_duration(),
        _ => return None,
    };
    Some(t.as_secs())
}
