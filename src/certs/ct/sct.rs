//! SCTs minted by the mirror's logs (RFC 6962 §3.2–3.3), and the real ones a clone reproduces.
//!
//! An SCT signs a precertificate entry: v1, certificate_timestamp, its timestamp, precert_entry,
//! the issuer's key hash (SHA-256 of the issuer's SubjectPublicKeyInfo DER), the
//! tbsCertificate without the SCT list extension, and its extensions. The list is embedded as
//! the extension's value: a DER OCTET STRING holding the TLS `SignedCertificateTimestampList`.
//!
//! Invariant of [`issue_with_scts`]: the certificate it returns, with its SCT list extension
//! taken out of the tbsCertificate, is byte for byte the tbsCertificate every SCT was signed
//! over (RFC 6962 §3.2's `PreCert.tbs_certificate`); it checks this and fails otherwise. Every
//! reader here is total: bad bytes are a [`CtError`], never a panic.

use rcgen::{Certificate, CertificateParams, CustomExtension, Issuer, PublicKeyData, SigningKey};
use sha2::{Digest, Sha256};
use x509_parser::prelude::{ParsedExtension, X509Certificate};

use super::log::{CtError, MirrorLog, base64};

/// The SignedCertificateTimestampList extension's OID (RFC 6962 §3.3).
pub const SCT_LIST_OID: &[u64] = &[1, 3, 6, 1, 4, 1, 11129, 2, 4, 2];
/// The same OID as DER contents.
const SCT_LIST_OID_DER: &[u8] = &[0x2b, 6, 1, 4, 1, 0xd6, 0x79, 2, 4, 2];
/// TLS `HashAlgorithm.sha256` and `SignatureAlgorithm.ecdsa` (RFC 5246 §7.4.1.4.1): what every
/// real SCT of the corpus carries.
const SHA256: u8 = 4;
const ECDSA: u8 = 3;

/// One SCT to embed: which log signs it, when, and whether to spoil its signature.
#[derive(Clone, Debug)]
pub struct SctSpec<'a> {
    /// The signing log (from a [`super::logs::CtLogs`] or not: [`MirrorLog::generate`]).
    pub log: &'a MirrorLog,
    /// Milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// The SCT's `CtExtensions` (usually empty).
    pub extensions: Vec<u8>,
    /// Flip the low bit of the signature's last byte after signing: the DER signature stays
    /// well formed, the SCT no longer verifies (the certificate's own signature still does).
    pub corrupt_signature: bool,
}

impl SctSpec<'_> {
    /// The TLS-encoded SCT (RFC 6962 §3.2) over a precertificate entry.
    fn mint(&self, issuer_key_hash: &[u8; 32], precert_tbs: &[u8]) -> Result<Vec<u8>, CtError> {
        let (tbs_len, ext_len) = (
            len_of(precert_tbs, 3, "tbsCertificate")?,
            len_of(&self.extensions, 2, "CtExtensions")?,
        );
        // digitally-signed struct: v1, certificate_timestamp, timestamp, precert_entry.
        let mut signed = vec![0, 0];
        signed.extend(self.timestamp_ms.to_be_bytes());
        signed.extend([0, 1]);
        signed.extend(issuer_key_hash);
        signed.extend(tbs_len);
        signed.extend(precert_tbs);
        signed.extend(&ext_len);
        signed.extend(&self.extensions);
        let mut signature = self.log.key.sign(&signed)?;
        if self.corrupt_signature {
            *signature
                .last_mut()
                .ok_or(CtError::Parse("empty signature"))? ^= 1;
        }
        let mut sct = vec![0];
        sct.extend(self.log.log_id);
        sct.extend(self.timestamp_ms.to_be_bytes());
        sct.extend(ext_len);
        sct.extend(&self.extensions);
        let (hash, sig) = self.log.algorithm().tls_code();
        sct.extend([hash, sig]);
        sct.extend(len_of(&signature, 2, "signature")?);
        sct.extend(signature);
        Ok(sct)
    }
}

/// `bytes`' length as a `width`-byte big-endian TLS length prefix.
fn len_of(bytes: &[u8], width: usize, what: &'static str) -> Result<Vec<u8>, CtError> {
    if bytes.len() >= 1 << (8 * width) {
        return Err(CtError::TooLong(what));
    }
    Ok(bytes.len().to_be_bytes()[size_of::<usize>() - width..].to_vec())
}

/// Issues a leaf from `params` for `subject_key` by `issuer`, with exactly `scts` embedded.
///
/// The precertificate is `params` without any SCT list extension, issued first; its
/// tbsCertificate is what the SCTs sign, with `issuer_key_hash` = SHA-256 of the issuer's
/// SubjectPublicKeyInfo DER. The list then takes the place of the SCT list extension `params`
/// had (with its criticality), or is appended to the custom extensions. The serial number
/// and every other field come out the same both times (rcgen is deterministic but for the
/// signature); the result is checked (see the module's invariant). The precertificate itself
/// (which carries no poison extension: no log ever sees it) is dropped.
pub fn issue_with_scts(
    params: &CertificateParams,
    subject_key: &impl PublicKeyData,
    issuer: &Issuer<'_, impl SigningKey>,
    scts: &[SctSpec<'_>],
) -> Result<Certificate, CtError> {
    if scts.is_empty() {
        return Err(CtError::NoScts);
    }
    let mut p = params.clone();
    let at = p.custom_extensions.iter().position(is_sct_list);
    let critical = at.is_some_and(|i| p.custom_extensions[i].criticality());
    p.custom_extensions.retain(|e| !is_sct_list(e));
    let precert = p.signed_by(subject_key, issuer)?;
    let precert_tbs = tbs(precert.der())?.to_vec();
    let issuer_key_hash: [u8; 32] = Sha256::digest(issuer.key().subject_public_key_info()).into();
    let mut list = Vec::new();
    for spec in scts {
        let sct = spec.mint(&issuer_key_hash, &precert_tbs)?;
        list.extend(len_of(&sct, 2, "SCT")?);
        list.extend(sct);
    }
    let mut tls = len_of(&list, 2, "SCT list")?;
    tls.extend(list);
    let mut value = Vec::with_capacity(tls.len() + 4);
    push_tlv(&mut value, 0x04, &tls);
    let mut ext = CustomExtension::from_oid_content(SCT_LIST_OID, value);
    ext.set_criticality(critical);
    p.custom_extensions
        .insert(at.unwrap_or(p.custom_extensions.len()), ext);
    let cert = p.signed_by(subject_key, issuer)?;
    match tbs_without_sct_list(cert.der())? {
        (1, stripped) if stripped == precert_tbs => Ok(cert),
        _ => Err(CtError::PrecertMismatch),
    }
}

/// Whether `e` is an SCT list extension.
pub fn is_sct_list(e: &CustomExtension) -> bool {
    e.oid_components().eq(SCT_LIST_OID.iter().copied())
}

/// A real leaf's SCT as its clone reproduces it.
#[derive(Clone, Debug)]
pub struct RealSct {
    /// The real log's LogID.
    pub log_id: [u8; 32],
    /// Milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// Its `CtExtensions`.
    pub extensions: Vec<u8>,
}

/// The SCTs embedded in `x509`, in order (`None`: no SCT list extension). Each must be a v1
/// ECDSA P-256 SHA-256 SCT: another is [`CtError::Unsupported`].
pub fn real_scts(x509: &X509Certificate<'_>) -> Result<Option<Vec<RealSct>>, CtError> {
    let Some(ext) = (x509.extensions().iter()).find(|e| e.oid.as_bytes() == SCT_LIST_OID_DER)
    else {
        return Ok(None);
    };
    let ParsedExtension::SCT(list) = ext.parsed_extension() else {
        return Err(CtError::Parse("SCT list extension"));
    };
    (list.iter())
        .map(|s| {
            let (version, hash, signature) = (
                s.version.0,
                s.signature.hash_alg_id,
                s.signature.sign_alg_id,
            );
            if (version, hash, signature) != (0, SHA256, ECDSA) {
                let log_id = base64(s.id.key_id);
                return Err(CtError::Unsupported {
                    log_id,
                    version,
                    hash,
                    signature,
                });
            }
            Ok(RealSct {
                log_id: *s.id.key_id,
                timestamp_ms: s.timestamp,
                extensions: s.extensions.0.to_vec(),
            })
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// `timestamp_ms` moved by `shift_secs`, as a clone's validity is.
pub fn shifted(timestamp_ms: u64, shift_secs: i64) -> Result<u64, CtError> {
    let t = i128::from(timestamp_ms) + i128::from(shift_secs) * 1000;
    u64::try_from(t).map_err(|_| CtError::Timestamp {
        timestamp_ms,
        shift_secs,
    })
}

/// The whole tbsCertificate TLV of a DER certificate.
fn tbs(cert: &[u8]) -> Result<&[u8], CtError> {
    let (contents, _, _) = tlv(cert, 0x30)?;
    Ok(tlv(contents, 0x30)?.1)
}

/// The tbsCertificate with every SCT list extension left out (and the `[3]` extensions
/// wrapper if nothing else is left), lengths re-encoded; and how many were left out.
fn tbs_without_sct_list(cert: &[u8]) -> Result<(usize, Vec<u8>), CtError> {
    let (mut fields, mut out, mut dropped) = (tlv(tbs(cert)?, 0x30)?.0, Vec::new(), 0);
    while !fields.is_empty() {
        let tag = fields[0];
        let (contents, all, rest) = tlv(fields, tag)?;
        fields = rest;
        if tag != 0xa3 {
            out.extend(all);
            continue;
        }
        let (mut exts, mut kept) = (tlv(contents, 0x30)?.0, Vec::new());
        while !exts.is_empty() {
            let (ext, all, rest) = tlv(exts, 0x30)?;
            exts = rest;
            if tlv(ext, 0x06)?.0 == SCT_LIST_OID_DER {
                dropped += 1;
            } else {
                kept.extend(all);
            }
        }
        if !kept.is_empty() {
            let mut seq = Vec::new();
            push_tlv(&mut seq, 0x30, &kept);
            push_tlv(&mut out, 0xa3, &seq);
        }
    }
    let mut tbs = Vec::new();
    push_tlv(&mut tbs, 0x30, &out);
    Ok((dropped, tbs))
}

/// A DER TLV read: (contents, whole TLV, what follows it).
type Tlv<'a> = (&'a [u8], &'a [u8], &'a [u8]);

/// The DER TLV at the start of `input`, which must have tag `want`.
fn tlv(input: &[u8], want: u8) -> Result<Tlv<'_>, CtError> {
    let bad = CtError::Parse("certificate DER");
    let [tag, first, rest @ ..] = input else {
        return Err(bad);
    };
    let (len, rest) = match *first {
        n if n < 0x80 => (usize::from(n), rest),
        n if (0x81..=0x84).contains(&n) && rest.len() >= usize::from(n & 0x7f) => {
            let (len, rest) = rest.split_at(usize::from(n & 0x7f));
            (len.iter().fold(0, |a, &b| a << 8 | usize::from(b)), rest)
        }
        _ => return Err(bad),
    };
    if *tag != want || rest.len() < len {
        return Err(bad);
    }
    let header = input.len() - rest.len();
    Ok((&rest[..len], &input[..header + len], &rest[len..]))
}

/// Appends a DER TLV with a minimal definite length.
fn push_tlv(out: &mut Vec<u8>, tag: u8, contents: &[u8]) {
    out.push(tag);
    let len = contents.len().to_be_bytes();
    let skip = len.iter().take_while(|&&b| b == 0).count();
    match contents.len() {
        n if n < 0x80 => out.push(n as u8),
        _ => {
            out.push(0x80 | (len.len() - skip) as u8);
            out.extend(&len[skip..]);
        }
    }
    out.extend(contents);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_lengths_and_der() {
        assert_eq!(len_of(&[0; 300], 2, "x").unwrap(), [1, 44]);
        assert_eq!(len_of(&[0; 300], 3, "x").unwrap(), [0, 1, 44]);
        assert!(len_of(&[0; 256], 1, "x").is_err());
        let mut out = Vec::new();
        push_tlv(&mut out, 4, &[9; 200]);
        assert_eq!(out[..3], [4, 0x81, 200]);
        let (contents, all, rest) = tlv(&out, 4).unwrap();
        assert_eq!((contents.len(), all.len(), rest.len()), (200, 203, 0));
        assert!(tlv(&out[..100], 4).is_err() && tlv(&out, 0x30).is_err() && tlv(&[4], 4).is_err());
    }
}
