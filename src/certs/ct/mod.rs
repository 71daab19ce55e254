//! The mirror's Certificate Transparency logs, and leaves issued with their SCTs (RFC 6962).
//!
//! The mirror has one log of its own per real log that signed an SCT embedded in a corpus leaf
//! (a [`MirrorLog`]: a fresh ECDSA P-256 key, LogID = SHA-256 of its SubjectPublicKeyInfo DER,
//! RFC 6962 §3.2). A clone's leaf carries as many SCTs as the real leaf, the i-th signed by the
//! mirror of the real leaf's i-th log, over the clone's own precertificate entry, with the real
//! timestamp shifted by the clone's validity shift and the real SCT's extensions. A mirror log
//! is named `<real description> (certbench mirror)` and run by `<real operator> (certbench
//! mirror)` when the real log list names the log, else (named by the real LogID in base64) by
//! an operator of its own: a clone's SCTs come from as many operators as the real leaf's.
//!
//! Only v1 ECDSA P-256 SHA-256 SCTs (hash 4, signature 3: every log of the corpus) are
//! reproduced; a real SCT of any other algorithm or version is a [`CtError`] for its chain,
//! never a panic. The mirror's logs sign with P-256, or, for the twins' `pq-scts` scenario
//! ([`CtLogs::with_algorithm`]), with ML-DSA-44 (SignatureScheme 0x0904 in the SCT).
//!
//! The logs' list, Chrome's log list v3 JSON ([`CtLogs::log_list_json`]), is what a client of
//! the mirror trusts; the same logs and creation time always give the same text, which is how
//! a cached list is checked against its cached keys ([`CtLogs::list_made`]).
//!
//! Minting ([`issue_with_scts`], with [`SctSpec`] for test chains: any log, any timestamp, a
//! corrupted signature) is in [`sct`]; its invariant: the certificate it returns, with its SCT
//! list extension taken out of the tbsCertificate, is byte for byte the tbsCertificate every
//! SCT was signed over (RFC 6962 §3.2's `PreCert.tbs_certificate`), checked on every issue.
//!
//! One role per file: [`log`] one log (its key, LogID, names) and [`CtError`]; [`sct`] SCTs
//! minted over a precertificate and the real ones a clone reproduces; [`logs`] the mirror's
//! set of logs, its log list and its cached form.

pub mod log;
pub mod logs;
pub mod sct;

pub use log::{CtError, LogAlgorithm, MIRROR_SUFFIX, MirrorLog, base64};
pub use logs::{CachedLog, CtLogs, real_list_path};
pub use sct::{RealSct, SCT_LIST_OID, SctSpec, is_sct_list, issue_with_scts, real_scts, shifted};
