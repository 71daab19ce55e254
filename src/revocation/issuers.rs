//! The issuers the revocation data holds: those of the corpus' leaves and of the mirror's, read
//! from the chains themselves (each leaf's serial, its SCTs, and the key of the certificate
//! that issued it), with which leaves are revoked.
//!
//! Which leaves are revoked: revoked.badssl.com's, in the corpus (its CA revoked it: the real
//! OCSP response in its folder says so) and in the mirror (its clone); every other leaf is
//! not. The issuer of a leaf is the sent certificate or root whose subject is the leaf's
//! issuer, as a path builder finds it.

use std::collections::BTreeMap;

use certbench_core::ct::sct;
use certbench_core::der;
use rustls_pki_types::CertificateDer;

use super::{Issued, Issuer};
use crate::certs::mirror_revocation::REVOKED_HOSTS;

/// One leaf with the certificates a path builder could find its issuer among.
pub struct Leaf<'a> {
    /// The host it is for.
    pub host: &'a str,
    /// The leaf.
    pub leaf: &'a [u8],
    /// The certificates sent after it, and the roots.
    pub candidates: Vec<&'a [u8]>,
}

/// Why a leaf cannot be put in the data.
#[derive(Debug, thiserror::Error)]
#[error("{host}: {what}")]
pub struct IssuerError {
    /// The leaf's host.
    pub host: String,
    /// What is wrong.
    pub what: String,
}

/// The leaf's embedded SCTs as (log id, timestamp in ms).
pub fn scts(leaf: &[u8]) -> Vec<([u8; 32], u64)> {
    let Ok(Some(embedded)) = der::embedded_scts(leaf) else {
        return Vec::new();
    };
    let Ok(list) = sct::split_list(embedded.list) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|encoded| sct::decode(encoded).ok())
        .map(|s| (s.log_id, s.timestamp_ms))
        .collect()
}

/// The issuers of `leaves`, one per issuing key, each with the leaves it issued (revoked as
/// [`REVOKED_HOSTS`] says), in a stable order (by key). A leaf whose issuer is not among its
/// candidates is left out; one that does not parse is an error.
pub fn issuers(leaves: &[Leaf<'_>]) -> Result<Vec<Issuer>, IssuerError> {
    let mut by_key: BTreeMap<Vec<u8>, Issuer> = BTreeMap::new();
    for l in leaves {
        let err = |what: &str| IssuerError {
            host: l.host.to_owned(),
            what: what.to_owned(),
        };
        let issuer_name = der::issuer(l.leaf).ok_or_else(|| err("the leaf does not parse"))?;
        let Some(issuer) = l
            .candidates
            .iter()
            .find(|c| der::SignedParts::parse(c).is_ok_and(|p| p.subject == issuer_name))
        else {
            // A leaf whose issuer is nowhere (a self-signed one, a fault host of the mirror):
            // no data can hold it, and a check finds its issuer not enrolled.
            continue;
        };
        let spki = der::spki_tlv(issuer).ok_or_else(|| err("the issuer's key does not parse"))?;
        let serial = der::serial(l.leaf).ok_or_else(|| err("the leaf's serial"))?;
        let entry = by_key.entry(spki.to_vec()).or_insert_with(|| Issuer {
            name: der::SignedParts::parse(issuer)
                .map(|p| String::from_utf8_lossy(p.subject).into_owned())
                .unwrap_or_default(),
            spki: spki.to_vec(),
            issued: Vec::new(),
        });
        if entry.issued.iter().any(|i| i.serial == serial) {
            continue; // the same leaf twice (a host served from two corpus entries)
        }
        entry.issued.push(Issued {
            serial: serial.to_vec(),
            revoked: REVOKED_HOSTS.contains(&l.host),
            scts: scts(l.leaf),
        });
    }
    Ok(by_key.into_values().collect())
}

/// The corpus' leaves, with their sent certificates and roots as candidates.
pub fn corpus_leaves(corpus: &certbench_core::corpus::Corpus) -> Vec<Leaf<'_>> {
    corpus
        .chains
        .iter()
        .map(|c| Leaf {
            host: &c.host,
            leaf: c.chain.leaf.as_ref(),
            candidates: (c.chain.intermediates.iter())
                .chain(c.roots.iter())
                .map(CertificateDer::as_ref)
                .collect(),
        })
        .collect()
}

/// The mirror's leaves, with their sent certificates and the mirror's roots as candidates;
/// a fault host's leaf whose issuer is none of them (the self-signed leaf, the chain under an
/// untrusted root) is left out: no client of the mirror could build its path.
pub fn mirror_leaves(set: &crate::mirror::MirrorSet) -> Vec<Leaf<'_>> {
    set.hosts
        .iter()
        .filter_map(|(host, h)| {
            let (leaf, sent) = h.chain.split_first()?;
            let candidates: Vec<&[u8]> = (sent.iter())
                .chain(set.roots.iter())
                .map(CertificateDer::as_ref)
                .collect();
            let issuer = der::issuer(leaf)?;
            let issued = |c: &&[u8]| der::SignedParts::parse(c).is_ok_and(|p| p.subject == issuer);
            candidates.iter().any(issued).then_some(Leaf {
                host,
                leaf: leaf.as_ref(),
                candidates,
            })
        })
        .collect()
}
