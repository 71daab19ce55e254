//! What one host of the mirror serves ([`HostCert`]), and why making a host's certificates
//! fails ([`MakeError`]): the vocabulary shared by the corpus hosts' clones
//! ([`super::mirror_set`]) and the synthetic and fault hosts ([`super::synthetic`]), which the
//! mirror (`crate::mirror`) caches and serves.

use rustls_pki_types::CertificateDer;

use super::clone::CloneError;
use super::ct::CtError;
use super::mirror_revocation::RevocationGenError;

/// What one host serves.
#[derive(Clone, Debug)]
pub struct HostCert {
    /// The chain to send, leaf first.
    pub chain: Vec<CertificateDer<'static>>,
    /// The leaf's private key (PKCS#8 DER).
    pub key: Vec<u8>,
    /// The corpus chain it clones, or `synthetic`.
    pub source: String,
    /// The OCSP response its server staples (DER), signed by the leaf's issuer; `None` for a
    /// post-quantum twin, a leaf without an issuing CA of the mirror's, or an expired one.
    pub ocsp: Option<Vec<u8>>,
    /// An MTC host's standalone certificate (the CA's and a mirror's cosignatures), sent to a
    /// client that does not name the landmark its landmark-relative `chain` needs
    /// ([`crate::mirror::mtc_choice`]); `None` for every other host.
    pub standalone: Option<Vec<CertificateDer<'static>>>,
}

/// Why a host's certificates could not be made.
#[derive(Debug, thiserror::Error)]
pub enum MakeError {
    /// Cloning failed.
    #[error("cloning {host}: {source}")]
    Clone {
        /// The host being cloned.
        host: String,
        /// Why.
        #[source]
        source: CloneError,
    },
    /// certbench's Merkle Tree CA could not issue the `mtc` set.
    #[error("issuing Merkle Tree Certificates: {0}")]
    Mtc(String),
    /// rcgen failed on a synthetic chain.
    #[error("generating {host}: {source}")]
    Generate {
        /// The host.
        host: String,
        /// Why.
        #[source]
        source: rcgen::Error,
    },
    /// The mirror's CT logs could not be made.
    #[error("CT logs: {0}")]
    Ct(#[source] CtError),
    /// A staple or a CRL could not be signed.
    #[error("revocation data of {host}: {source}")]
    Revocation {
        /// The host (or CA) it was for.
        host: String,
        /// Why.
        #[source]
        source: RevocationGenError,
    },
}

/// rcgen's error on `host`'s chain, as a [`MakeError`].
pub fn gen_err(host: &str) -> impl Fn(rcgen::Error) -> MakeError + '_ {
    move |source| MakeError::Generate {
        host: host.to_owned(),
        source,
    }
}

/// A signing error on `host`'s staple or its CA's CRL, as a [`MakeError`].
pub fn revocation_err(host: &str) -> impl Fn(RevocationGenError) -> MakeError + '_ {
    move |source| MakeError::Revocation {
        host: host.to_owned(),
        source,
    }
}
