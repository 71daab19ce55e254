//! The DER reader every other `der` module uses: tag constants, [`DerError`], the TLV cursor
//! (`Der`, strict definite minimal lengths), and writing a TLV back ([`push_tlv`]).
//!
//! Invariant: [`Der`] never reads past its input and never panics on malformed bytes.

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

pub(crate) fn bit_string(contents: &[u8]) -> Result<&[u8], DerError> {
    match contents.split_first() {
        Some((0, rest)) => Ok(rest),
        _ => Err(DerError::BitString),
    }
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
