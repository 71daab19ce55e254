//! The vocabulary of revocation checking: what a mechanism is ([`Mechanism`]), which one a
//! method checks with ([`Support`]), what a check reads ([`VerifiedPath`]) and what it finds
//! ([`Status`], [`SoftFail`], [`RevocationError`]). Every other module of `revocation` speaks
//! it; it imports none of them.

use std::fmt;

/// A revocation mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mechanism {
    /// Chrome's CRLSet: blocked SPKIs and, per issuer SPKI hash, revoked serials; every
    /// certificate of the path (`chrome`).
    CrlSet,
    /// CRLite: a clubcard filter held in memory, queried for the end-entity certificate with
    /// its issuer's SPKI hash, its serial and its SCTs (`firefox` as Gecko queries it; the
    /// rustls methods as `clubcard-crlite` gives it to a rustls user).
    Crlite,
    /// CRLite as the rustls project's `upki` crate checks it: the filter files read per check.
    Upki,
    /// CRLs per issuer, as rustls-webpki checks them (`RevocationOptions`).
    Crl,
    /// A stapled OCSP response for the end-entity certificate (`gnutls` as
    /// `gnutls_certificate_verify_peers3` checks it; the rustls methods with `x509-ocsp`).
    Ocsp,
}

impl Mechanism {
    /// Every mechanism.
    pub const ALL: [Mechanism; 5] = [
        Mechanism::CrlSet,
        Mechanism::Crlite,
        Mechanism::Upki,
        Mechanism::Crl,
        Mechanism::Ocsp,
    ];

    /// Its name, as `--revocation` and samples spell it.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::CrlSet => "crlset",
            Mechanism::Crlite => "crlite",
            Mechanism::Upki => "upki",
            Mechanism::Crl => "crl",
            Mechanism::Ocsp => "ocsp",
        }
    }
}

impl fmt::Display for Mechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Mechanism {
    type Err = String;
    fn from_str(s: &str) -> Result<Mechanism, String> {
        Mechanism::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                format!("unknown revocation mechanism `{s}` (crlset, crlite, upki, crl, ocsp)")
            })
    }
}

/// Which revocation mechanism a method checks with ([`crate::verifier::Capabilities`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Support {
    /// None: the method ignores `--revocation`.
    #[default]
    None,
    /// Its browser's own, whatever `--revocation` names (`chrome`: the CRLSet, `firefox`:
    /// CRLite, `gnutls`: the stapled OCSP response).
    Own(Mechanism),
    /// The one `--revocation` names for the rustls methods ([`RevocationData::rustls`]).
    Rustls,
}

/// The path a method verified, as a revocation check reads it.
///
/// Invariant: `certs` holds the DER of every certificate of the path that is not the trust
/// anchor, leaf first, each issued by the next (the last by the anchor); `anchor_subject` and
/// `anchor_spki` are the anchor's subject `Name` and `SubjectPublicKeyInfo`, each a whole DER
/// TLV (tag and length included).
#[derive(Clone, Copy, Debug)]
pub struct VerifiedPath<'a> {
    /// The path's certificates below the anchor, leaf first.
    pub certs: &'a [&'a [u8]],
    /// The anchor's subject, a whole DER `Name`.
    pub anchor_subject: &'a [u8],
    /// The anchor's key, a whole DER `SubjectPublicKeyInfo`.
    pub anchor_spki: &'a [u8],
    /// The anchor's whole certificate, when the method has it (a native verifier's path
    /// ends with it; webpki keeps only the anchor's subject and key).
    pub anchor_cert: Option<&'a [u8]>,
}

/// What a revocation check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every certificate the mechanism covers was checked and none is revoked.
    Good,
    /// The certificate at `depth` (0: the leaf) is revoked.
    Revoked {
        /// Its position in [`VerifiedPath::certs`] (the anchor is `certs.len()`).
        depth: usize,
    },
    /// The mechanism could not say, and the browser (or the rustls user's policy) accepts
    /// the connection anyway: why, in the words of the browser's source.
    SoftFail(SoftFail),
}

/// Why a check could not say whether a certificate is revoked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftFail {
    /// The data is missing (no CRLSet, no filter, no CRL for the issuer, no stapled response).
    NoData,
    /// The data is too old to be used (an expired CRLSet, a filter older than the browser
    /// allows, an OCSP response past its nextUpdate where the browser ignores it).
    Stale,
    /// The filter does not cover the certificate (its issuer is not enrolled, or none of its
    /// SCTs is from a log and time the filter covers).
    NotCovered,
}

impl SoftFail {
    /// Its name, as samples spell it.
    pub fn name(self) -> &'static str {
        match self {
            SoftFail::NoData => "no-data",
            SoftFail::Stale => "stale",
            SoftFail::NotCovered => "not-covered",
        }
    }
}

impl Status {
    /// How samples spell it: `good`, `revoked` or `soft-fail`.
    pub fn name(&self) -> &'static str {
        match self {
            Status::Good => "good",
            Status::Revoked { .. } => "revoked",
            Status::SoftFail(_) => "soft-fail",
        }
    }
}

/// Revocation data that cannot be used: the check is a rejection (fail closed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RevocationError {
    /// The data is not what its format says (a corrupted CRLSet, filter, CRL or response).
    #[error("{mechanism} data is corrupt: {detail}")]
    Corrupt {
        /// The mechanism whose data it is.
        mechanism: Mechanism,
        /// What is wrong, and where.
        detail: String,
    },
    /// The data could not be read.
    #[error("{mechanism} data cannot be read: {detail}")]
    Unreadable {
        /// The mechanism whose data it is.
        mechanism: Mechanism,
        /// The path and the reason.
        detail: String,
    },
    /// A response or list that the mechanism refuses as the browser refuses it (a stapled
    /// OCSP response with a bad signature, for the wrong certificate, or from the future).
    #[error("{mechanism}: {detail}")]
    Invalid {
        /// The mechanism.
        mechanism: Mechanism,
        /// What the browser's source calls it.
        detail: String,
    },
    /// The path cannot be read (a certificate that does not parse).
    #[error("revocation check: bad path: {0}")]
    BadPath(String),
}
