//! The fields of a DER X.509 certificate read by their position: the signed parts and the
//! key a signature check needs ([`SignedParts`], [`Spki`]), the validity, issuer, serial and
//! whole subjectPublicKeyInfo, from the DER headers alone.
//!
//! Invariant: every reader is total: malformed bytes are a `DerError` or `None`, never a panic.

use super::reader::{BIT_STRING, Der, DerError, INTEGER, SEQUENCE, VERSION, bit_string};

/// A subjectPublicKeyInfo split the way webpki hands it to a signature algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spki<'a> {
    /// Contents of the AlgorithmIdentifier (no outer tag): compared with
    /// `SignatureVerificationAlgorithm::public_key_alg_id`.
    pub alg: &'a [u8],
    /// The subjectPublicKey BIT STRING without its unused-bits octet: what
    /// `SignatureVerificationAlgorithm::verify_signature` receives as `public_key`.
    pub key: &'a [u8],
}

impl<'a> Spki<'a> {
    /// Parses the *contents* of a SubjectPublicKeyInfo SEQUENCE (as in
    /// `TrustAnchor::subject_public_key_info`).
    pub fn from_contents(contents: &'a [u8]) -> Result<Spki<'a>, DerError> {
        let mut r = Der::new(contents);
        let alg = r.expect(SEQUENCE)?;
        let key = bit_string(r.expect(BIT_STRING)?)?;
        r.finish()?;
        Ok(Spki { alg, key })
    }
}

/// The parts of a certificate that its signature check uses, borrowed from its DER.
///
/// Field forms match what rustls-webpki passes to `SignatureVerificationAlgorithm`, so a
/// check made from these parts is the same call webpki would make.
#[derive(Clone, Copy, Debug)]
pub struct SignedParts<'a> {
    /// The whole tbsCertificate TLV: the signed message.
    pub tbs: &'a [u8],
    /// Contents of the outer signatureAlgorithm: compared with `signature_alg_id`.
    pub sig_alg: &'a [u8],
    /// The signature BIT STRING without its unused-bits octet.
    pub signature: &'a [u8],
    /// Contents of the issuer Name (compared with an issuer's subject contents).
    pub issuer: &'a [u8],
    /// Contents of the subject Name.
    pub subject: &'a [u8],
    /// The certificate's own key.
    pub spki: Spki<'a>,
}

impl<'a> SignedParts<'a> {
    /// Reads a DER certificate: the TLVs down to the subjectPublicKeyInfo, strict DER
    /// lengths, no trailing data. It does not look inside the fields it skips (webpki reads
    /// them when it verifies).
    pub fn parse(der: &'a [u8]) -> Result<SignedParts<'a>, DerError> {
        let mut outer = Der::new(der);
        let cert = outer.expect(SEQUENCE)?;
        outer.finish()?;

        let mut c = Der::new(cert);
        let (tag, tbs_contents, tbs) = c.next()?;
        if tag != SEQUENCE {
            return Err(DerError::UnexpectedTag {
                expected: SEQUENCE,
                found: tag,
            });
        }
        let sig_alg = c.expect(SEQUENCE)?;
        let signature = bit_string(c.expect(BIT_STRING)?)?;
        c.finish()?;

        let mut t = Der::new(tbs_contents);
        if t.peek() == Some(VERSION) {
            t.next()?;
        }
        t.expect(INTEGER)?; // serialNumber
        t.expect(SEQUENCE)?; // signature (inner)
        let issuer = t.expect(SEQUENCE)?;
        t.expect(SEQUENCE)?; // validity
        let subject = t.expect(SEQUENCE)?;
        let spki = Spki::from_contents(t.expect(SEQUENCE)?)?;
        Ok(SignedParts {
            tbs,
            sig_alg,
            signature,
            issuer,
            subject,
            spki,
        })
    }
}

/// A certificate's validity as (notBefore, notAfter) in seconds since the Unix epoch, reading
/// only the DER headers before it; `None` if those do not parse or a time is not the
/// `YYMMDDHHMMSSZ` (UTCTime, 1950–2049) or `YYYYMMDDHHMMSSZ` (GeneralizedTime) that RFC 5280
/// requires.
pub fn validity(der: &[u8]) -> Option<(u64, u64)> {
    let mut t = tbs_at_issuer(der)?;
    t.expect(SEQUENCE).ok()?; // issuer
    let mut v = Der::new(t.expect(SEQUENCE).ok()?);
    let (tag, not_before, _) = v.next().ok()?;
    let not_before = time(tag, not_before)?;
    let (tag, not_after, _) = v.next().ok()?;
    Some((not_before, time(tag, not_after)?))
}

/// An RFC 3339 UTC time (`2026-01-01T00:00:00Z`, fractional seconds allowed and dropped), as
/// log lists write them, in Unix seconds; `None` for any other form.
pub fn rfc3339(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    if b[16] != b':' || *b.last()? != b'Z' {
        return None;
    }
    let frac = &b[19..b.len() - 1];
    if !frac.is_empty() && (frac[0] != b'.' || !frac[1..].iter().all(u8::is_ascii_digit)) {
        return None;
    }
    let mut g = Vec::with_capacity(15);
    for range in [0..4, 5..7, 8..10, 11..13, 14..16, 17..19] {
        g.extend_from_slice(&b[range]);
    }
    g.push(b'Z');
    time(0x18, &g)
}

/// A UTCTime (tag 0x17) or GeneralizedTime (0x18) in the RFC 5280 form, in Unix seconds.
pub(super) fn time(tag: u8, text: &[u8]) -> Option<u64> {
    let digits = |s: &[u8]| -> Option<u64> {
        s.iter().try_fold(0u64, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + u64::from(d - b'0'))
        })
    };
    let (year, rest) = match (tag, text.len()) {
        (0x17, 13) => {
            let yy = digits(&text[..2])?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, &text[2..])
        }
        (0x18, 15) => (digits(&text[..4])?, &text[4..]),
        _ => return None,
    };
    if rest[10] != b'Z' {
        return None;
    }
    let field = |i: usize| digits(&rest[i..i + 2]);
    let (month, day) = (field(0)?, field(2)?);
    let (hour, minute, second) = (field(4)?, field(6)?, field(8)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    let y = if month <= 2 { year - 1 } else { year } as i64;
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + (hour * 3600 + minute * 60 + second) as i64).ok()
}

/// The contents of a certificate's issuer Name (as [`SignedParts::issuer`]), reading only the
/// DER headers before it; `None` if those do not parse.
pub fn issuer(der: &[u8]) -> Option<&[u8]> {
    tbs_at_issuer(der)?.expect(SEQUENCE).ok()
}

/// The content bytes of a certificate's serialNumber INTEGER (as sent: a leading zero byte
/// kept where DER needs it), reading only the DER headers before it; `None` if those do not
/// parse.
pub fn serial(der: &[u8]) -> Option<&[u8]> {
    let mut outer = Der::new(der);
    let mut c = Der::new(outer.expect(SEQUENCE).ok()?);
    let mut t = Der::new(c.expect(SEQUENCE).ok()?);
    if t.peek() == Some(VERSION) {
        t.next().ok()?;
    }
    t.expect(INTEGER).ok()
}

/// A certificate's tbsCertificate, read up to its issuer Name (the next TLV), from the DER
/// headers alone; `None` if those do not parse.
fn tbs_at_issuer(der: &[u8]) -> Option<Der<'_>> {
    let mut outer = Der::new(der);
    let mut c = Der::new(outer.expect(SEQUENCE).ok()?);
    let mut t = Der::new(c.expect(SEQUENCE).ok()?);
    if t.peek() == Some(VERSION) {
        t.next().ok()?;
    }
    t.expect(INTEGER).ok()?; // serialNumber
    t.expect(SEQUENCE).ok()?; // signature (inner)
    Some(t)
}

/// A certificate's whole subjectPublicKeyInfo TLV (what an SCT's `issuer_key_hash` hashes);
/// `None` if the DER headers before it do not parse.
pub fn spki_tlv(der: &[u8]) -> Option<&[u8]> {
    let mut t = tbs_at_issuer(der)?;
    t.expect(SEQUENCE).ok()?; // issuer
    t.expect(SEQUENCE).ok()?; // validity
    t.expect(SEQUENCE).ok()?; // subject
    let (tag, _, all) = t.next().ok()?;
    (tag == SEQUENCE).then_some(all)
}
