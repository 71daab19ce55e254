//! Merkle Tree Certificates (draft-ietf-plants-merkle-tree-certs-07): what a relying party
//! needs to verify one. A CA appends each certificate's log entry to an issuance log (a
//! Merkle tree); the certificate's signature value is an `MTCProof`, the entry's inclusion
//! proof in a subtree of the log, which the relying party either holds as a trusted subtree
//! (a landmark: a *landmark-relative*, signatureless certificate) or finds signed by trusted
//! cosigners in the proof (a *standalone* certificate).
//!
//! `tree` is the hash math, `cert` reads a certificate (and writes the encodings an issuer
//! needs), `trust` is the relying party's configuration read from the CA's certificates (a
//! trust store's roots), `verify` is §7.2's procedure followed by the X.509 checks the draft
//! keeps. The method is [`crate::methods::mtc`]; the issuer is certbench's `certs::mtc`.
//!
//! Wire format: -07's, with the OIDs it allocates (`id-alg-mtcProof` 1.3.6.1.5.5.7.6.67,
//! `id-rdna-trustAnchorID` 1.3.6.1.5.5.7.25.3 with a RELATIVE-OID value,
//! `id-pe-mtcCertificationAuthority-SHA256` 1.3.6.1.5.5.7.1.38), as the `mtcs` crate reads it;
//! the earlier experimental arc (1.3.6.1.4.1.44363.47) is not read.
//!
//! Invariant: every error is a rejection: nothing here accepts on a malformed input, and
//! nothing panics on one.

pub mod cert;
pub mod stale;
pub mod tree;
pub mod trust;
pub mod verify;

use crate::der::DerError;

/// The DER encodings (contents) of the object identifiers certbench reads and writes.
pub mod oid {
    /// AlgorithmIdentifier contents of `id-alg-mtcProof` (1.3.6.1.5.5.7.6.67), no parameters.
    pub const MTC_PROOF_ALG: &[u8] = &[0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x06, 0x43];
    /// `id-rdna-trustAnchorID` (1.3.6.1.5.5.7.25.3).
    pub const TRUST_ANCHOR_ID_ATTR: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x19, 0x03];
    /// `id-pe-mtcCertificationAuthority-SHA256` (1.3.6.1.5.5.7.1.38): marks a CA certificate.
    pub const MTC_CA_EXTENSION: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x26];
    /// certbench's own extension on a CA certificate carrying the trusted subtrees (the
    /// landmarks) a relying party holds: the draft leaves their distribution out of band
    /// ("the relying party MAY incorporate trusted subtrees from out-of-band information").
    /// Under RFC 5612's documentation arc 1.3.6.1.4.1.32473 (32473.99.1), never for use
    /// beyond certbench.
    pub const CERTBENCH_TRUSTED_SUBTREES: &[u8] =
        &[0x2b, 0x06, 0x01, 0x04, 0x01, 0x81, 0xfd, 0x59, 0x63, 0x01];
    /// certbench's own extension on a CA certificate naming the CA's other cosigners (a
    /// mirror's): `SEQUENCE OF SEQUENCE { id OCTET STRING, SubjectPublicKeyInfo }`, the draft
    /// leaving a relying party's cosigner set to its policy (32473.99.2, as above).
    pub const CERTBENCH_COSIGNERS: &[u8] =
        &[0x2b, 0x06, 0x01, 0x04, 0x01, 0x81, 0xfd, 0x59, 0x63, 0x02];
    /// `id-ml-dsa-44` (2.16.840.1.101.3.4.3.17), a cosigner's key.
    pub const ML_DSA_44: &[u8] = &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x11];
}

/// Why a certificate is not an accepted Merkle Tree Certificate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MtcError {
    /// DER that does not read.
    #[error("malformed DER: {0}")]
    Der(#[from] DerError),
    /// A structure that reads but is not what the draft says.
    #[error("malformed: {0}")]
    Malformed(&'static str),
    /// The signature algorithm is not `id-alg-mtcProof`: not a Merkle Tree Certificate.
    #[error("not a Merkle Tree Certificate (signature algorithm is not id-alg-mtcProof)")]
    NotMtc,
    /// A serial that is negative, above 2^64 - 1, or of log number 0.
    #[error("serial number is not (log_number << 48) | index")]
    BadSerial,
    /// The issuer is no CA the relying party trusts.
    #[error("unknown Merkle Tree CA {0}")]
    UnknownCa(String),
    /// The serial lies in a revoked range (before the CA's minSerial, after its maxSerial).
    #[error("serial number in a revoked range")]
    Revoked,
    /// The inclusion proof does not evaluate (§4.3.2).
    #[error("inclusion proof: {0}")]
    Proof(#[from] tree::ProofError),
    /// The proof's subtree is one the relying party holds, with another hash.
    #[error("inclusion proof does not hash to the trusted subtree [{start}, {end})")]
    SubtreeMismatch {
        /// The subtree's start.
        start: u64,
        /// The subtree's end.
        end: u64,
    },
    /// The subtree is no trusted subtree and none of the CA's cosigners signed it.
    #[error("subtree [{start}, {end}) is not trusted and not signed by the CA's cosigners")]
    Untrusted {
        /// The subtree's start.
        start: u64,
        /// The subtree's end.
        end: u64,
    },
    /// A trusted cosigner's signature over the subtree does not verify.
    #[error("a cosignature of the CA's cosigners does not verify")]
    BadCosignature,
    /// A standalone certificate with fewer valid cosignatures from distinct cosigners of the
    /// CA's set than Chrome requires ([`verify::CHROME_MIN_COSIGNATURES`]).
    #[error("{valid} valid cosignature(s) from the CA's cosigners; Chrome requires {required}")]
    TooFewCosignatures {
        /// Valid cosignatures from distinct cosigners of the set.
        valid: usize,
        /// What the policy requires.
        required: usize,
    },
    /// A cosigner of the CA's set whose key is not ML-DSA-44.
    #[error("a cosigner's key is not ML-DSA-44 (Chrome accepts ML-DSA-44 cosigners only)")]
    CosignerNotMlDsa44,
    /// The certificate is not valid at the verification time.
    #[error("certificate is not valid at {time} (valid {not_before}..={not_after})")]
    Expired {
        /// The verification time.
        time: u64,
        /// notBefore.
        not_before: u64,
        /// notAfter.
        not_after: u64,
    },
    /// A check that X.509 path validation keeps (name, EKU, basic constraints) failed.
    #[error("{0}")]
    X509(String),
}

/// Whether `der` is a Merkle Tree Certificate: its signatureAlgorithm is `id-alg-mtcProof`
/// (only that field is read; a malformed certificate is not one).
pub fn is_mtc(der: &[u8]) -> bool {
    let Ok(contents) = crate::der::sequence_contents(der) else {
        return false;
    };
    let mut r = crate::der::Der::new(contents);
    r.next().is_ok() && r.expect(crate::der::SEQUENCE).ok() == Some(oid::MTC_PROOF_ALG)
}
