//! What a revocation check reads of a certificate ([`CertFields`]: serial, names, key,
//! KeyUsage, CRL distribution points, EKU, TLS feature), its extensions ([`extensions`]), a
//! BIT STRING's bits ([`bit_set`]), and the DER reader and tags the `crl` and `ocsp` modules
//! share.
//!
//! Invariant: every reader is total: malformed bytes are an error string, never a panic.

/// Bit `bit` of a DER BIT STRING TLV (bit 0: the first octet's high bit), as webpki's
/// `bit_string_flags` reads a KeyUsage.
pub(crate) fn bit_set(bit_string: &[u8], bit: usize) -> Result<bool, &'static str> {
    let contents = tlv_contents(bit_string, BIT_STRING)?;
    let (&unused, bits) = contents.split_first().ok_or("empty BIT STRING")?;
    if unused > 7 || (bits.is_empty() && unused != 0) {
        return Err("bad BIT STRING");
    }
    Ok(bits
        .get(bit / 8)
        .is_some_and(|b| b & (0x80 >> (bit % 8)) != 0))
}

/// What a revocation check reads of a certificate.
pub(crate) struct CertFields<'a> {
    /// The serial INTEGER's contents (webpki's `lenient_certificate_serial_number`).
    pub(crate) serial: &'a [u8],
    /// The issuer Name's contents.
    pub(crate) issuer: &'a [u8],
    /// The subject Name's contents.
    pub(crate) subject: &'a [u8],
    /// The whole subject Name TLV (what an OCSP CertID's issuerNameHash hashes).
    pub(crate) subject_tlv: &'a [u8],
    /// The SubjectPublicKeyInfo's contents.
    pub(crate) spki: &'a [u8],
    /// The KeyUsage extension's value (a BIT STRING TLV), if present.
    pub(crate) key_usage: Option<&'a [u8]>,
    /// The CRL distribution points extension's value (a SEQUENCE TLV), if present.
    pub(crate) crl_dps: Option<&'a [u8]>,
    /// The extended key usage extension's value (a SEQUENCE TLV), if present.
    pub(crate) eku: Option<&'a [u8]>,
    /// The TLS feature extension's value (RFC 7633; a SEQUENCE TLV), if present.
    pub(crate) tls_feature: Option<&'a [u8]>,
}

impl<'a> CertFields<'a> {
    pub(crate) fn parse(der: &'a [u8]) -> Result<CertFields<'a>, &'static str> {
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
pub(crate) type Extension<'a> = Result<(&'a [u8], &'a [u8]), &'static str>;

/// The extensions after a tbsCertificate's subjectPublicKeyInfo (issuer and subject unique
/// IDs skipped): each one's OID contents and extnValue contents.
pub(crate) fn extensions<'a>(
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

pub(crate) use crate::der::{
    BIT_STRING, BOOLEAN, EXTENSIONS, INTEGER, OCTET_STRING, OID, SEQUENCE, VERSION,
};
/// id-ce-keyUsage 2.5.29.15 and id-ce-cRLDistributionPoints 2.5.29.31.
const OID_KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x0f];
const OID_CRL_DPS: &[u8] = &[0x55, 0x1d, 0x1f];
/// id-ce-extKeyUsage 2.5.29.37.
const OID_EKU: &[u8] = &[0x55, 0x1d, 0x25];
/// id-pe-tlsfeature 1.3.6.1.5.5.7.1.24 (RFC 7633).
const OID_TLS_FEATURE: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x18];

/// The contents of the TLV that is the whole of `der`, which must have `tag`.
pub(crate) fn tlv_contents(der: &[u8], tag: u8) -> Result<&[u8], &'static str> {
    let mut r = Reader::new(der);
    let contents = r.expect(tag)?;
    r.finish()?;
    Ok(contents)
}

/// One level of DER TLVs, front to back: the core's reader (single-octet tags, definite
/// lengths of up to four octets: a CRL of millions of entries is tens of MB).
pub(crate) use crate::der::Der as Reader;
