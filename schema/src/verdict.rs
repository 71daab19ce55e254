//! What produced a sample ([`Source`]), its outcome ([`Verdict`]), and the kind of a failure
//! ([`ErrorKind`]): every failure lands in exactly one kind, set by the producer where the
//! failure happened, never read back out of the verdict's text.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What produced a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// `certbench verify`: verification alone on stored chains.
    Verify,
    /// The site driver: real connections (or the loopback mirror).
    Driver,
    /// A patched Servo build.
    Servo,
}

/// The outcome of one sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", content = "reason", rename_all = "lowercase")]
pub enum Verdict {
    /// The verifier accepted the chain for the host.
    Ok,
    /// The verifier rejected the chain; the reason is the verifier's own words.
    Rejected(String),
    /// The sample could not be measured (bad input, I/O, …); stages may be missing.
    Error(String),
    /// The method does not implement an algorithm of the chain (ML-DSA for the system's
    /// OpenSSL 3.0, say), in the runner's words (`unsupported algorithm: ML-DSA-44`): nothing
    /// was measured and nothing failed; the sample has no stages.
    Unsupported(String),
}

impl Verdict {
    /// `ok`, or the reason.
    pub fn label(&self) -> String {
        match self {
            Verdict::Ok => "ok".to_owned(),
            Verdict::Rejected(r) => format!("rejected: {r}"),
            Verdict::Error(e) => format!("error: {e}"),
            Verdict::Unsupported(why) => why.clone(),
        }
    }

    /// True for a rejection or an error: what makes a run's exit code say that items failed
    /// (an unsupported algorithm is not a failure).
    pub fn is_failure(&self) -> bool {
        matches!(self, Verdict::Rejected(_) | Verdict::Error(_))
    }

    /// True when the sample measured something: neither an error nor unsupported. Only these
    /// enter statistics and a row's n.
    pub fn measured(&self) -> bool {
        !matches!(self, Verdict::Error(_) | Verdict::Unsupported(_))
    }

    /// True for [`Verdict::Ok`].
    pub fn is_ok(&self) -> bool {
        matches!(self, Verdict::Ok)
    }
}

/// Why a sample failed: every failure lands in exactly one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorKind {
    /// The name did not resolve.
    Dns,
    /// TCP connect failed (refused, unreachable, reset before TLS).
    Connect,
    /// Nothing within `--timeout` (a stalled server).
    Timeout,
    /// The TLS handshake failed for a reason other than the verifier's verdict (reset, alert,
    /// truncated or malformed messages, no certificate, too many certificates).
    TlsHandshake,
    /// The verifier rejected the chain (its reason is the verdict's).
    CertificateRejected,
    /// TLS was up, HTTP failed (no response, a malformed one).
    Http,
    /// The input could not be used (sites file, roots, chain files).
    Input,
}

impl ErrorKind {
    /// Every kind, in the order tables list them.
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::Dns,
        ErrorKind::Connect,
        ErrorKind::Timeout,
        ErrorKind::TlsHandshake,
        ErrorKind::CertificateRejected,
        ErrorKind::Http,
        ErrorKind::Input,
    ];

    /// The kind's name in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Dns => "dns",
            ErrorKind::Connect => "connect",
            ErrorKind::Timeout => "timeout",
            ErrorKind::TlsHandshake => "tls-handshake",
            ErrorKind::CertificateRejected => "certificate-rejected",
            ErrorKind::Http => "http",
            ErrorKind::Input => "input",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
