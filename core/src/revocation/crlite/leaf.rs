//! What CRLite reads of a path and of a filter, shared by the in-memory filter (`mod.rs`) and
//! upki's store (`upki.rs`): the leaf's serial, its issuer's key hash and its SCTs ([`Leaf`]),
//! and the checks a filter gets once, at load ([`validate`]).

use clubcard_crlite::{CRLiteClubcard, CRLiteKey, IssuerSpkiHash, LogId, Timestamp};

use crate::ct::{sct, sha256};
use crate::der;
use crate::revocation::types::{Mechanism, RevocationError, VerifiedPath};

pub(super) fn corrupt(mechanism: Mechanism, detail: String) -> RevocationError {
    RevocationError::Corrupt { mechanism, detail }
}

/// Every index entry within the matrices: the approximate filter's rank at most its column
/// count, and each query's start (`offset + hash mod m`) inside its column.
pub(super) fn validate(card: &CRLiteClubcard) -> Result<(), String> {
    let c = card.as_ref();
    for (block, e) in c.index() {
        let bad = |what: &str| format!("index entry {}: {what}", hex(&block[..4]));
        if e.approx_filter_rank > c.approx_filter.len() {
            return Err(bad("rank beyond the approximate filter's columns"));
        }
        let reach = |offset: usize, m: usize| offset.checked_add(m).map(|end| end.div_ceil(64));
        if e.approx_filter_m > 0 {
            let end = reach(e.approx_filter_offset, e.approx_filter_m);
            let short = c.approx_filter[..e.approx_filter_rank]
                .iter()
                .any(|col| end.is_none_or(|end| end > col.len()));
            if short {
                return Err(bad("approximate filter offset out of range"));
            }
        }
        if e.exact_filter_m > 0
            && reach(e.exact_filter_offset, e.exact_filter_m)
                .is_none_or(|end| end > c.exact_filter.len())
        {
            return Err(bad("exact filter offset out of range"));
        }
    }
    Ok(())
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a CRLite query reads from a path: the leaf's serial, its issuer's key hash, and its
/// embedded SCTs (`None`: no SCT extension; `Some(Err)`: a list that does not decode).
pub(super) struct Leaf<'a> {
    pub(super) serial: &'a [u8],
    pub(super) issuer: IssuerSpkiHash,
    pub(super) scts: Option<Result<Vec<Stamp>, sct::SctError>>,
}

/// One embedded SCT's log and time, or why it does not decode.
pub(super) type Stamp = Result<(LogId, Timestamp), sct::SctError>;

/// A leaf's CRLite key: the issuer's key hash and the serial, hashed once.
pub(super) struct Key<'a>(&'a IssuerSpkiHash, &'a [u8]);

impl Key<'_> {
    pub(super) fn crlite(&self) -> CRLiteKey<'_> {
        CRLiteKey::new(self.0, self.1)
    }
}

impl<'a> Leaf<'a> {
    pub(super) fn read(path: &VerifiedPath<'a>) -> Result<Leaf<'a>, RevocationError> {
        let bad = |what: &str| RevocationError::BadPath(format!("CRLite: {what}"));
        let leaf = *path.certs.first().ok_or_else(|| bad("an empty path"))?;
        let issuer_spki = match path.certs.get(1) {
            Some(issuer) => der::spki_tlv(issuer).ok_or_else(|| bad("the issuer's key"))?,
            None => path.anchor_spki,
        };
        // The content bytes of the serialNumber INTEGER (what CRLite keys on, as Gecko's
        // `CertID::serialNumber` and webpki's `Cert::serial` give it).
        let serial = der::serial(leaf)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| bad("the leaf's serial number"))?;
        let scts = der::embedded_scts(leaf)
            .map_err(|e| bad(&format!("the leaf's extensions: {e}")))?
            .map(|e| {
                sct::split_list(e.list).map(|list| {
                    list.into_iter()
                        .map(|s| {
                            sct::decode(s).map(|s| (LogId(s.log_id), Timestamp(s.timestamp_ms)))
                        })
                        .collect()
                })
            });
        Ok(Leaf {
            serial,
            issuer: IssuerSpkiHash(sha256(issuer_spki)),
            scts,
        })
    }

    pub(super) fn key(&self) -> Key<'_> {
        Key(&self.issuer, self.serial)
    }

    /// The SCTs as upki reads them (webpki's `sct_log_timestamps`): none without the
    /// extension, an error for any SCT that does not decode.
    pub(super) fn strict_scts(&self) -> Result<Vec<(LogId, Timestamp)>, RevocationError> {
        let bad = |e: sct::SctError| RevocationError::BadPath(format!("upki: invalid SCT: {e}"));
        match &self.scts {
            None => Ok(Vec::new()),
            Some(Err(e)) => Err(bad(*e)),
            Some(Ok(list)) => list.iter().map(|s| s.map_err(bad)).collect(),
        }
    }
}
