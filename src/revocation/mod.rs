//! Revocation data for `--revocation`, generated offline and cached like the mirror: Chrome's
//! CRLSet ([`crlset`]), CRLite filters and `upki`'s store ([`crlite`]). What each generator is
//! given is a list of [`Issuer`]s: the corpus' and the mirror's, plus synthetic ones for scale.
//! The formats that are signed by a CA, CRLs and OCSP responses, are made with the other
//! certificates: [`crate::certs::crl`], [`crate::certs::ocsp`]. Whoever makes revocation data
//! makes it through [`generate`], which holds the one scale table.

pub mod bundle;
pub mod crlite;
pub mod crlset;
pub mod generate;
pub mod issuers;
pub mod scale;

/// One issuing CA, as the data generators see it.
#[derive(Clone, Debug)]
pub struct Issuer {
    /// A name for errors and provenance (its subject, or `synthetic-17`).
    pub name: String,
    /// Its `SubjectPublicKeyInfo`, a whole DER TLV.
    pub spki: Vec<u8>,
    /// The certificates it issued that the data covers.
    pub issued: Vec<Issued>,
}

/// One certificate an [`Issuer`] issued.
#[derive(Clone, Debug)]
pub struct Issued {
    /// Its serial number, the DER INTEGER's content bytes.
    pub serial: Vec<u8>,
    /// Whether it is revoked.
    pub revoked: bool,
    /// Its embedded SCTs: the log's id and the SCT's timestamp (ms since the epoch).
    pub scts: Vec<([u8; 32], u64)>,
}
