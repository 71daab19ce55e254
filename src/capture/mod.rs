//! `certbench capture`: today's chains of your own sites, saved in the corpus layout so that
//! `certbench verify --chains DIR` measures them.
//!
//! One TLS handshake per site (rustls on aws-lc-rs, SNI = the host, through
//! [`crate::transport::tcp`]), with a verifier that records what the server sent and
//! verifies it with rustls-webpki against the trust roots, as a browser would: the chain is
//! saved only when it verifies for the host now, and the trust anchor webpki's path ended at
//! is saved beside it as `root.pem`. The handshake is then dropped; no request is sent.
//!
//! Written per site, in `DIR/<host>__capture/`: `leaf.pem`, `intermediates.pem` (what the
//! server sent after its leaf, in its order), `root.pem` and `chain.pem` (leaf and
//! intermediates); and for all, `DIR/manifest.json` in the corpus's format (host, validation
//! time = the capture's time, key types, subjects, issuers, validity, SHA-256 of every
//! certificate). A site that fails (no connection, a handshake or verification failure) is a
//! [`CaptureError`] with its reason; the others are captured.

mod all;
mod site;

pub use all::{Attempt, capture_all, rows};
pub use site::{CaptureError, Captured, capture, folder, write};
