//! Reading the parts of a DER X.509 certificate that a signature check needs (its signed
//! parts, its subjectPublicKeyInfo, its signer) and its key type, without a crypto library.
//!
//! Invariant: every reader here is total: malformed bytes are a [`DerError`] or `None`, never a
//! panic (the fuzz target feeds it arbitrary chains).

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
fn time(tag: u8, text: &[u8]) -> Option<u64> {
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

/// The SignedCertificateTimestampList extension's OID, 1.3.6.1.4.1.11129.2.4.2 (RFC 6962 §3.3),
/// as DER contents.
pub const SCT_LIST_OID: &[u8] = &[0x2b, 0x06, 0x01, 0x04, 0x01, 0xd6, 0x79, 0x02, 0x04, 0x02];

/// A certificate's embedded SCTs and the precertificate entry they were signed over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddedScts<'a> {
    /// The TLS-encoded `SignedCertificateTimestampList` (the extension's OCTET STRING
    /// contents), as received.
    pub list: &'a [u8],
    /// The tbsCertificate with the SCT list extension removed (RFC 6962 §3.2's
    /// `PreCert.tbs_certificate`), re-encoded in DER: what each embedded SCT signs.
    pub precert_tbs: Vec<u8>,
}

/// The SCT list embedded in a certificate and its precertificate tbsCertificate, or `None`
/// when the certificate has no SCT list extension. The TBS is rebuilt as RFC 6962 §3.2 says
/// (and as Chromium's `GetPrecertSignedEntry` and Gecko's `GetPrecertLogEntry` do): every field
/// as encoded, the extensions without the SCT list one (the `[3]` wrapper dropped if it held
/// nothing else), the lengths re-encoded.
pub fn embedded_scts(der: &[u8]) -> Result<Option<EmbeddedScts<'_>>, DerError> {
    let mut outer = Der::new(der);
    let mut c = Der::new(outer.expect(SEQUENCE)?);
    let tbs = c.expect(SEQUENCE)?;
    let mut t = Der::new(tbs);
    let mut before = Vec::with_capacity(tbs.len());
    let mut found = None;
    while t.peek().is_some() {
        let (tag, contents, all) = t.next()?;
        if tag != EXTENSIONS {
            before.extend_from_slice(all);
            continue;
        }
        let mut seq = Der::new(contents);
        let exts = seq.expect(SEQUENCE)?;
        seq.finish()?;
        let mut e = Der::new(exts);
        let mut kept = Vec::with_capacity(exts.len());
        while e.peek().is_some() {
            let (tag, ext, all) = e.next()?;
            if tag != SEQUENCE {
                return Err(DerError::UnexpectedTag {
                    expected: SEQUENCE,
                    found: tag,
                });
            }
            let mut x = Der::new(ext);
            let oid = x.expect(OID)?;
            if oid != SCT_LIST_OID {
                kept.extend_from_slice(all);
                continue;
            }
            if found.is_some() {
                return Err(DerError::DuplicateExtension);
            }
            if x.peek() == Some(BOOLEAN) {
                x.next()?;
            }
            // extnValue: an OCTET STRING holding the DER of an OCTET STRING holding the list.
            let mut value = Der::new(x.expect(OCTET_STRING)?);
            x.finish()?;
            let list = value.expect(OCTET_STRING)?;
            value.finish()?;
            found = Some(list);
        }
        if !kept.is_empty() {
            let mut seq = Vec::with_capacity(kept.len() + 8);
            push_tlv(&mut seq, SEQUENCE, &kept);
            push_tlv(&mut before, EXTENSIONS, &seq);
        }
    }
    let Some(list) = found else {
        return Ok(None);
    };
    let mut precert_tbs = Vec::with_capacity(before.len() + 8);
    push_tlv(&mut precert_tbs, SEQUENCE, &before);
    Ok(Some(EmbeddedScts { list, precert_tbs }))
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

/// The contents of a DER SEQUENCE that is the whole of `der`.
pub fn sequence_contents(der: &[u8]) -> Result<&[u8], DerError> {
    let mut d = Der::new(der);
    let contents = d.expect(SEQUENCE)?;
    d.finish()?;
    Ok(contents)
}

/// Appends a DER TLV (definite, minimal length).
pub fn push_tlv(out: &mut Vec<u8>, tag: u8, contents: &[u8]) {
    out.push(tag);
    let len = contents.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(contents);
}

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

pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const BIT_STRING: u8 = 0x03;
pub(crate) const SEQUENCE: u8 = 0x30;
/// `[0] EXPLICIT` (constructed, context-specific 0): tbsCertificate's version.
pub(crate) const VERSION: u8 = 0xa0;
/// `[3] EXPLICIT`: tbsCertificate's extensions.
pub(crate) const EXTENSIONS: u8 = 0xa3;
pub(crate) const BOOLEAN: u8 = 0x01;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const OID: u8 = 0x06;

/// Why bytes are not the DER this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DerError {
    /// A TLV runs past the end of its enclosing bytes.
    #[error("truncated")]
    Truncated,
    /// A length that is indefinite, not minimally encoded, or longer than four octets.
    #[error("not a DER length")]
    BadLength,
    /// A multi-octet (high-number) tag, which no field read here has.
    #[error("unsupported tag form")]
    HighTag,
    /// A TLV of another type than the structure has there.
    #[error("expected tag {expected:#04x}, found {found:#04x}")]
    UnexpectedTag {
        /// The tag the structure has there.
        expected: u8,
        /// The tag read.
        found: u8,
    },
    /// Bytes after the last TLV of a structure.
    #[error("trailing data")]
    TrailingData,
    /// A BIT STRING with unused bits (a key or signature never has any).
    #[error("BIT STRING with unused bits")]
    BitString,
    /// An extension that occurs twice in one certificate (RFC 5280 §4.2).
    #[error("an extension occurs twice")]
    DuplicateExtension,
}

impl From<DerError> for &'static str {
    /// The error's words, for readers whose errors are static text (`revocation::crl`).
    fn from(e: DerError) -> &'static str {
        match e {
            DerError::Truncated => "truncated",
            DerError::BadLength => "not a DER length",
            DerError::HighTag => "high tag number",
            DerError::UnexpectedTag { .. } => "unexpected tag",
            DerError::TrailingData => "trailing data",
            DerError::BitString => "BIT STRING with unused bits",
            DerError::DuplicateExtension => "an extension occurs twice",
        }
    }
}

/// One level of DER TLVs, read front to back. Hand-written rather than the `der` crate: a
/// signature check reads six fields of each certificate on `rustlsparallel`'s timed path, and
/// the generic decoder cost ~4,600 instructions per certificate there (callgrind), this a few
/// hundred.
pub(crate) struct Der<'a> {
    rest: &'a [u8],
}

impl<'a> Der<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Der<'a> {
        Der { rest: bytes }
    }

    /// What is left unread.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.rest
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    /// The next TLV: its tag, its contents, and the whole TLV.
    pub(crate) fn next(&mut self) -> Result<(u8, &'a [u8], &'a [u8]), DerError> {
        let all = self.rest;
        let (&tag, rest) = all.split_first().ok_or(DerError::Truncated)?;
        if tag & 0x1f == 0x1f {
            return Err(DerError::HighTag);
        }
        let (&first, mut rest) = rest.split_first().ok_or(DerError::Truncated)?;
        let len = if first < 0x80 {
            first as usize
        } else {
            let n = (first & 0x7f) as usize;
            if n == 0 || n > 4 || rest.len() < n {
                return Err(if n == 0 || n > 4 {
                    DerError::BadLength
                } else {
                    DerError::Truncated
                });
            }
            let (octets, after) = rest.split_at(n);
            rest = after;
            let len = octets
                .iter()
                .fold(0usize, |acc, &b| (acc << 8) | b as usize);
            // Minimal: no leading zero octet, and the long form only from 128 on.
            if octets[0] == 0 || len < 0x80 {
                return Err(DerError::BadLength);
            }
            len
        };
        if rest.len() < len {
            return Err(DerError::Truncated);
        }
        let (contents, after) = rest.split_at(len);
        let header = all.len() - rest.len();
        self.rest = after;
        Ok((tag, contents, &all[..header + len]))
    }

    /// The contents of the next TLV, which must have `tag`.
    pub(crate) fn expect(&mut self, tag: u8) -> Result<&'a [u8], DerError> {
        let (found, contents, _) = self.next()?;
        if found != tag {
            return Err(DerError::UnexpectedTag {
                expected: tag,
                found,
            });
        }
        Ok(contents)
    }

    /// Nothing may follow.
    pub(crate) fn finish(self) -> Result<(), DerError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(DerError::TrailingData)
        }
    }
}

fn bit_string(contents: &[u8]) -> Result<&[u8], DerError> {
    match contents.split_first() {
        Some((0, rest)) => Ok(rest),
        _ => Err(DerError::BitString),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_reads_both_time_forms() {
        assert_eq!(time(0x17, b"700101000000Z"), Some(0));
        assert_eq!(time(0x17, b"491231235959Z"), Some(2_524_607_999));
        assert_eq!(time(0x18, b"20000229120000Z"), Some(951_825_600));
        assert_eq!(time(0x17, b"700101000000"), None, "no Z");
        assert_eq!(time(0x17, b"701301000000Z"), None, "month 13");
    }

    #[cfg(feature = "corpus")]
    #[test]
    fn every_corpus_leaf_is_valid_at_its_validation_time() {
        let corpus = crate::corpus::Corpus::bundled().unwrap();
        for c in &corpus.chains {
            let (nb, na) = validity(&c.chain.leaf).unwrap();
            assert!(
                nb <= c.validation_time && c.validation_time <= na,
                "{}",
                c.id
            );
        }
    }
    use crate::chain::{load_chain_dir, read_pem_certs};
    use std::path::Path;

    fn corpus_dir(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../corpus/real-chains")
            .join(name)
    }

    #[test]
    fn signed_parts_link_leaf_to_its_issuer() {
        let chain = load_chain_dir(&corpus_dir("reddit.com__rustls-bench")).unwrap();
        let leaf = SignedParts::parse(&chain.leaf).unwrap();
        let inter = SignedParts::parse(&chain.intermediates[0]).unwrap();
        assert_eq!(leaf.issuer, inter.subject);
        assert_eq!(leaf.tbs[0], 0x30, "tbs is a whole SEQUENCE TLV");
        // sha256WithRSAEncryption OID with NULL parameters.
        assert_eq!(
            leaf.sig_alg,
            &[
                0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00
            ]
        );
        assert_eq!(chain.key_types(), vec!["RSA-2048", "RSA-2048"]);
        assert_eq!(leaf.signature.len(), 256);
        assert_eq!(signer(&chain.leaf), Some(Signer::Rsa { bits: 2048 }));
        // github.com: leaf ← a P-256 intermediate; that intermediate ← a P-384 root.
        let gh = load_chain_dir(&corpus_dir("github.com__rustls-bench")).unwrap();
        let signers: Vec<_> = gh.iter().map(|c| signer(c)).collect();
        assert_eq!(signers[0], Some(Signer::EcdsaP256));
        assert!(signers.contains(&Some(Signer::EcdsaP384)), "{signers:?}");
        assert_eq!(signer(b"junk"), None);
    }

    #[test]
    fn der_lengths_are_strict() {
        let read = |b: &[u8]| {
            Der::new(b)
                .next()
                .map(|(t, c, all)| (t, c.len(), all.len()))
        };
        assert_eq!(read(&[0x30, 0x01, 0xff]), Ok((0x30, 1, 3)));
        let mut long = vec![0x04, 0x81, 0x80];
        long.extend([0u8; 0x80]);
        assert_eq!(read(&long), Ok((0x04, 0x80, 0x83)));
        let mut two = vec![0x04, 0x82, 0x01, 0x00];
        two.extend([0u8; 0x100]);
        assert_eq!(read(&two), Ok((0x04, 0x100, 0x104)));
        // Long form below 128, a leading zero octet, indefinite, more than four octets.
        assert_eq!(
            read(&[0x04, 0x81, 0x05, 0, 0, 0, 0, 0]),
            Err(DerError::BadLength)
        );
        assert_eq!(read(&[0x04, 0x82, 0x00, 0x80]), Err(DerError::BadLength));
        assert_eq!(read(&[0x30, 0x80, 0, 0]), Err(DerError::BadLength));
        assert_eq!(read(&[0x04, 0x85, 1, 0, 0, 0, 0]), Err(DerError::BadLength));
        assert_eq!(read(&[0x30, 0x03, 0x01]), Err(DerError::Truncated));
        assert_eq!(read(&[0x04, 0x82, 0x01]), Err(DerError::Truncated));
        assert_eq!(read(&[0x30]), Err(DerError::Truncated));
        assert_eq!(read(&[0x1f, 0x01, 0x00]), Err(DerError::HighTag));
        let mut d = Der::new(&[0x02, 0x01, 0x05, 0x05, 0x00]);
        assert_eq!(
            d.expect(SEQUENCE),
            Err(DerError::UnexpectedTag {
                expected: SEQUENCE,
                found: INTEGER
            })
        );
        let mut d = Der::new(&[0x02, 0x01, 0x05, 0x05, 0x00]);
        assert_eq!(d.expect(INTEGER), Ok(&[5u8][..]));
        assert_eq!(
            Der::new(&[0x02, 0x01, 0x05, 0x05]).finish(),
            Err(DerError::TrailingData)
        );
        // A whole certificate with a byte appended, or cut short.
        let chain = load_chain_dir(&corpus_dir("reddit.com__rustls-bench")).unwrap();
        let mut extra = chain.leaf.to_vec();
        extra.push(0);
        assert_eq!(
            SignedParts::parse(&extra).err(),
            Some(DerError::TrailingData)
        );
        let cut = &chain.leaf[..chain.leaf.len() - 1];
        assert_eq!(SignedParts::parse(cut).err(), Some(DerError::Truncated));
    }

    /// The DER reading of key types agrees with OpenSSL's on every corpus certificate.
    #[test]
    #[cfg(feature = "openssl")]
    fn key_types_agree_with_openssl() {
        use openssl::nid::Nid;
        use openssl::pkey::Id;
        fn by_openssl(der: &[u8]) -> String {
            let key = openssl::x509::X509::from_der(der)
                .unwrap()
                .public_key()
                .unwrap();
            match key.id() {
                Id::RSA => format!("RSA-{}", key.bits()),
                Id::EC => match key.ec_key().unwrap().group().curve_name() {
                    Some(Nid::X9_62_PRIME256V1) => "ECDSA-P256".into(),
                    Some(Nid::SECP384R1) => "ECDSA-P384".into(),
                    Some(Nid::SECP521R1) => "ECDSA-P521".into(),
                    _ => "ECDSA-unknown".into(),
                },
                Id::ED25519 => "Ed25519".into(),
                _ => "unknown".into(),
            }
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/real-chains");
        let mut seen = std::collections::BTreeSet::new();
        let mut n = 0;
        for dir in std::fs::read_dir(&root).unwrap() {
            let dir = dir.unwrap().path();
            for file in ["leaf.pem", "intermediates.pem", "root.pem", "chain.pem"] {
                let Ok(certs) = read_pem_certs(&dir.join(file)) else {
                    continue;
                };
                for c in certs {
                    let kt = key_type(&c);
                    assert_eq!(kt, by_openssl(&c), "{}/{file}", dir.display());
                    seen.insert(kt);
                    n += 1;
                }
            }
        }
        assert!(n > 80, "{n} certificates");
        assert!(seen.len() >= 4, "{seen:?}");
        assert_eq!(key_type(b"junk"), "unknown");
    }
}
