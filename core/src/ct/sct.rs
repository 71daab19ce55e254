//! Signed certificate timestamps as RFC 6962 encodes them: the `SignedCertificateTimestampList`
//! (§3.3) and each `SignedCertificateTimestamp` (§3.2) read from their TLS encoding, and the
//! `digitally-signed` data an SCT's signature covers, written out.
//!
//! Invariant: every reader is total: bytes that are not an SCT list or an SCT are an
//! [`SctError`], never a panic (a leaf is hostile input).

/// An SCT, borrowed from its list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sct<'a> {
    /// The SCT as encoded (what a signature cache keys on, with the signed data).
    pub encoded: &'a [u8],
    /// `LogID`: the SHA-256 of the log's public key.
    pub log_id: [u8; 32],
    /// Milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// `CtExtensions`, as encoded (without their length).
    pub extensions: &'a [u8],
    /// The TLS `HashAlgorithm` of the signature (4: SHA-256).
    pub hash: u8,
    /// The TLS `SignatureAlgorithm` (1: RSA, 3: ECDSA).
    pub signature_alg: u8,
    /// The signature (DER for ECDSA).
    pub signature: &'a [u8],
}

/// Why bytes are not an SCT list or an SCT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SctError {
    /// A length runs past the end of its bytes.
    #[error("truncated")]
    Truncated,
    /// Bytes after the last field of a structure.
    #[error("trailing data")]
    TrailingData,
    /// An SCT version other than v1 (0).
    #[error("SCT version {0} (only v1 is defined)")]
    Version(u8),
    /// An empty list or an empty SCT, which RFC 6962 does not allow.
    #[error("empty")]
    Empty,
}

/// A TLS reader over a byte slice.
struct Tls<'a>(&'a [u8]);

impl<'a> Tls<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], SctError> {
        if self.0.len() < n {
            return Err(SctError::Truncated);
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, SctError> {
        Ok(self.bytes(1)?[0])
    }

    fn u16(&mut self) -> Result<usize, SctError> {
        let b = self.bytes(2)?;
        Ok(usize::from(u16::from_be_bytes([b[0], b[1]])))
    }

    fn u64(&mut self) -> Result<u64, SctError> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    /// `opaque <0..2^16-1>`.
    fn vec16(&mut self) -> Result<&'a [u8], SctError> {
        let n = self.u16()?;
        self.bytes(n)
    }

    fn finish(&self) -> Result<(), SctError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(SctError::TrailingData)
        }
    }
}

/// The SCTs of a TLS-encoded `SignedCertificateTimestampList`, each still encoded (as
/// Chromium's `DecodeSCTList` and Gecko's `DecodeSCTList` split it); a list that does not
/// parse as a whole is an error, an entry that does not parse is decoded (and fails) later.
pub fn split_list(list: &[u8]) -> Result<Vec<&[u8]>, SctError> {
    let mut r = Tls(list);
    let mut body = Tls(r.vec16()?);
    r.finish()?;
    let mut out = Vec::new();
    while !body.0.is_empty() {
        let sct = body.vec16()?;
        if sct.is_empty() {
            return Err(SctError::Empty);
        }
        out.push(sct);
    }
    if out.is_empty() {
        return Err(SctError::Empty);
    }
    Ok(out)
}

/// Decodes one `SignedCertificateTimestamp` (v1).
pub fn decode(encoded: &[u8]) -> Result<Sct<'_>, SctError> {
    let mut r = Tls(encoded);
    let version = r.u8()?;
    if version != 0 {
        return Err(SctError::Version(version));
    }
    let mut log_id = [0u8; 32];
    log_id.copy_from_slice(r.bytes(32)?);
    let timestamp_ms = r.u64()?;
    let extensions = r.vec16()?;
    let hash = r.u8()?;
    let signature_alg = r.u8()?;
    let signature = r.vec16()?;
    r.finish()?;
    Ok(Sct {
        encoded,
        log_id,
        timestamp_ms,
        extensions,
        hash,
        signature_alg,
        signature,
    })
}

/// What an SCT's signature covers, apart from the SCT's own fields (RFC 6962 §3.2's
/// `signed_entry`).
#[derive(Clone, Copy, Debug)]
pub enum Entry<'a> {
    /// An SCT embedded in a certificate: `PreCert` (entry type 1).
    Precert {
        /// SHA-256 of the issuer's subjectPublicKeyInfo.
        issuer_key_hash: &'a [u8; 32],
        /// The precertificate tbsCertificate ([`crate::der::EmbeddedScts::precert_tbs`]).
        tbs: &'a [u8],
    },
    /// An SCT from the TLS extension or an OCSP response: the certificate (entry type 0).
    X509 {
        /// The end-entity certificate's DER.
        cert: &'a [u8],
    },
}

/// Writes the `digitally-signed` struct of an SCT v1 (RFC 6962 §3.2) into `out` (cleared
/// first): version, signature_type certificate_timestamp, timestamp, the entry, extensions.
pub fn signed_data(sct: &Sct<'_>, entry: Entry<'_>, out: &mut Vec<u8>) {
    out.clear();
    out.push(0); // sct_version v1
    out.push(0); // signature_type certificate_timestamp
    out.extend_from_slice(&sct.timestamp_ms.to_be_bytes());
    let push24 = |out: &mut Vec<u8>, bytes: &[u8]| {
        let n = bytes.len() as u32;
        out.extend_from_slice(&n.to_be_bytes()[1..]);
        out.extend_from_slice(bytes);
    };
    match entry {
        Entry::X509 { cert } => {
            out.extend_from_slice(&0u16.to_be_bytes());
            push24(out, cert);
        }
        Entry::Precert {
            issuer_key_hash,
            tbs,
        } => {
            out.extend_from_slice(&1u16.to_be_bytes());
            out.extend_from_slice(issuer_key_hash);
            push24(out, tbs);
        }
    }
    out.extend_from_slice(&(sct.extensions.len() as u16).to_be_bytes());
    out.extend_from_slice(sct.extensions);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_sct(sig: &[u8]) -> Vec<u8> {
        let mut s = vec![0u8];
        s.extend([7u8; 32]);
        s.extend(1_700_000_000_000u64.to_be_bytes());
        s.extend([0, 0]); // no extensions
        s.extend([4, 3]);
        s.extend((sig.len() as u16).to_be_bytes());
        s.extend(sig);
        s
    }

    #[test]
    fn a_list_splits_and_each_sct_decodes() {
        let a = one_sct(&[1, 2, 3]);
        let b = one_sct(&[4, 5]);
        let mut body = Vec::new();
        for s in [&a, &b] {
            body.extend((s.len() as u16).to_be_bytes());
            body.extend(s.iter());
        }
        let mut list = (body.len() as u16).to_be_bytes().to_vec();
        list.extend(&body);
        let split = split_list(&list).unwrap();
        assert_eq!(split, vec![&a[..], &b[..]]);
        let sct = decode(split[1]).unwrap();
        assert_eq!(sct.log_id, [7; 32]);
        assert_eq!(sct.timestamp_ms, 1_700_000_000_000);
        assert_eq!((sct.hash, sct.signature_alg), (4, 3));
        assert_eq!(sct.signature, &[4, 5]);
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        assert_eq!(split_list(&[]), Err(SctError::Truncated));
        assert_eq!(split_list(&[0, 0]), Err(SctError::Empty));
        assert_eq!(split_list(&[0, 3, 0, 5, 1]), Err(SctError::Truncated));
        assert_eq!(split_list(&[0, 2, 0, 0]), Err(SctError::Empty));
        assert_eq!(split_list(&[0, 0, 9]), Err(SctError::TrailingData));
        let good = one_sct(&[1]);
        assert_eq!(decode(&good[..good.len() - 1]), Err(SctError::Truncated));
        let mut v2 = good.clone();
        v2[0] = 1;
        assert_eq!(decode(&v2), Err(SctError::Version(1)));
        let mut extra = good.clone();
        extra.push(0);
        assert_eq!(decode(&extra), Err(SctError::TrailingData));
        for cut in 0..good.len() {
            let _ = decode(&good[..cut]);
        }
    }

    #[test]
    fn signed_data_is_rfc_6962s_layout() {
        let enc = one_sct(&[9]);
        let sct = decode(&enc).unwrap();
        let mut out = Vec::new();
        signed_data(
            &sct,
            Entry::Precert {
                issuer_key_hash: &[0xaa; 32],
                tbs: &[0x30, 0x00],
            },
            &mut out,
        );
        let mut want = vec![0, 0];
        want.extend(1_700_000_000_000u64.to_be_bytes());
        want.extend([0, 1]);
        want.extend([0xaa; 32]);
        want.extend([0, 0, 2, 0x30, 0x00]);
        want.extend([0, 0]);
        assert_eq!(out, want);
        signed_data(&sct, Entry::X509 { cert: &[1, 2, 3] }, &mut out);
        assert_eq!(&out[10..12], &[0, 0]);
        assert_eq!(&out[12..18], &[0, 0, 3, 1, 2, 3]);
    }
}
