//! Revocation as the browsers check it on every connection, and what a rustls user (Servo) can
//! add: Chrome's CRLSet ([`crlset`]), Firefox's CRLite and the rustls project's `upki`
//! ([`crlite`]), CRLs as rustls-webpki checks them ([`crl`]) and a stapled OCSP response
//! ([`ocsp`]; `gnutls` checks its staple with GnuTLS itself, `crate::methods::gnutls::ocsp`).
//!
//! Every mechanism answers for a [`VerifiedPath`] (the path the method's path building
//! accepted, leaf first) with a [`Status`], or a [`RevocationError`] when its data cannot be
//! read (a corrupted CRLSet, filter or CRL): an error is a rejection, never an accept. When
//! the browser's data is missing or stale the browser soft-fails, and so does the method: the
//! [`Status::SoftFail`] says why, and the sample says so.

pub mod crl;
pub mod crlite;
pub mod crlset;
pub mod data;
pub mod ocsp;
mod path;
mod rustls;
pub mod types;

pub use certbench_schema::RevocationOutcome;
pub use data::{DataFiles, Loaded, Refusal, RevocationData, no_data};
pub use path::PathParts;
pub use rustls::rustls_stage;
pub use types::{Mechanism, RevocationError, SoftFail, Status, Support, VerifiedPath};
