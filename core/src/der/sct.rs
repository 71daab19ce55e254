//! A certificate's embedded SCT list (RFC 6962 §3.3) and the precertificate tbsCertificate
//! its SCTs were signed over (RFC 6962 §3.2), rebuilt from the DER.
//!
//! Invariant: the rebuilt TBS keeps every field as encoded but the SCT list extension; a
//! second SCT list extension is an error, not a choice.

use super::reader::{BOOLEAN, Der, DerError, EXTENSIONS, OCTET_STRING, OID, SEQUENCE, push_tlv};

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
