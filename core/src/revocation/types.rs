//! The vocabulary of revocation checking: which mechanism a method checks with ([`Support`]),
//! what a check reads ([`VerifiedPath`]) and what makes its data unusable
//! ([`RevocationError`]); what a mechanism is ([`Mechanism`]) and what a check finds
//! ([`Status`], [`SoftFail`]) are the schema's, re-exported here. Every other module of `revocation` speaks
//! it; it imports none of them.

pub use certbench_schema::{Mechanism, SoftFail, Status};

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
