//! The verified path a revocation check reads ([`PathParts`], viewed as a
//! [`VerifiedPath`]), from the two kinds of method: a native verifier hands back the path it
//! built, anchor certificate last ([`PathParts::from_native`]); a rustls method's path is not
//! exposed by every method (rustls' `ServerCertVerifier` keeps it), so it is found by names
//! ([`PathParts::by_names`]) the way webpki's path builder tries candidates: the trust anchors
//! whose subject is the certificate's issuer first, then the certificates sent, in order.
//!
//! Invariant: a path found by names only links subjects to issuers; the method has already
//! verified the chain's signatures, and a wrong pick (a cross-signed issuer of the same name)
//! can only give a revocation check the wrong issuer key, which fails a CRL's or a response's
//! signature (a rejection), never an accept of a revoked certificate the right issuer lists…
//! except for a filter keyed by the issuer's key hash (CRLite, CRLSet), where the wrong
//! issuer gives "not enrolled": that case is the one `chrome` and `firefox` avoid by using
//! the path their builder returned.

use rustls_pki_types::TrustAnchor;

use super::types::{RevocationError, VerifiedPath};
use crate::chain::Chain;
use crate::der;

/// The most certificates a path found by names may hold (webpki's own limit is 6
/// intermediates; this only stops a loop of names).
const MAX_PATH: usize = 16;

/// A verified path's parts, owned where the method's form differs from [`VerifiedPath`]'s.
#[derive(Clone, Debug)]
pub struct PathParts<'a> {
    certs: Vec<&'a [u8]>,
    anchor_subject: Vec<u8>,
    anchor_spki: Vec<u8>,
    anchor_cert: Option<&'a [u8]>,
}

impl<'a> PathParts<'a> {
    /// The path as the check reads it.
    pub fn view(&self) -> VerifiedPath<'_> {
        VerifiedPath {
            certs: &self.certs,
            anchor_subject: &self.anchor_subject,
            anchor_spki: &self.anchor_spki,
            anchor_cert: self.anchor_cert,
        }
    }

    /// The certificates below the anchor, leaf first.
    pub fn certs(&self) -> &[&'a [u8]] {
        &self.certs
    }

    /// A native verifier's path: leaf first, the trust anchor's certificate last.
    pub fn from_native(path: Vec<&'a [u8]>) -> Result<PathParts<'a>, RevocationError> {
        let (&anchor, below) = path
            .split_last()
            .ok_or_else(|| RevocationError::BadPath("the verifier built no path".into()))?;
        if below.is_empty() {
            return Err(RevocationError::BadPath(
                "the path holds only its trust anchor".into(),
            ));
        }
        let parts = der::SignedParts::parse(anchor)
            .map_err(|e| RevocationError::BadPath(format!("the anchor: {e:?}")))?;
        let mut subject = Vec::with_capacity(parts.subject.len() + 4);
        der::push_tlv(&mut subject, 0x30, parts.subject);
        let spki = der::spki_tlv(anchor)
            .ok_or_else(|| RevocationError::BadPath("the anchor's key".into()))?
            .to_vec();
        Ok(PathParts {
            certs: below.to_vec(),
            anchor_subject: subject,
            anchor_spki: spki,
            anchor_cert: Some(anchor),
        })
    }

    /// `chain`'s path to one of `anchors`, by names (see the module docs).
    pub fn by_names(
        chain: &'a Chain,
        anchors: &[TrustAnchor<'_>],
    ) -> Result<PathParts<'a>, RevocationError> {
        let mut certs: Vec<&'a [u8]> = vec![chain.leaf.as_ref()];
        let mut used = vec![false; chain.intermediates.len()];
        while certs.len() <= MAX_PATH {
            let current = *certs.last().expect("never empty");
            let issuer = der::issuer(current)
                .ok_or_else(|| RevocationError::BadPath("a certificate's issuer".into()))?;
            if let Some(anchor) = anchors.iter().find(|a| a.subject.as_ref() == issuer) {
                let mut subject = Vec::with_capacity(issuer.len() + 4);
                der::push_tlv(&mut subject, 0x30, anchor.subject.as_ref());
                let contents = anchor.subject_public_key_info.as_ref();
                let mut spki = Vec::with_capacity(contents.len() + 4);
                der::push_tlv(&mut spki, 0x30, contents);
                return Ok(PathParts {
                    certs,
                    anchor_subject: subject,
                    anchor_spki: spki,
                    anchor_cert: None,
                });
            }
            let next = chain.intermediates.iter().enumerate().find(|(i, c)| {
                !used[*i] && der::SignedParts::parse(c).is_ok_and(|p| p.subject == issuer)
            });
            match next {
                Some((i, c)) => {
                    used[i] = true;
                    certs.push(c.as_ref());
                }
                None => {
                    return Err(RevocationError::BadPath(
                        "no issuer among the trust anchors and the certificates sent".into(),
                    ));
                }
            }
        }
        Err(RevocationError::BadPath(format!(
            "more than {MAX_PATH} certificates"
        )))
    }
}
