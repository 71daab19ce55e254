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

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::meta::SampleMeta;
use crate::stage::Stage;
use crate::verdict::{Source, Verdict};

/// Version of the sample schema written in every sample. Version 1 (no `config`, `transport`
/// at the top, `hook` and `roots` in `meta`) is still read: [`crate::io::read_jsonl`] upgrades it.
pub const SCHEMA_VERSION: u32 = 2;

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
