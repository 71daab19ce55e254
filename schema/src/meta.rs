//! Facts about a sample that are not timings ([`SampleMeta`]): the chain and the connection,
//! where a failure happened, and what the EV, CT and revocation checks found.

use serde::{Deserialize, Serialize};

use crate::revocation::RevocationOutcome;
use crate::servo::ServoMeta;
use crate::stage::Stage;
use crate::verdict::ErrorKind;

/// The outcome of a browser's EV attempt (the `ev-attempt` stage).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EvOutcome {
    /// An EV path was found: accepted as EV, without the DV attempt.
    Granted,
    /// No EV path (a root the browser's table does not list for the policy, or a failed
    /// build): the browser fell back to its DV attempt (`verify`).
    Fallback,
}

/// What a Certificate Transparency check found (the `ct` stage), over every SCT it was given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CtOutcome {
    /// SCTs found (embedded in the leaf, and from TLS).
    pub scts: u32,
    /// Signature verifications run (an SCT from an unknown log, or a cached result, is not).
    pub checked: u32,
    /// From a known log, the signature good.
    pub valid: u32,
    /// From a log the verifier does not know.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unknown_log: u32,
    /// A bad signature, or bytes that are not an SCT.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub invalid: u32,
    /// The CT policy was met.
    pub compliant: bool,
}

/// Facts about the sample that are not timings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleMeta {
    /// Key type per certificate as sent, leaf first (e.g. `RSA-2048`, `ECDSA-P256`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub key_types: Vec<String>,
    /// Number of certificates the server sent (leaf + intermediates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_len: Option<u32>,
    /// True when `roots-creation` is 0 because a store built earlier was reused.
    #[serde(default)]
    pub roots_cached: bool,
    /// Validation time (Unix seconds) the verifier was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_time: Option<u64>,
    /// Negotiated TLS version (e.g. `TLSv1.3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_version: Option<String>,
    /// Negotiated cipher suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cipher: Option<String>,
    /// With `--tls-resumption`: whether the TLS library reports the session as resumed (a
    /// resumed handshake sends no certificate, so it has no verification stages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed: Option<bool>,
    /// For a failed sample, the kind of failure, set by the producer where the failure
    /// happened (never read back out of the verdict's text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// For a failed sample, the stage that did not complete (taken out of `stages`, as is
    /// `total`: no stage that did not complete is reported as measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_stage: Option<Stage>,
    /// How long the failed stage ran before it failed, in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_after_ns: Option<u64>,
    /// Bytes of the certificates the server sent (their DER, summed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_bytes: Option<u64>,
    /// Bytes of the TLS 1.3 Certificate message those certificates make (RFC 8446 §4.4.2:
    /// handshake header, empty context, each entry's length and empty extensions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_message_bytes: Option<u64>,
    /// With `--compress-certs`, when the server sent its certificates compressed: bytes of the
    /// CompressedCertificate message that went on the wire instead of the Certificate message
    /// (RFC 8879 §4: handshake header (4), algorithm (2), uncompressed length (3), the
    /// compressed bytes with their length (3)), counted from what the client decompressed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compressed_cert_message_bytes: Option<u64>,
    /// Bytes (TCP payload) the server sent between the client's first flight and its second:
    /// the server's first flight, ServerHello to Finished, record headers included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_flight_bytes: Option<u64>,
    /// The TLS handshake messages in that first flight (ServerHello to Finished), without
    /// record headers, inner content types, AEAD tags or ChangeCipherSpec: what QUIC would
    /// carry in CRYPTO frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_flight_handshake_bytes: Option<u64>,
    /// The TCP window the first flight is counted against (read from the kernel, or set by
    /// `--link`), where the first flight was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_window: Option<crate::wire::TcpWindow>,
    /// Over QUIC (`--transport quic`): the handshake's datagrams and bytes each way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quic: Option<crate::wire::QuicCounts>,
    /// Through the emulated link (`--link`): what the link counted of the connection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_counts: Option<crate::wire::LinkCounts>,
    /// The browser's EV attempt, for a leaf that asserts an EV policy of its table (`chrome`,
    /// `firefox`); absent when no attempt was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ev: Option<EvOutcome>,
    /// The Certificate Transparency check (`--ct`), where one was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ct: Option<CtOutcome>,
    /// The revocation check (`--revocation`), where one was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation: Option<RevocationOutcome>,
    /// A patched Servo's sample: its process, order, connection and page load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servo: Option<ServoMeta>,
}

/// For `skip_serializing_if`: a zero count is left out of the file.
pub(crate) fn is_zero(n: &u32) -> bool {
    *n == 0
}
