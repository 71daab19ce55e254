//! What a patched Servo build writes beside a sample's timings ([`ServoMeta`], in
//! [`crate::SampleMeta::servo`]): which process and when, what the sample is (a store build, a
//! connection, a verification), and the connection and page load it belongs to. Every field
//! is optional in the file, so the samples written before these fields existed are read as
//! they were (`servo` absent).
//!
//! Invariants a producer keeps:
//! - `pid` + `seq` identify a sample: `seq` counts the process's samples from 0 in the order
//!   they were taken; `since_start_ns` never decreases with `seq` within a process;
//! - a verification sample names the connection whose handshake it ran in (`connection`),
//!   when the connector saw one; a connection sample carries the same id;
//! - `page` is a number per process, counted from 1 in the order page loads started; the
//!   first page load of a process is `page == 1` (cold: store and pool start, empty session
//!   cache), later ones are warm;
//! - a certificate the verifier rejected and Servo then accepted through its exception list
//!   keeps the verifier's verdict (`rejected`) and says so in `exception`.

use serde::{Deserialize, Serialize};

/// What a Servo sample measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServoEvent {
    /// Servo built (or reused) its verifier: `roots-creation`.
    Verifier,
    /// Servo built an HTTP client: `http-connector-creation`.
    Connector,
    /// One TLS connection through Servo's connector: `connection`, split into `connect` (DNS,
    /// TCP, proxy) and `handshake` (TLS alone).
    Connection,
    /// One certificate verification inside a handshake: `total-verification`, `verify`, ….
    Verification,
    /// One fetch of a page load got its response headers: `page-load`, the page load so far.
    Fetch,
}

/// Which verifier Servo's `connector.rs` chose (`CertificateVerificationOverrideVerifier::new`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServoChoice {
    /// `RUSTLS_PLATFORM_VERIFIER_CACHE`: the platform verifier, built once per process.
    PlatformCached,
    /// `Verifier::new_with_extra_roots(overrides)`: built at every call (`--certificate-path`).
    PlatformExtraRoots,
    /// rustls' `WebPkiServerVerifier` over `webpki_roots` plus the overrides (Android, or
    /// the pref `network_use_webpki_roots`).
    WebpkiRoots,
}

impl ServoChoice {
    /// The choice's name in tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            ServoChoice::PlatformCached => "platform-cached",
            ServoChoice::PlatformExtraRoots => "platform-extra-roots",
            ServoChoice::WebpkiRoots => "webpki-roots",
        }
    }
}

/// How Servo accepted a certificate its verifier rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServoException {
    /// The certificate is on the exception list (the user accepted it).
    CertificateOverride,
    /// `--ignore-certificate-errors` (the WPT runs).
    IgnoreCertificateErrors,
}

/// A Servo sample's place in its process, connection and page load (see the module
/// documentation for the invariants).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServoMeta {
    /// The Servo process.
    pub pid: u32,
    /// The sample's number in its process, from 0.
    pub seq: u64,
    /// Nanoseconds since certbench's first call in the process (Servo's first
    /// `create_tls_config`, at start-up), on the monotonic clock.
    pub since_start_ns: u64,
    /// What the sample measured.
    pub event: ServoEvent,
    /// The verifier Servo chose (for a connection: the one that verified in it, or the one
    /// built last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<ServoChoice>,
    /// The connection (numbered per process from 1) the sample belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<u64>,
    /// The page load (numbered per process from 1) the sample belongs to, when Servo's
    /// fetch named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u64>,
    /// The document URL of that page load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_url: Option<String>,
    /// Set when Servo accepted a certificate its verifier rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<ServoException>,
    /// On a `verifier` sample: the `Cargo.lock` the sample's `config.versions` were read from
    /// when the build linked certbench-core (Servo's own, or certbench's when the build's
    /// target folder was outside Servo's checkout).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock_file: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servo_meta_round_trips_and_old_samples_still_read() {
        let meta = ServoMeta {
            pid: 7,
            seq: 3,
            since_start_ns: 1_000,
            event: ServoEvent::Verification,
            choice: Some(ServoChoice::PlatformCached),
            connection: Some(2),
            page: Some(1),
            page_url: Some("https://example.com/".into()),
            exception: Some(ServoException::CertificateOverride),
            lock_file: None,
        };
        let json = serde_json::to_string(&meta).unwrap();
        assert!(json.contains(r#""event":"verification""#), "{json}");
        assert!(json.contains(r#""choice":"platform-cached""#), "{json}");
        assert!(
            json.contains(r#""exception":"certificate-override""#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<ServoMeta>(&json).unwrap(), meta);
        // A Servo sample of before these fields: no `servo` in meta.
        let old = r#"{"schema":2,"source":"servo","method":"servo","config":{"transport":"rustls"},"site":"a.example","run":0,"stages":{"verify":5},"outcome":"ok","meta":{"roots_cached":false}}"#;
        let s: crate::Sample = serde_json::from_str(old).unwrap();
        assert_eq!(s.meta.servo, None);
    }
}
