//! CRLs as rustls-webpki 0.103 checks them, for a rustls user (Servo) that loads them as
//! `WebPkiServerVerifier::builder(roots).with_crls(crls)` does.
//!
//! [`Crls::parse`] is the cold cost: each CRL goes through rustls-webpki's own
//! `OwnedCertRevocationList::from_der` (what `with_crls` does to every CRL it is given: the
//! whole list read and every revoked entry put in a `BTreeMap` by serial). [`Crls::check_path`]
//! is the warm cost: for every certificate of the path, the steps rustls-webpki's
//! `RevocationOptions::check` (`src/crl/mod.rs`) makes, in its order:
//!
//! 1. the certificates are taken in the order `check_signed_chain` walks the path: the one
//!    the trust anchor issued first, the leaf last;
//! 2. the first *authoritative* CRL for the certificate (`CertRevocationList::authoritative`,
//!    `crl/types.rs`): the CRL's issuer is the certificate's issuer, byte for byte; a CRL
//!    without an issuing distribution point (IDP) covers everything; one with an IDP must
//!    include the certificate's role (`onlyContainsUserCerts`/`onlyContainsCACerts`) and, when
//!    the certificate names CRL distribution points, share a URI with one of them (a point
//!    with `reasons` or `cRLIssuer` never matches);
//! 3. the CRL's signature, verified with the issuer's key **on every lookup**, as webpki does
//!    (rustls/webpki issue #81), picking the algorithm as webpki's `verify_signed_data` does:
//!    the provider's algorithms whose `signature_alg_id` is the CRL's signatureAlgorithm, the
//!    first whose `public_key_alg_id` is the key's;
//! 4. the expiration policy (rustls' default, [`ExpirationPolicy::Ignore`]; `Enforce` rejects
//!    a CRL whose nextUpdate is not after the verification time);
//! 5. the issuer's KeyUsage, when present, must assert cRLSign (the trust anchor's is not
//!    tracked: webpki's `TODO(XXX): Consider whether to track TrustAnchor KU`);
//! 6. `find_serial` with the certificate's serial (the INTEGER's content bytes).
//!
//! Policy, as a rustls user like Servo would set it (`allow_unknown_revocation_status()`,
//! depth `Chain`): an unknown status is allowed. A certificate with no authoritative CRL is
//! taken as not revoked; when no certificate of the path had one the check is
//! [`SoftFail::NoData`]. A CRL whose signature does not verify, that the issuer may not sign,
//! or that is expired under `Enforce` is an error (webpki's `InvalidCrlSignatureForPublicKey`,
//! `IssuerNotCrlSigner`, `CrlExpired`: rejections). webpki's signature budget (100 signature
//! checks per verification) is not counted here: a path of at most a few certificates uses a
//! handful.
//!
//! Files: this one, [`Crls`] (loading and the per-path check); [`entry`], one loaded CRL and
//! its heap; [`scope`], which CRL is authoritative for a certificate; [`signed`], signed
//! structures and their signature check; [`fields`], what is read of a certificate.

mod entry;
mod fields;
mod scope;
mod signed;

use std::sync::OnceLock;

use rustls_pki_types::SignatureVerificationAlgorithm;
use webpki::{CertRevocationList, ExpirationPolicy, OwnedCertRevocationList};

use super::types::{Mechanism, RevocationError, SoftFail, Status, VerifiedPath};
use entry::{Crl, owned_heap_estimate};
use fields::bit_set;
use scope::authoritative;
use signed::{next_update, split_signed};

pub(super) use fields::{CertFields, INTEGER, OID, Reader, SEQUENCE, tlv_contents};
pub(super) use signed::{signed_parts, verify_signed};

/// CRLs loaded once per process, as a rustls user loads them (see the module docs).
pub struct Crls {
    crls: Vec<Crl>,
    expiration: ExpirationPolicy,
    data_bytes: u64,
    /// Computed on first use, outside the timed load (a walk over every entry).
    resident_bytes: OnceLock<u64>,
}

impl std::fmt::Debug for Crls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crls")
            .field("crls", &self.crls.len())
            .field("expiration", &self.expiration)
            .field("data_bytes", &self.data_bytes)
            .finish()
    }
}

impl Crls {
    /// Parses DER CRLs with rustls-webpki's `OwnedCertRevocationList::from_der` (the cold
    /// cost), with rustls' default expiration policy (`Ignore`). A CRL webpki refuses (not v2,
    /// no nextUpdate, a delta CRL, an indirect or reason-partitioned IDP, a malformed entry)
    /// is [`RevocationError::Corrupt`], naming its position.
    pub fn parse(ders: &[Vec<u8>]) -> Result<Crls, RevocationError> {
        let mut crls = Vec::with_capacity(ders.len());
        let mut data_bytes = 0u64;
        for (i, der) in ders.iter().enumerate() {
            let corrupt = |detail: String| RevocationError::Corrupt {
                mechanism: Mechanism::Crl,
                detail: format!("CRL {i}: {detail}"),
            };
            let owned =
                OwnedCertRevocationList::from_der(der).map_err(|e| corrupt(format!("{e:?}")))?;
            let signed = split_signed(der).map_err(|e| corrupt(e.to_owned()))?;
            let list = CertRevocationList::from(owned);
            data_bytes += der.len() as u64;
            crls.push(Crl {
                list,
                der: der.clone(),
                signed,
            });
        }
        Ok(Crls {
            crls,
            expiration: ExpirationPolicy::Ignore,
            data_bytes,
            resident_bytes: OnceLock::new(),
        })
    }

    /// The same CRLs under another expiration policy (`Enforce`: what
    /// `enforce_revocation_expiration()` sets).
    pub fn with_expiration_policy(mut self, policy: ExpirationPolicy) -> Crls {
        self.expiration = policy;
        self
    }

    /// Bytes read: the CRLs' DER, in total.
    pub fn data_bytes(&self) -> u64 {
        self.data_bytes
    }

    /// Bytes a rustls user keeps between checks: an estimate of the heap of webpki's owned
    /// CRLs: per revoked entry, the `BTreeMap<Vec<u8>, OwnedRevokedCert>` slot (key and value)
    /// plus the two copies of the serial (the key's and the entry's own, each a glibc malloc
    /// chunk), the B-tree's nodes (11 slots each, full as a bulk build leaves them), and the
    /// copied signed parts (tbsCertList, algorithm, signature), issuer and IDP. This module's
    /// own copy of the DER (kept for the public-API signature check) is not counted: a rustls
    /// user does not hold it.
    pub fn resident_bytes(&self) -> u64 {
        *self.resident_bytes.get_or_init(|| {
            self.crls
                .iter()
                .map(|c| owned_heap_estimate(&c.der, c.signed, &c.list))
                .sum()
        })
    }

    /// How many CRLs are loaded.
    pub fn len(&self) -> usize {
        self.crls.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.crls.is_empty()
    }

    /// Checks every certificate of `path` as rustls-webpki's `RevocationOptions::check` does
    /// (depth `Chain`, unknown status allowed; see the module docs), at `now_unix`. The first
    /// revoked certificate in webpki's order (from the anchor's side down to the leaf) is
    /// [`Status::Revoked`] with its depth; a CRL that fails a step is an error.
    pub fn check_path(
        &self,
        path: &VerifiedPath<'_>,
        algs: &[&dyn SignatureVerificationAlgorithm],
        now_unix: u64,
    ) -> Result<Status, RevocationError> {
        let n = path.certs.len();
        if n == 0 {
            return Err(RevocationError::BadPath(
                "no certificate below the anchor".into(),
            ));
        }
        let certs = path
            .certs
            .iter()
            .enumerate()
            .map(|(depth, der)| {
                CertFields::parse(der)
                    .map_err(|e| RevocationError::BadPath(format!("certificate {depth}: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let anchor_subject = tlv_contents(path.anchor_subject, SEQUENCE)
            .map_err(|e| RevocationError::BadPath(format!("anchor subject: {e}")))?;
        let anchor_spki = tlv_contents(path.anchor_spki, SEQUENCE)
            .map_err(|e| RevocationError::BadPath(format!("anchor key: {e}")))?;

        let mut any_crl = false;
        // webpki's `check_signed_chain`: from the certificate the anchor issued down to the
        // leaf, each with its issuer's subject, key and KeyUsage.
        for depth in (0..n).rev() {
            let cert = &certs[depth];
            let (issuer_subject, issuer_spki, issuer_ku) = match certs.get(depth + 1) {
                Some(issuer) => (issuer.subject, issuer.spki, issuer.key_usage),
                None => (anchor_subject, anchor_spki, None),
            };
            // `RevocationOptions::check` asserts the name chaining path building ensured.
            if cert.issuer != issuer_subject {
                return Err(RevocationError::BadPath(format!(
                    "certificate {depth} is not issued by the next one's subject"
                )));
            }
            let Some(crl) = self.crls.iter().find(|crl| authoritative(crl, cert, depth)) else {
                // UnknownStatusPolicy::Allow: `Ok(None)`, not an error.
                continue;
            };
            any_crl = true;
            let invalid = |detail: String| RevocationError::Invalid {
                mechanism: Mechanism::Crl,
                detail: format!("certificate {depth}: {detail}"),
            };
            // Per lookup, as webpki does (rustls/webpki#81).
            let (t, a, s) = (crl.signed.tbs, crl.signed.alg, crl.signed.sig);
            verify_signed(
                algs,
                issuer_spki,
                &crl.der[a.0..a.1],
                &crl.der[t.0..t.1],
                &crl.der[s.0..s.1],
            )
            .map_err(|e| invalid(format!("the CRL's signature: {e}")))?;
            if self.expiration == ExpirationPolicy::Enforce {
                let next = next_update(&crl.der, crl.signed.tbs)
                    .ok_or_else(|| invalid("the CRL's nextUpdate cannot be read".into()))?;
                if now_unix >= next {
                    return Err(invalid(format!(
                        "the CRL expired (nextUpdate {next}, time {now_unix})"
                    )));
                }
            }
            if let Some(ku) = issuer_ku {
                const CRL_SIGN: usize = 6;
                if !bit_set(ku, CRL_SIGN).map_err(|e| invalid(format!("issuer KeyUsage: {e}")))? {
                    return Err(invalid("the issuer's KeyUsage lacks cRLSign".into()));
                }
            }
            let found =
                crl.list
                    .find_serial(cert.serial)
                    .map_err(|e| RevocationError::Corrupt {
                        mechanism: Mechanism::Crl,
                        detail: format!("{e:?}"),
                    })?;
            if found.is_some() {
                return Ok(Status::Revoked { depth });
            }
        }
        Ok(if any_crl {
            Status::Good
        } else {
            Status::SoftFail(SoftFail::NoData)
        })
    }
}
