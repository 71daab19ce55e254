//! A relying party's Merkle Tree CAs (draft-ietf-plants-merkle-tree-certs-07 §7.1), read from
//! the CA certificates among a trust store's roots (§5.5): the CA ID (the subject), the CA
//! cosigner's key (the subjectPublicKeyInfo), the serials not revoked (minSerial, maxSerial of
//! the critical `id-pe-mtcCertificationAuthority-SHA256` extension), and the trusted subtrees
//! (landmarks) held, which the draft distributes out of band and certbench carries in its own
//! extension on the same certificate ([`super::oid::CERTBENCH_TRUSTED_SUBTREES`]).
//!
//! Invariant: a root that is no MTC CA certificate is skipped (the same roots serve the X.509
//! methods); one that claims to be one but does not read is skipped too, so it trusts nothing.

use rustls_pki_types::CertificateDer;

use super::tree::Hash;
use super::{MtcError, oid};
use crate::der::{Der, INTEGER, OCTET_STRING, SEQUENCE};

/// A subtree the relying party holds, with its hash (§7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrustedSubtree {
    /// The log's number.
    pub log_number: u16,
    /// The subtree's start.
    pub start: u64,
    /// The subtree's end.
    pub end: u64,
    /// Its hash.
    pub hash: Hash,
}

/// A cosigner besides the CA's own (a mirror) whose signatures the relying party accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cosigner {
    /// Its ID (binary trust anchor ID).
    pub id: Vec<u8>,
    /// Its subjectPublicKeyInfo contents (algorithm, then key).
    pub spki: Vec<u8>,
}

/// One Merkle Tree CA as the relying party trusts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaTrust {
    /// The CA ID (binary trust anchor ID), which is also its cosigner's ID.
    pub ca_id: Vec<u8>,
    /// The CA cosigner's subjectPublicKeyInfo contents (algorithm, then key).
    pub cosigner_spki: Vec<u8>,
    /// The lowest serial not revoked.
    pub min_serial: u64,
    /// The highest serial not revoked.
    pub max_serial: u64,
    /// The trusted subtrees held (the CA's active landmarks' subtrees).
    pub subtrees: Vec<TrustedSubtree>,
    /// The CA's other cosigners (certbench's [`oid::CERTBENCH_COSIGNERS`]): with the CA's
    /// own, the set a standalone certificate's cosignatures are counted from.
    pub cosigners: Vec<Cosigner>,
}

impl CaTrust {
    /// The cosigner set: the CA's own cosigner (ID the CA ID), then the others. Each as
    /// (ID, subjectPublicKeyInfo contents).
    pub fn cosigner_set(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        let own = std::iter::once((self.ca_id.as_slice(), self.cosigner_spki.as_slice()));
        own.chain((self.cosigners.iter()).map(|c| (c.id.as_slice(), c.spki.as_slice())))
    }
}

/// The Merkle Tree CAs of a trust store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MtcTrust {
    /// The CAs, in the roots' order.
    pub cas: Vec<CaTrust>,
}

impl MtcTrust {
    /// The CAs among `roots`: each root that reads as an MTC CA certificate.
    pub fn from_roots(roots: &[CertificateDer<'_>]) -> MtcTrust {
        MtcTrust {
            cas: roots
                .iter()
                .filter_map(|r| CaTrust::from_ca_certificate(r).ok())
                .collect(),
        }
    }

    /// The trust anchor IDs of the landmarks held: each CA's newest trusted subtree's
    /// ([`landmark_id`]).
    pub fn landmark_ids(&self) -> Vec<Vec<u8>> {
        (self.cas.iter())
            .filter_map(|ca| {
                let newest = ca.subtrees.iter().max_by_key(|s| (s.log_number, s.end))?;
                Some(landmark_id(&ca.ca_id, newest.log_number, newest.end))
            })
            .collect()
    }

    /// The CA of `ca_id`, if trusted.
    pub fn ca(&self, ca_id: &[u8]) -> Option<&CaTrust> {
        self.cas.iter().find(|c| c.ca_id == ca_id)
    }
}

impl CaTrust {
    /// Reads a CA certificate (§5.5): its subject a CA ID, its critical MTC CA extension.
    pub fn from_ca_certificate(der: &[u8]) -> Result<CaTrust, MtcError> {
        let mut outer = Der::new(crate::der::sequence_contents(der)?);
        let mut r = Der::new(outer.expect(SEQUENCE)?);
        if r.peek() == Some(crate::der::VERSION) {
            r.next()?;
        }
        for _ in ["serial", "signature", "issuer", "validity"] {
            r.next()?;
        }
        let subject = r.expect(SEQUENCE)?;
        let ca_id = super::cert::ca_id_of_name(subject)?.to_vec();
        let cosigner_spki = r.expect(SEQUENCE)?.to_vec();
        let (mut ca, mut subtrees, mut cosigners) = (None, Vec::new(), Vec::new());
        while let Ok((tag, contents, _)) = r.next() {
            if tag != crate::der::EXTENSIONS {
                continue;
            }
            let mut exts = Der::new(Der::new(contents).expect(SEQUENCE)?);
            while exts.peek().is_some() {
                let mut ext = Der::new(exts.expect(SEQUENCE)?);
                let id = ext.expect(crate::der::OID)?;
                let critical = ext.peek() == Some(crate::der::BOOLEAN)
                    && ext.expect(crate::der::BOOLEAN)? == [0xff];
                let value = ext.expect(OCTET_STRING)?;
                if id == oid::MTC_CA_EXTENSION && critical {
                    ca = Some(serial_bounds(value)?);
                } else if id == oid::CERTBENCH_TRUSTED_SUBTREES {
                    subtrees = trusted_subtrees(value)?;
                } else if id == oid::CERTBENCH_COSIGNERS {
                    cosigners = cosigners_of(value)?;
                }
            }
        }
        let (min_serial, max_serial) = ca.ok_or(MtcError::Malformed("not an MTC CA"))?;
        Ok(CaTrust {
            ca_id,
            cosigner_spki,
            min_serial,
            max_serial,
            subtrees,
            cosigners,
        })
    }
}

/// The trust anchor ID (binary RELATIVE-OID) naming the landmark that ends at `end` in log
/// `log_number` of the CA `ca_id`: the CA ID's arcs, then the log number, then `end`
/// (certbench's naming: the draft names landmarks by trust anchor IDs and leaves the arcs to
/// the CA). A client holding it can verify every landmark-relative certificate whose subtree
/// ends there.
pub fn landmark_id(ca_id: &[u8], log_number: u16, end: u64) -> Vec<u8> {
    let mut id = ca_id.to_vec();
    for arc in [u64::from(log_number), end] {
        let mut groups = vec![(arc & 0x7f) as u8];
        let mut rest = arc >> 7;
        while rest > 0 {
            groups.push(0x80 | (rest & 0x7f) as u8);
            rest >>= 7;
        }
        id.extend(groups.iter().rev());
    }
    id
}

/// certbench's `SEQUENCE OF SEQUENCE { id OCTET STRING, SubjectPublicKeyInfo }`.
fn cosigners_of(value: &[u8]) -> Result<Vec<Cosigner>, MtcError> {
    let mut list = Der::new(crate::der::sequence_contents(value)?);
    let mut out = Vec::new();
    while list.peek().is_some() {
        let mut c = Der::new(list.expect(SEQUENCE)?);
        let id = c.expect(OCTET_STRING)?.to_vec();
        let spki = c.expect(SEQUENCE)?.to_vec();
        c.finish()?;
        if id.is_empty() {
            return Err(MtcError::Malformed("empty cosigner ID"));
        }
        out.push(Cosigner { id, spki });
    }
    Ok(out)
}

/// certbench's cosigners extension value for `cosigners`, each (ID, SubjectPublicKeyInfo
/// DER) (what the issuer writes).
pub fn encode_cosigners(cosigners: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut items = Vec::new();
    for (id, spki_der) in cosigners {
        let mut one = Vec::new();
        crate::der::push_tlv(&mut one, OCTET_STRING, id);
        one.extend_from_slice(spki_der);
        crate::der::push_tlv(&mut items, SEQUENCE, &one);
    }
    let mut out = Vec::new();
    crate::der::push_tlv(&mut out, SEQUENCE, &items);
    out
}

/// `MTCCertificationAuthority ::= SEQUENCE { sigAlg, minSerial, maxSerial }` (-07).
fn serial_bounds(value: &[u8]) -> Result<(u64, u64), MtcError> {
    let mut r = Der::new(crate::der::sequence_contents(value)?);
    r.expect(SEQUENCE)?;
    let min = uint(r.expect(INTEGER)?)?;
    let max = uint(r.expect(INTEGER)?)?;
    r.finish()?;
    Ok((min, max))
}

/// certbench's `SEQUENCE OF SEQUENCE { logNumber, start, end INTEGER, hash OCTET STRING }`.
fn trusted_subtrees(value: &[u8]) -> Result<Vec<TrustedSubtree>, MtcError> {
    let mut list = Der::new(crate::der::sequence_contents(value)?);
    let mut out = Vec::new();
    while list.peek().is_some() {
        let mut s = Der::new(list.expect(SEQUENCE)?);
        let log_number = u16::try_from(uint(s.expect(INTEGER)?)?)
            .map_err(|_| MtcError::Malformed("log number"))?;
        let (start, end) = (uint(s.expect(INTEGER)?)?, uint(s.expect(INTEGER)?)?);
        let hash: Hash = s
            .expect(OCTET_STRING)?
            .try_into()
            .map_err(|_| MtcError::Malformed("subtree hash size"))?;
        s.finish()?;
        out.push(TrustedSubtree {
            log_number,
            start,
            end,
            hash,
        });
    }
    Ok(out)
}

/// A non-negative INTEGER's contents as a `u64`.
pub(crate) fn uint(contents: &[u8]) -> Result<u64, MtcError> {
    let bytes = match contents {
        [0, rest @ ..] if !rest.is_empty() => rest,
        [b, ..] if b & 0x80 == 0 => contents,
        _ => return Err(MtcError::Malformed("INTEGER")),
    };
    if bytes.len() > 8 {
        return Err(MtcError::Malformed("INTEGER above 2^64 - 1"));
    }
    Ok(bytes.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)))
}

/// certbench's trusted-subtrees extension value for `subtrees` (what the issuer writes).
pub fn encode_trusted_subtrees(subtrees: &[TrustedSubtree]) -> Vec<u8> {
    let mut items = Vec::new();
    for s in subtrees {
        let mut one = Vec::new();
        for n in [u64::from(s.log_number), s.start, s.end] {
            crate::der::push_tlv(&mut one, INTEGER, &uint_contents(n));
        }
        crate::der::push_tlv(&mut one, OCTET_STRING, &s.hash);
        crate::der::push_tlv(&mut items, SEQUENCE, &one);
    }
    let mut out = Vec::with_capacity(items.len() + 4);
    crate::der::push_tlv(&mut out, SEQUENCE, &items);
    out
}

/// A non-negative INTEGER's minimal DER contents.
pub fn uint_contents(n: u64) -> Vec<u8> {
    let bytes = n.to_be_bytes();
    let first = bytes.iter().position(|&b| b != 0).unwrap_or(7);
    let mut out = bytes[first..].to_vec();
    if out[0] & 0x80 != 0 {
        out.insert(0, 0);
    }
    out
}
