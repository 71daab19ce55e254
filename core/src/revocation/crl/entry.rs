//! One CRL as loaded ([`Crl`]): rustls-webpki's owned form, its DER and where the signed
//! parts are in it ([`SignedRanges`]), and the heap webpki's owned form holds
//! ([`owned_heap_estimate`], glibc malloc chunks).
//!
//! Invariant: `signed`'s ranges lie inside `der` (they come from `split_signed` on it).

use std::mem::size_of;

use webpki::{CertRevocationList, OwnedRevokedCert};

use super::fields::{INTEGER, Reader, SEQUENCE, tlv_contents};

/// One CRL as loaded: rustls-webpki's owned form, and the DER it came from (webpki keeps the
/// signed parts private; the per-lookup signature check reads them from here).
pub(crate) struct Crl {
    pub(crate) list: CertRevocationList<'static>,
    pub(crate) der: Vec<u8>,
    /// Where the signed parts are in `der`.
    pub(crate) signed: SignedRanges,
}

/// A signed structure's parts, as byte ranges of its DER.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SignedRanges {
    /// The whole tbsCertList TLV.
    pub(crate) tbs: (usize, usize),
    /// The signatureAlgorithm's contents.
    pub(crate) alg: (usize, usize),
    /// The signature BIT STRING's contents after the unused-bits octet.
    pub(crate) sig: (usize, usize),
}

/// The heap webpki's `OwnedCertRevocationList` holds (see [`Crls::resident_bytes`]), from
/// the DER: its revoked entries' serials and its copied parts.
pub(crate) fn owned_heap_estimate(
    der: &[u8],
    signed: SignedRanges,
    list: &CertRevocationList<'_>,
) -> u64 {
    let mut serials = Vec::new();
    let entries = (|| {
        let mut t = Reader::new(tlv_contents(&der[signed.tbs.0..signed.tbs.1], SEQUENCE).ok()?);
        if t.peek() == Some(INTEGER) {
            t.next().ok()?; // version
        }
        for _ in 0..4 {
            t.next().ok()?; // signature, issuer, thisUpdate, nextUpdate
        }
        (t.peek() == Some(SEQUENCE)).then(|| t.expect(SEQUENCE).ok())?
    })();
    let mut r = Reader::new(entries.unwrap_or(&[]));
    while let Ok(entry) = r.expect(SEQUENCE) {
        if let Ok(serial) = Reader::new(entry).expect(INTEGER) {
            serials.push(serial.len());
        }
    }
    let fixed = [
        signed.tbs.1 - signed.tbs.0,
        signed.alg.1 - signed.alg.0,
        signed.sig.1 - signed.sig.0,
        list.issuer().len(),
        list.issuing_distribution_point().map_or(0, <[u8]>::len),
    ];
    heap_estimate(&serials, &fixed)
}

/// A glibc malloc chunk for `len` bytes (header included, 16-byte granules, 32 at least).
fn chunk(len: usize) -> u64 {
    if len == 0 {
        0
    } else {
        ((len + 8).div_ceil(16) * 16).max(32) as u64
    }
}

/// The heap webpki's owned CRL holds for `serials` revoked entries (their serials' lengths)
/// and its copied parts (`fixed`: tbsCertList, algorithm, signature, issuer, IDP).
fn heap_estimate(serials: &[usize], fixed: &[usize]) -> u64 {
    const B: usize = 6; // std's B-tree: CAPACITY = 2 * B - 1 slots per node
    let slot = (size_of::<Vec<u8>>() + size_of::<OwnedRevokedCert>()) as u64;
    let n = serials.len() as u64;
    let per_node = (2 * B - 1) as u64;
    // A leaf node: its slots, parent pointer, index and length; internal nodes add one
    // child pointer per slot and are about one in `per_node` of the nodes.
    let leaf = per_node * slot + 16;
    let nodes = n.div_ceil(per_node);
    let internal = nodes.div_ceil(per_node) * (leaf + (per_node + 1) * 8);
    let tree = chunk(leaf as usize) * nodes + internal;
    let keys: u64 = serials.iter().map(|&l| 2 * chunk(l)).sum();
    let parts: u64 = fixed.iter().map(|&l| chunk(l)).sum();
    tree + keys + parts
}
