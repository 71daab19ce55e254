//! The sample: one measurement of one method on one site, with nanosecond stage times.
//!
//! This is the contract between the measuring side (`certbench verify`, the site driver, a
//! patched Servo build) and the analysis side. It is written as one JSON object per line
//! (JSONL). Invariants every producer keeps:
//! - stage values are integer nanoseconds from a monotonic clock;
//! - a stage is present only if the method really has that stage (no invented zeros, except a
//!   cached `roots-creation`, which is recorded as `0` with `meta.roots_cached = true`);
//! - nested stages are measured inside their parents, so `verify + verify-hostname <=
//!   total-verification <= total` holds sample by sample.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Version of the sample schema written in every sample. Version 1 (no `config`, `transport`
/// at the top, `hook` and `roots` in `meta`) is still read: [`crate::io::read_jsonl`] upgrades it.
pub const SCHEMA_VERSION: u32 = 2;

macro_rules! stages {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, )*) => {
        /// A timed stage, named as in the 2017 Servo experiment.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Stage {
            $( $(#[$doc])* #[serde(rename = $name)] $variant, )*
        }

        impl Stage {
            /// Every stage, in table-column order.
            pub const ALL: &'static [Stage] = &[$(Stage::$variant),*];

            /// The stage's name in tables, JSON and on the command line.
            pub fn name(self) -> &'static str {
                match self { $(Stage::$variant => $name),* }
            }
        }
    };
}

stages! {
    /// A native library's start-up, once per process, in the sample that first needed it
    /// (`firefox`: NSS's `NSS_NoDB_Init`): kept out of `roots-creation`, which it would
    /// otherwise inflate in that one sample. Not part of `total-verification`.
    LibraryInit => "library-init",
    /// Revocation data loaded (read, mapped or parsed: the CRLSet, the CRLite filter, the
    /// CRLs), once per process, in the sample whose check first needed it: the cold cost of
    /// `--revocation`, kept apart from the per-connection `revocation` stage. Not part of
    /// `total-verification`. The sample's `revocation` says how many bytes stay resident.
    RevocationLoad => "revocation-load",
    /// Building the verifier's trust store from root certificates (cold), or `0` when cached.
    RootsCreation => "roots-creation",
    /// Building the HTTP client/connector (driver only).
    HttpConnectorCreation => "http-connector-creation",
    /// OpenSSL's own `X509_verify_cert` inside the handshake, when a webpki method is hooked
    /// in through `set_verify_callback` (the seed's way): what that variant pays on top of
    /// webpki. The time of the nested callback is not included.
    OpenSslVerify => "openssl-verify",
    /// Converting the chain into the verifier's own form (DER → X509 for OpenSSL; X509 → DER, or
    /// parsing the end-entity DER, for webpki).
    ChainCreation => "chain-creation",
    /// The browser's EV attempt (`chrome`, `firefox`), for a leaf that asserts a policy of the
    /// browser's EV table: a path built under that policy to a root the table lists for it.
    /// When it finds one the chain is accepted as EV and no `verify` follows; otherwise
    /// `verify` is the browser's DV fallback (the sample's `ev` says which). For a leaf with no
    /// EV policy the browser's check of its policies is counted in `verify`.
    EvAttempt => "ev-attempt",
    /// The verify call itself (path building, signatures, validity, usage).
    Verify => "verify",
    /// Certificate Transparency (`--ct`): the SCTs embedded in the end-entity certificate (and
    /// any from TLS) parsed, each signature checked against its log's key over the entry
    /// rebuilt, and the CT policy applied (`chrome`, `firefox`: the browser's own code; the
    /// rustls methods: certbench's on rustls' crypto provider, Chrome's policy). The sample's
    /// `ct` counts the SCTs.
    Ct => "ct",
    /// Revocation (`--revocation`), after the path is verified: `chrome` Chrome's CRLSet for
    /// every certificate of the path, `firefox` CRLite for the end entity as Gecko queries it,
    /// `gnutls` the stapled OCSP response as GnuTLS checks it, the rustls methods the
    /// mechanism asked for (`crl`, `crlite`, `upki`, `ocsp`). Data already loaded (see
    /// `revocation-load`); the sample's `revocation` says what was found.
    Revocation => "revocation",
    /// The hostname check, where the method does it apart from `verify`.
    VerifyHostname => "verify-hostname",
    /// TCP connect + TLS handshake + request to the first byte of the response (driver only).
    Connection => "connection",
    /// TCP connect + TLS handshake, as a connector sees it (a patched Servo's connector).
    Handshake => "handshake",
    /// Everything the verifier does for one chain: chain-creation + ev-attempt + verify + ct +
    /// revocation + verify-hostname.
    TotalVerification => "total-verification",
    /// The whole sample.
    Total => "total",
}

impl Stage {
    /// Number of stages (length of [`Stage::ALL`]).
    pub const COUNT: usize = Stage::ALL.len();

    /// Position of the stage in [`Stage::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Stage {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Stage::ALL
            .iter()
            .copied()
            .find(|st| st.name() == s)
            .ok_or_else(|| format!("unknown stage `{s}`"))
    }
}

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

/// What a revocation check (`revocation`) found, and the data it used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevocationOutcome {
    /// The mechanism (`crlset`, `crlite`, `upki`, `crl`, `ocsp`).
    pub mechanism: String,
    /// `good`, `revoked` or `soft-fail` (the browser accepted without an answer).
    pub status: String,
    /// Why the check soft-failed (`no-data`, `stale`, `not-covered`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soft_fail: Option<String>,
    /// The revoked certificate's position in the path (0: the leaf).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Bytes of the data the mechanism read (the CRLSet, the filter files, the CRLs, the
    /// stapled response).
    pub data_bytes: u64,
    /// Bytes the mechanism keeps in memory between checks (its parsed data; 0 for `upki`,
    /// which reads its files per check, and for a stapled response).
    pub resident_bytes: u64,
    /// This sample paid the data's load (`revocation-load`): the process's first check.
    #[serde(default)]
    pub cold: bool,
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
    /// Bytes (TCP payload) the server sent between the client's first flight and its second:
    /// the server's first flight, ServerHello to Finished, record headers included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_flight_bytes: Option<u64>,
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
    pub servo: Option<crate::servo::ServoMeta>,
}

/// The configuration a sample was measured under: everything besides the method and the site
/// that decides what its figures mean. Samples of different configurations are never
/// averaged together: every table, comparison, A/B pair and `--resume` keys on it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Config {
    /// TLS stack, where one was used (`openssl`, `rustls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// How the verifier was put into the TLS stack (`native`, `callback`, `replace`, or
    /// `timed-verifier` inside rustls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<String>,
    /// The previous TLS session was offered again (`--tls-resumption`).
    #[serde(default)]
    pub resumption: bool,
    /// Each trust store was built once for the run (`--cache-roots`).
    #[serde(default)]
    pub cache_roots: bool,
    /// Where the trust store came from, e.g. `mozilla+mirror (152)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<String>,
    /// Extra untrusted intermediates offered with every chain (`verify --extra-intermediates`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub extra_intermediates: u32,
    /// OpenSSL's verification policy, where OpenSSL verified in the sample (the `openssl`
    /// method, or OpenSSL's own verification under the callback hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openssl_policy: Option<String>,
    /// Library → version, of the verifier and of the TLS stack, as run.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub versions: BTreeMap<String, String>,
    /// The chains' keys in a `--pq` run: `classical` (the chains as they are) or the
    /// post-quantum profile of their twins (`mldsa44`, `mldsa65`, `mldsa87`, `mixed`;
    /// docs/pq.md). `None` outside such a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// The emulated link between client and mirror (`--link`), as its model states it, e.g.
    /// `RTT 40 ms, IW 10 × 1460 B`. `None`: loopback, or a real network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// Certificate Transparency was checked (`--ct`), against this log list (its origin and
    /// size); absent: no CT check (also for a method that has none, in a `--ct` run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ct: Option<String>,
    /// Revocation was checked (`--revocation`): the mechanism and its data, with their size
    /// (e.g. `crlite: clubcard filter 6.1 MB, 1000000 serials`); absent: no revocation check
    /// (also for a method that has none, in a `--revocation` run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation: Option<String>,
}

impl Config {
    /// The trust store [`Config::roots`] names, when it names one with its count (it does in
    /// every sample `certbench` writes; a Servo build's samples name none).
    pub fn trust_store(&self) -> Option<TrustStore> {
        TrustStore::parse(self.roots.as_deref()?)
    }
}

/// A trust store as a sample's configuration names it ([`Config::roots`]): where its roots
/// came from and how many it holds, written `origin (count)` (`mozilla+corpus+extra (1621)`).
/// This type is that text's one definition: the measuring side writes it with `Display`
/// (`certbench_core::roots::RootSet::describe`) and the analysis reads it back with
/// [`TrustStore::parse`]. The file holds the text, so files are as they always were.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustStore {
    /// Where the roots came from, `+`-joined (`mozilla+corpus+extra`).
    pub origin: String,
    /// The number of roots in the store.
    pub roots: u64,
}

impl fmt::Display for TrustStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.origin, self.roots)
    }
}

impl TrustStore {
    /// Reads back what `Display` writes: the count is the number in the last parentheses,
    /// the origin what comes before them. `None` without a parenthesised count at the end.
    pub fn parse(text: &str) -> Option<TrustStore> {
        let (origin, count) = text.rsplit_once('(')?;
        Some(TrustStore {
            origin: origin.strip_suffix(' ').unwrap_or(origin).to_owned(),
            roots: count.trim_end_matches(')').parse().ok()?,
        })
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One measurement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    /// What produced the sample.
    pub source: Source,
    /// Verifier method name (`openssl`, `rustlsserial`, …).
    pub method: String,
    /// The configuration it was measured under.
    #[serde(default)]
    pub config: Config,
    /// Host name the chain was verified for.
    pub site: String,
    /// The site's port, when it was connected to (driver, Servo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// The request path, when a request was made (driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Identifier of the stored chain, when there is one (e.g. `reddit.com__rustls-bench`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    /// Run index (0-based; warm-up runs have their own numbering).
    pub run: u32,
    /// True for warm-up samples, which statistics leave out.
    #[serde(default)]
    pub warmup: bool,
    /// Stage → nanoseconds.
    pub stages: BTreeMap<Stage, u64>,
    /// Outcome.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Non-timing facts.
    #[serde(default)]
    pub meta: SampleMeta,
}

impl Sample {
    /// Nanoseconds recorded for `stage`, if the sample has it.
    pub fn stage(&self, stage: Stage) -> Option<u64> {
        self.stages.get(&stage).copied()
    }

    /// The site as one string: the host, `:port` unless 443 (or unknown), the path unless `/`
    /// (or unknown). Two samples with different site ids never share it.
    pub fn site_id(&self) -> String {
        site_id(&self.site, self.port, self.path.as_deref())
    }

    /// What the verifier itself spent: `total-verification` without what OpenSSL's own
    /// verification took around it (`openssl-verify`, under the callback hook). `None`
    /// without `total-verification`.
    pub fn own_cost(&self) -> Option<u64> {
        let total = self.stage(Stage::TotalVerification)?;
        Some(total.saturating_sub(self.stage(Stage::OpenSslVerify).unwrap_or(0)))
    }
}

/// A site as one string (see [`Sample::site_id`]): `host[:port][path]`, an IPv6 host in
/// brackets.
pub fn site_id(host: &str, port: Option<u16>, path: Option<&str>) -> String {
    let mut id = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    };
    if let Some(p) = port.filter(|p| *p != 443) {
        id.push_str(&format!(":{p}"));
    }
    if let Some(path) = path.filter(|p| *p != "/") {
        id.push_str(path);
    }
    id
}

/// What a run was: written by the measuring side next to its JSONL file
/// ([`crate::io::run_info_path`]), read by reports for their header. Optional: a JSONL file without it
/// (a Servo build's, say) is reported all the same.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The command line, program first.
    pub command: Vec<String>,
    /// CPU model and count, e.g. `AMD EPYC, 2 cores`.
    pub machine: String,
    /// Operating system and kernel.
    pub os: String,
    /// Library → version (OpenSSL, rustls, rustls-webpki, …).
    pub versions: BTreeMap<String, String>,
    /// When the run started, Unix seconds.
    pub started: u64,
    /// For a driver run: the command that measures the same with the other hook (for the
    /// answer's last line), as the run itself wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_hook: Option<String>,
    /// For a driver run written by an older certbench: the options that decided what its
    /// samples measure, as (flag, value), in the run's own words (now `spec`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured_with: Vec<(String, String)>,
    /// For a driver run: what its samples measure, typed by certbench (its `RunSpec`, each
    /// value by name); `--resume` compares it with the resumed run's field by field. Headers
    /// written before it have `measured_with` instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<serde_json::Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Sample {
        Sample {
            schema: SCHEMA_VERSION,
            source: Source::Verify,
            method: "openssl".into(),
            config: Default::default(),
            port: None,
            path: None,
            site: "example.com".into(),
            chain: Some("example.com__test".into()),
            run: 0,
            warmup: false,
            stages: [(Stage::Verify, 1234), (Stage::Total, 5678)].into(),
            verdict: Verdict::Rejected("certificate has expired".into()),
            meta: SampleMeta::default(),
        }
    }

    #[test]
    fn stage_names_round_trip() {
        for &s in Stage::ALL {
            assert_eq!(s.name().parse::<Stage>().unwrap(), s);
            assert_eq!(Stage::ALL[s.index()], s);
        }
        assert_eq!(Stage::TotalVerification.name(), "total-verification");
    }

    #[test]
    fn sample_serializes_with_integer_nanoseconds_and_round_trips() {
        let s = sample();
        let json = serde_json::to_string(&s).unwrap();
        assert!(
            json.contains(r#""stages":{"verify":1234,"total":5678}"#),
            "{json}"
        );
        assert!(json.contains(r#""outcome":"rejected","reason":"certificate has expired""#));
        assert_eq!(serde_json::from_str::<Sample>(&json).unwrap(), s);
    }

    #[test]
    fn trust_stores_are_read_back_as_written() {
        let store = TrustStore {
            origin: "mozilla+corpus+extra".into(),
            roots: 1621,
        };
        assert_eq!(store.to_string(), "mozilla+corpus+extra (1621)");
        assert_eq!(TrustStore::parse(&store.to_string()), Some(store));
        let config = Config {
            roots: Some("system".into()),
            ..Config::default()
        };
        assert_eq!(config.trust_store(), None);
        assert_eq!(Config::default().trust_store(), None);
    }

    #[test]
    fn site_ids_tell_ports_and_paths_apart() {
        let mut s = sample();
        s.port = Some(443);
        s.path = Some("/".into());
        assert_eq!(s.site_id(), "example.com");
        s.port = Some(8443);
        s.path = Some("/a?b".into());
        assert_eq!(s.site_id(), "example.com:8443/a?b");
        s.site = "::1".into();
        assert_eq!(s.site_id(), "[::1]:8443/a?b");
    }
}
