//! Issuing: the one set of CA parameters every maker of `certs` starts from, and rcgen's
//! error as the rest of the crate sees it.
//!
//! Every CA certbench makes (the mirror's synthetic and fault CAs, the store-scaling extras,
//! the test servers', the ML-DSA testcases', `revocation-scale`'s) is a v3 CA with
//! unconstrained basic constraints (a maker narrows them for an intermediate), keyCertSign
//! and cRLSign, and digitalSignature too when its key signs OCSP responses; its subject and
//! validity are the maker's. A clone's CA is not made here: it copies the real CA's
//! extensions byte for byte ([`super::clone`]).
//!
//! Invariant: the parameters a maker gets are exactly those it built by hand before this
//! module existed (the same fields, in the same order), so every certificate made comes out
//! as it did; the mirror's cache, which keeps what was made, needs no new generator version.

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, KeyUsagePurpose,
};
use time::OffsetDateTime;

/// rcgen's error, for the callers of `certs` outside it: the message is rcgen's own, and
/// its source is rcgen's.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct GenError(#[from] rcgen::Error);

/// What a CA's key signs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signs {
    /// Certificates and CRLs (keyCertSign, cRLSign).
    CertsAndCrls,
    /// Certificates, CRLs and OCSP responses (keyCertSign, cRLSign, digitalSignature).
    AlsoResponses,
}

/// A subject of one common name.
pub fn common_name(name: impl Into<String>) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, name.into());
    dn
}

/// A CA's parameters: `subject`, a CA without a path length limit, the key usages of
/// `signs`, valid from `not_before` to `not_after`; everything else rcgen's default (a
/// random serial, no key identifier of the issuer).
pub fn params(
    subject: DistinguishedName,
    signs: Signs,
    not_before: OffsetDateTime,
    not_after: OffsetDateTime,
) -> CertificateParams {
    let mut p = CertificateParams::default();
    p.distinguished_name = subject;
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    if signs == Signs::AlsoResponses {
        p.key_usages.push(KeyUsagePurpose::DigitalSignature);
    }
    p.not_before = not_before;
    p.not_after = not_after;
    p
}

/// rcgen's default validity (1975 to 4096): for a CA whose certificate must never expire
/// while its cache is kept.
pub fn forever() -> (OffsetDateTime, OffsetDateTime) {
    let d = CertificateParams::default();
    (d.not_before, d.not_after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_signs_what_it_is_made_for_over_its_validity() {
        let now = OffsetDateTime::now_utc();
        let (from, to) = (
            now - time::Duration::days(1),
            now + time::Duration::days(30),
        );
        let p = params(common_name("a CA"), Signs::CertsAndCrls, from, to);
        assert_eq!(p.is_ca, IsCa::Ca(BasicConstraints::Unconstrained));
        assert_eq!(
            p.key_usages,
            [KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign]
        );
        assert_eq!((p.not_before, p.not_after), (from, to));
        let p = params(common_name("a CA"), Signs::AlsoResponses, from, to);
        assert_eq!(
            p.key_usages.last(),
            Some(&KeyUsagePurpose::DigitalSignature)
        );
        let key = rcgen::KeyPair::generate().unwrap();
        let der = p.self_signed(&key).unwrap().der().to_vec();
        let (_, x) = x509_parser::parse_x509_certificate(&der).unwrap();
        assert_eq!(x.subject().to_string(), "CN=a CA");
        assert!(matches!(x.basic_constraints(), Ok(Some(bc)) if bc.value.ca));
    }
}
