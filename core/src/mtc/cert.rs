//! A Merkle Tree Certificate read from its DER (draft-ietf-plants-merkle-tree-certs-07 §6.1,
//! §7.2): the fields of its TBSCertificate, its serial as log number and entry index, its
//! issuer as a CA ID, its `MTCProof` (the signature value), and the hash of the log entry it
//! stands for, computed in one pass over the TBSCertificate as §7.2 describes. Also the
//! encodings an issuer needs: an `MTCProof`, a cosigned subtree message, a CA ID's name.
//!
//! Invariant: reading is total: malformed bytes are an [`MtcError`], never a panic and never a
//! partial certificate.

use aws_lc_rs::digest;

use super::tree::{HASH_SIZE, Hash};
use super::{MtcError, oid};
use crate::der::{Der, SEQUENCE};

/// `subtree/v1\n\0`: the label of a cosigned subtree (§5.3.1).
const COSIGNED_LABEL: &[u8; 12] = b"subtree/v1\n\0";

/// One cosignature of an `MTCProof`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubtreeSignature<'a> {
    /// The cosigner's ID, a trust anchor ID in binary (RELATIVE-OID contents).
    pub cosigner_id: &'a [u8],
    /// The signature over the cosigned subtree.
    pub signature: &'a [u8],
}

/// The `MTCProof` of a certificate's signature value (§6.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MtcProof<'a> {
    /// The log entry's extensions, without their length prefix (hashed as they are).
    pub extensions: &'a [u8],
    /// The subtree's start.
    pub start: u64,
    /// The subtree's end.
    pub end: u64,
    /// The inclusion proof's hashes.
    pub inclusion: Vec<Hash>,
    /// The cosignatures, in the canonical order §6.1 requires.
    pub signatures: Vec<SubtreeSignature<'a>>,
}

/// A Merkle Tree Certificate's parts, borrowed from its DER.
#[derive(Clone, Debug)]
pub struct MtcCert<'a> {
    /// The issuance log's number (`serial >> 48`), never 0.
    pub log_number: u16,
    /// The entry's index in the log (`serial`'s low 48 bits).
    pub index: u64,
    /// The CA ID of the issuer name (a trust anchor ID in binary).
    pub ca_id: &'a [u8],
    /// The proof of the signature value.
    pub proof: MtcProof<'a>,
    /// `MTH({entry})` of the log entry the TBSCertificate stands for.
    pub entry_hash: Hash,
}

impl<'a> MtcCert<'a> {
    /// Reads `der` as a Merkle Tree Certificate: both algorithm identifiers must be
    /// `id-alg-mtcProof` without parameters (§7.2 steps 1-5).
    pub fn parse(der: &'a [u8]) -> Result<MtcCert<'a>, MtcError> {
        let mut outer = Der::new(crate::der::sequence_contents(der)?);
        let (tag, tbs, _) = outer.next()?;
        if tag != SEQUENCE {
            return Err(MtcError::Malformed("tbsCertificate"));
        }
        if outer.expect(SEQUENCE)? != oid::MTC_PROOF_ALG {
            return Err(MtcError::NotMtc);
        }
        let value = outer.expect(crate::der::BIT_STRING)?;
        outer.finish()?;
        let proof = match value.split_first() {
            Some((0, proof)) => MtcProof::parse(proof)?,
            _ => return Err(MtcError::Malformed("signature value bits")),
        };
        let mut r = Der::new(tbs);
        let mut version: &[u8] = &[];
        if r.peek() == Some(0xa0) {
            version = r.next()?.2;
        }
        let (log_number, index) = split_serial(r.expect(crate::der::INTEGER)?)?;
        if r.expect(SEQUENCE)? != oid::MTC_PROOF_ALG {
            return Err(MtcError::NotMtc);
        }
        let (_, issuer, issuer_tlv) = r.next()?;
        let ca_id = ca_id_of_name(issuer)?;
        let validity = r.next()?.2;
        let subject = r.next()?.2;
        let (tag, spki, spki_tlv) = r.next()?;
        if tag != SEQUENCE {
            return Err(MtcError::Malformed("subjectPublicKeyInfo"));
        }
        let spki_alg = Der::new(spki).next()?.2;
        let mut h = digest::Context::new(&digest::SHA256);
        h.update(&[0x00]);
        h.update(&(proof.extensions.len() as u16).to_be_bytes());
        h.update(proof.extensions);
        h.update(&[0x00, 0x01]); // tbs_cert_entry
        for part in [version, issuer_tlv, validity, subject, spki_alg] {
            h.update(part);
        }
        h.update(&[crate::der::OCTET_STRING, HASH_SIZE as u8]);
        h.update(digest::digest(&digest::SHA256, spki_tlv).as_ref());
        h.update(r.rest());
        let mut entry_hash = [0u8; HASH_SIZE];
        entry_hash.copy_from_slice(h.finish().as_ref());
        Ok(MtcCert {
            log_number,
            index,
            ca_id,
            proof,
            entry_hash,
        })
    }
}

/// The serial `(log_number << 48) | index` of INTEGER contents (§6.1); a negative serial, one
/// above `2^64 - 1`, or log number 0 is an error.
fn split_serial(contents: &[u8]) -> Result<(u16, u64), MtcError> {
    let bytes = match contents {
        [0, rest @ ..] if rest.first().is_some_and(|b| b & 0x80 != 0) => rest,
        [b, ..] if b & 0x80 == 0 => contents,
        _ => return Err(MtcError::BadSerial),
    };
    if bytes.len() > 8 {
        return Err(MtcError::BadSerial);
    }
    let serial = bytes.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b));
    let log_number = (serial >> 48) as u16;
    if log_number == 0 {
        return Err(MtcError::BadSerial);
    }
    Ok((log_number, serial & 0xffff_ffff_ffff))
}

/// The CA ID of a name of one RDN of one `id-rdna-trustAnchorID` attribute whose value is a
/// RELATIVE-OID (§5.1).
pub(crate) fn ca_id_of_name(name: &[u8]) -> Result<&[u8], MtcError> {
    let mut rdns = Der::new(name);
    let mut rdn = Der::new(rdns.expect(0x31)?);
    rdns.finish()?;
    let mut attr = Der::new(rdn.expect(SEQUENCE)?);
    rdn.finish()?;
    if attr.expect(crate::der::OID)? != oid::TRUST_ANCHOR_ID_ATTR {
        return Err(MtcError::Malformed("issuer is not a CA ID"));
    }
    let id = attr.expect(0x0d)?;
    attr.finish()?;
    if id.is_empty() || id.last().is_some_and(|b| b & 0x80 != 0) {
        return Err(MtcError::Malformed("CA ID"));
    }
    Ok(id)
}

/// The DER of the name a CA ID determines (§5.1): what an MTC's issuer and its CA
/// certificate's subject are.
pub fn ca_id_name(ca_id: &[u8]) -> Vec<u8> {
    let mut attr = Vec::new();
    crate::der::push_tlv(&mut attr, crate::der::OID, oid::TRUST_ANCHOR_ID_ATTR);
    crate::der::push_tlv(&mut attr, 0x0d, ca_id);
    let (mut seq, mut rdn, mut name) = (Vec::new(), Vec::new(), Vec::new());
    crate::der::push_tlv(&mut seq, SEQUENCE, &attr);
    crate::der::push_tlv(&mut rdn, 0x31, &seq);
    crate::der::push_tlv(&mut name, SEQUENCE, &rdn);
    name
}

/// A trust anchor ID's `oid/1.3.6.1.4.1.<id>` form (§5.3.1): a cosigner name, a log origin.
pub fn note_name(id: &[u8]) -> Vec<u8> {
    let mut out = b"oid/1.3.6.1.4.1".to_vec();
    let mut arc: u128 = 0;
    for &b in id {
        arc = (arc << 7) | u128::from(b & 0x7f);
        if b & 0x80 == 0 {
            out.extend_from_slice(format!(".{arc}").as_bytes());
            arc = 0;
        }
    }
    out
}

/// A log's ID: the CA ID, then 0, then the log number (§5.2).
pub fn log_id(ca_id: &[u8], log_number: u16) -> Vec<u8> {
    let mut id = ca_id.to_vec();
    id.push(0);
    let n = u32::from(log_number);
    for shift in [14, 7] {
        if n >> shift != 0 {
            id.push(0x80 | ((n >> shift) & 0x7f) as u8);
        }
    }
    id.push((n & 0x7f) as u8);
    id
}

/// The message a cosigner signs for subtree `[start, end)` of log `log_number` of CA `ca_id`
/// (§5.3.1, with the timestamp 0 a certificate's cosignatures use).
pub fn cosigned_message(
    cosigner_id: &[u8],
    ca_id: &[u8],
    log_number: u16,
    start: u64,
    end: u64,
    hash: &Hash,
) -> Vec<u8> {
    let (name, origin) = (
        note_name(cosigner_id),
        note_name(&log_id(ca_id, log_number)),
    );
    let mut m = COSIGNED_LABEL.to_vec();
    m.push(name.len() as u8);
    m.extend_from_slice(&name);
    m.extend_from_slice(&0u64.to_be_bytes());
    m.push(origin.len() as u8);
    m.extend_from_slice(&origin);
    m.extend_from_slice(&start.to_be_bytes());
    m.extend_from_slice(&end.to_be_bytes());
    m.extend_from_slice(hash);
    m
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], MtcError> {
        if self.0.len() < n {
            return Err(MtcError::Malformed("MTCProof truncated"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn uint(&mut self, n: usize) -> Result<u64, MtcError> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |v, &b| (v << 8) | u64::from(b)))
    }

    fn vector(&mut self, len_bytes: usize) -> Result<&'a [u8], MtcError> {
        let n = self.uint(len_bytes)? as usize;
        self.take(n)
    }
}

impl<'a> MtcProof<'a> {
    /// A proof of nothing (no extensions, subtree `[0, 0)`, no hashes, no signatures): what an
    /// issuer encodes before the entry's place is known (the entry's hash does not depend on
    /// the proof beyond its extensions).
    pub fn empty() -> MtcProof<'static> {
        MtcProof {
            extensions: &[],
            start: 0,
            end: 0,
            inclusion: Vec::new(),
            signatures: Vec::new(),
        }
    }

    /// Reads an `MTCProof` (TLS presentation language; -07's 24-bit signatures vector), with
    /// nothing after it and cosigner IDs strictly in §6.1's order.
    pub fn parse(bytes: &'a [u8]) -> Result<MtcProof<'a>, MtcError> {
        let mut r = Reader(bytes);
        let extensions = r.vector(2)?;
        let (start, end) = (r.uint(6)?, r.uint(6)?);
        let hashes = r.vector(2)?;
        if hashes.len() % HASH_SIZE != 0 {
            return Err(MtcError::Malformed("inclusion proof length"));
        }
        let inclusion = hashes
            .chunks_exact(HASH_SIZE)
            .map(|c| {
                let mut h = [0u8; HASH_SIZE];
                h.copy_from_slice(c);
                h
            })
            .collect();
        let mut sigs = Reader(r.vector(3)?);
        let mut signatures: Vec<SubtreeSignature<'a>> = Vec::new();
        while !sigs.0.is_empty() {
            let cosigner_id = sigs.vector(1)?;
            let signature = sigs.vector(2)?;
            let ordered = |a: &[u8], b: &[u8]| (a.len(), a) < (b.len(), b);
            if cosigner_id.is_empty()
                || signatures
                    .last()
                    .is_some_and(|p| !ordered(p.cosigner_id, cosigner_id))
            {
                return Err(MtcError::Malformed("cosigner IDs out of order"));
            }
            signatures.push(SubtreeSignature {
                cosigner_id,
                signature,
            });
        }
        if !r.0.is_empty() {
            return Err(MtcError::Malformed("data after the MTCProof"));
        }
        Ok(MtcProof {
            extensions,
            start,
            end,
            inclusion,
            signatures,
        })
    }

    /// The proof's bytes, as the signature value carries them.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.extensions.len() as u16).to_be_bytes());
        out.extend_from_slice(self.extensions);
        out.extend_from_slice(&self.start.to_be_bytes()[2..]);
        out.extend_from_slice(&self.end.to_be_bytes()[2..]);
        out.extend_from_slice(&((self.inclusion.len() * HASH_SIZE) as u16).to_be_bytes());
        for h in &self.inclusion {
            out.extend_from_slice(h);
        }
        let mut sigs = Vec::new();
        for s in &self.signatures {
            sigs.push(s.cosigner_id.len() as u8);
            sigs.extend_from_slice(s.cosigner_id);
            sigs.extend_from_slice(&(s.signature.len() as u16).to_be_bytes());
            sigs.extend_from_slice(s.signature);
        }
        out.extend_from_slice(&(sigs.len() as u32).to_be_bytes()[1..]);
        out.extend_from_slice(&sigs);
        out
    }
}
