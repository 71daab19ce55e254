//! What the revocation checks read of certificates and signed structures, the same way for a
//! CRL (`crl.rs`) and an OCSP response (`ocsp.rs`): a certificate's fields ([`CertFields`]:
//! serial, issuer, subject, key, and the extensions a check reads), a signed structure's parts
//! ([`signed_parts`]), a signature verified as rustls-webpki picks its algorithm
//! ([`verify_signed`]), and DER times.
//!
//! Invariant: nothing here allocates per lookup; every slice borrows the DER it was read from.

use rustls_pki_types::SignatureVerificationAlgorithm;

use crate::der::Spki;

pub(super) use crate::der::{
    BIT_STRING, BOOLEAN, EXTENSIONS, INTEGER, OCTET_STRING, OID, SEQUENCE, VERSION,
};

/// One level of DER TLVs, front to back: the core's reader (single-octet tags, definite
/// lengths of up to four octets: a CRL of millions of entries is tens of MB).
pub(super) use crate::der::Der as Reader;

/// id-ce-keyUsage 2.5.29.15 and id-ce-cRLDistributionPoints 2.5.29.31.
const OID_KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x0f];
const OID_CRL_DPS: &[u8] = &[0x55, 0x1d, 0x1f];
/// id-ce-extKeyUsage 2.5.29.37.
const OID_EKU: &[u8] = &[0x55, 0x1d, 0x25];
/// id-pe-tlsfeature 1.3.6.1.5.5.7.1.24 (RFC 7633).
const OID_TLS_FEATURE: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x18];

/// Verifies a signature as rustls-webpki's `verify_signed_data` picks the algorithm: among
/// `algs` whose `signature_alg_id` is `sig_alg` (an AlgorithmIdentifier's contents), the first
/// whose `public_key_alg_id` is the key's; `spki` is a SubjectPublicKeyInfo's contents.
pub(super) fn verify_signed(
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

/// A signed structure's (tbs, signatureAlgorithm, signature), as [`signed_parts`] gives them.
pub(super) type SignedParts<'a> = (&'a [u8], &'a [u8], &'a [u8]);

/// A signed structure's tbs TLV, its signatureAlgorithm's contents and its signature (the BIT
/// STRING's contents after the unused-bits octet, which must be 0). Fields after the
/// signature (a BasicOCSPResponse's `certs`) are allowed.
pub(super) fn signed_parts(der: &[u8]) -> Result<SignedParts<'_>, &'static str> {
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

/// A DER time TLV (UTCTime or GeneralizedTime), in Unix seconds.
pub(super) fn time_tlv(tlv: &[u8]) -> Option<u64> {
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

/// What a revocation check reads of a certificate.
pub(super) struct CertFields<'a> {
    /// The serial INTEGER's contents (webpki's `lenient_certificate_serial_number`).
    pub(super) serial: &'a [u8],
    /// The issuer Name's contents.
    pub(super) issuer: &'a [u8],
    /// The subject Name's contents.
    pub(super) subject: &'a [u8],
    /// The whole subject Name TLV (what an OCSP CertID's issuerNameHash hashes).
    pub(super) subject_tlv: &'a [u8],
    /// The SubjectPublicKeyInfo's contents.
    pub(super) spki: &'a [u8],
    /// The KeyUsage extension's value (a BIT STRING TLV), if present.
    pub(super) key_usage: Option<&'a [u8]>,
    /// The CRL distribution points extension's value (a SEQUENCE TLV), if present.
    pub(super) crl_dps: Option<&'a [u8]>,
    /// The extended key usage extension's value (a SEQUENCE TLV), if present.
    pub(super) eku: Option<&'a [u8]>,
    /// The TLS feature extension's value (RFC 7633; a SEQUENCE TLV), if present.
    pub(super) tls_feature: Option<&'a [u8]>,
}

impl<'a> CertFields<'a> {
    pub(super) fn parse(der: &'a [u8]) -> Result<CertFields<'a>, &'static str> {
        let mut c = Reader::new(tlv_contents(der, SEQUENCE)?);
        let mut t = Reader::new(c.expect(SEQUENCE)?);
        if t.peek() == Some(VERSION) {
            t.next()?;
        }
        let serial = t.expect(INTEGER)?;
        t.expect(SEQUENCE)?; // signature
        let issuer = t.expect(SEQUENCE)?;
        t.expect(SEQUENCE)?; // validity
        let (tag, subject, subject_tlv) = t.next()?;
        if tag != SEQUENCE {
            return Err("the subject is not a SEQUENCE");
        }
        let spki = t.expect(SEQUENCE)?;
        let mut fields = CertFields {
            serial,
            issuer,
            subject,
            subject_tlv,
            spki,
            key_usage: None,
            crl_dps: None,
            eku: None,
            tls_feature: None,
        };
        for ext in extensions(&mut t)? {
            let (oid, value) = ext?;
            let slot = match oid {
                OID_KEY_USAGE => &mut fields.key_usage,
                OID_CRL_DPS => &mut fields.crl_dps,
                OID_EKU => &mut fields.eku,
                OID_TLS_FEATURE => &mut fields.tls_feature,
                _ => continue,
            };
            if slot.replace(value).is_some() {
                return Err("an extension occurs twice");
            }
        }
        Ok(fields)
    }
}

/// One extension: its OID's contents and its extnValue's contents.
pub(super) type Extension<'a> = Result<(&'a [u8], &'a [u8]), &'static str>;

/// The extensions after a tbsCertificate's subjectPublicKeyInfo (issuer and subject unique
/// IDs skipped): each one's OID contents and extnValue contents.
pub(super) fn extensions<'a>(
    tbs_rest: &mut Reader<'a>,
) -> Result<impl Iterator<Item = Extension<'a>>, &'static str> {
    let mut exts = None;
    while tbs_rest.peek().is_some() {
        let (tag, value, _) = tbs_rest.next()?;
        if tag == EXTENSIONS {
            exts = Some(tlv_contents(value, SEQUENCE)?);
        }
    }
    let mut r = Reader::new(exts.unwrap_or(&[]));
    Ok(std::iter::from_fn(move || {
        r.peek()?;
        Some((|| {
            let mut e = Reader::new(r.expect(SEQUENCE)?);
            let oid = e.expect(OID)?;
            if e.peek() == Some(BOOLEAN) {
                e.next()?;
            }
            let value = e.expect(OCTET_STRING)?;
            e.finish()?;
            Ok((oid, value))
        })())
    }))
}

/// The contents of the TLV that is the whole of `der`, which must have `tag`.
pub(super) fn tlv_contents(der: &[u8], tag: u8) -> Result<&[u8], &'static str> {
    let mut r = Reader::new(der);
    let contents = r.expect(tag)?;
    r.finish()?;
    Ok(contents)
}
