//! The configuration a sample was measured under ([`Config`]), its fields typed: the named
//! values of [`crate::names`], the trust store of [`crate::trust_store`], the texts of
//! [`crate::labels`].
//!
//! Invariant: a configuration is written as it was when every field was a string (the field
//! names, their order, their text), and every file an earlier certbench wrote reads; the tests
//! below hold literal lines of those files.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::labels::{CtLogList, Link, OpensslPolicy, RevocationSource};
use crate::meta::is_zero;
use crate::names::{CertCompression, Hook, Named, Profile, Transport};
use crate::scenario::Scenario;
use crate::trust_store::{Roots, TrustStore};

/// The configuration a sample was measured under: everything besides the method and the site
/// that decides what its figures mean. Samples of different configurations are never
/// averaged together: every table, comparison, A/B pair and `--resume` keys on it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Config {
    /// TLS stack, where one was used (`openssl`, `rustls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Named<Transport>>,
    /// How the verifier was put into the TLS stack (`native`, `callback`, `replace`, or
    /// `timed-verifier` inside rustls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<Named<Hook>>,
    /// The previous TLS session was offered again (`--tls-resumption`).
    #[serde(default)]
    pub resumption: bool,
    /// Each trust store was built once for the run (`--cache-roots`).
    #[serde(default)]
    pub cache_roots: bool,
    /// Where the trust store came from, e.g. `mozilla+mirror (152)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Roots>,
    /// Extra untrusted intermediates offered with every chain (`verify --extra-intermediates`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub extra_intermediates: u32,
    /// OpenSSL's verification policy, where OpenSSL verified in the sample (the `openssl`
    /// method, or OpenSSL's own verification under the callback hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openssl_policy: Option<OpensslPolicy>,
    /// Library → version, of the verifier and of the TLS stack, as run.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub versions: BTreeMap<String, String>,
    /// The chains' keys in a `--pq` run: `classical` (the chains as they are) or the
    /// post-quantum profile of their twins (`mldsa44`, `mldsa65`, `mldsa87`, `mixed`;
    /// docs/pq.md). `None` outside such a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Named<Profile>>,
    /// The scenario a post-quantum profile's twins were made under (who signs the SCTs, which
    /// certificates are sent: [`Scenario`], e.g. `pq-scts, trimmed`). `None` for today's chains
    /// and outside a `--pq` run: never two scenarios under one absent value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<Scenario>,
    /// The emulated link between client and mirror (`--link`), as its model states it, e.g.
    /// `RTT 40 ms, IW 10 × 1460 B`. `None`: loopback, or a real network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<Link>,
    /// Certificate Transparency was checked (`--ct`), against this log list (its origin and
    /// size); absent: no CT check (also for a method that has none, in a `--ct` run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ct: Option<CtLogList>,
    /// Revocation was checked (`--revocation`): the mechanism and its data, with their size
    /// (e.g. `crlite: 6.1 MB of certbench revocation data`); absent: no revocation check (also
    /// for a method that has none, in a `--revocation` run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation: Option<RevocationSource>,
    /// The certificate compression (RFC 8879) the client and the mirror offered
    /// (`--compress-certs`: `brotli` or `zlib`); absent: none offered, the certificates sent
    /// as they are. Whether the server compressed is the sample's `cert-decompression` stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<Named<CertCompression>>,
}

impl Config {
    /// The trust store [`Config::roots`] names, when it names one with its count (it does in
    /// every sample `certbench` writes and in a Servo build's verifier samples).
    pub fn trust_store(&self) -> Option<&TrustStore> {
        self.roots.as_ref()?.store()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A driver sample's configuration as certbench has written it, every field set.
    const DRIVER: &str = r#"{"transport":"openssl","hook":"callback","resumption":false,"cache_roots":true,"roots":"mozilla+mirror (152)","openssl_policy":"X509_STRICT, PARTIAL_CHAIN, auth level 2, purpose sslserver, NO_PARTIAL_WILDCARDS","versions":{"OpenSSL":"3.0.13","rustls-webpki":"0.103.4"},"profile":"mldsa44","scenario":"pq-scts, trimmed","link":"RTT 40 ms, 50 Mbit/s, IW 10 × 1460 B","ct":"28 logs of corpus/ct-logs","revocation":"crlite: 6.1 MB of certbench revocation data"}"#;

    /// A driver sample's under `--compress-certs` (rustls).
    const COMPRESSED: &str = r#"{"transport":"rustls","hook":"timed-verifier","resumption":false,"cache_roots":true,"roots":"mozilla+mirror (152)+pq-mldsa44 (5)","versions":{"rustls":"0.23.46"},"profile":"mldsa44","compression":"brotli"}"#;

    /// A `verify` sample's, and a Servo build's.
    const VERIFY: &str = r#"{"resumption":false,"cache_roots":false,"roots":"mozilla+corpus+extra (1621)","extra_intermediates":150,"openssl_policy":"PARTIAL_CHAIN, auth level 2, purpose sslserver, NO_PARTIAL_WILDCARDS","versions":{"OpenSSL":"3.0.13"}}"#;
    const SERVO: &str = r#"{"transport":"rustls","hook":"timed-verifier","resumption":false,"cache_roots":false,"roots":"system (140)","versions":{"rustls":"0.23.31"}}"#;

    #[test]
    fn configurations_read_typed_and_write_back_byte_for_byte() {
        for line in [
            DRIVER,
            VERIFY,
            SERVO,
            COMPRESSED,
            r#"{"resumption":true,"cache_roots":false}"#,
        ] {
            let c: Config = serde_json::from_str(line).unwrap();
            assert_eq!(serde_json::to_string(&c).unwrap(), line);
        }
        let c: Config = serde_json::from_str(DRIVER).unwrap();
        assert_eq!(c.transport, Some(Transport::Openssl.into()));
        assert_eq!(c.hook, Some(Hook::Callback.into()));
        assert_eq!(c.profile, Some(Profile::MlDsa44.into()));
        assert_eq!(
            c.scenario.map(|s| (s.scts, s.chain)),
            Some((crate::Scts::Pq, crate::ChainShape::Trimmed))
        );
        assert_eq!(
            c.trust_store().map(|t| (t.origin.as_str(), t.roots)),
            Some(("mozilla+mirror", 152))
        );
        assert_eq!(c.revocation.as_ref().map(|r| r.mechanism()), Some("crlite"));
        assert_eq!(c.ct.as_deref(), Some("28 logs of corpus/ct-logs"));
        assert_eq!(c.compression, None);
        let compressed: Config = serde_json::from_str(COMPRESSED).unwrap();
        assert_eq!(compressed.compression, Some(CertCompression::Brotli.into()));
        let mut uncompressed = compressed.clone();
        uncompressed.compression = None;
        assert_ne!(
            compressed, uncompressed,
            "compression tells configurations apart"
        );
        let servo: Config = serde_json::from_str(SERVO).unwrap();
        assert_eq!(servo.hook, Some(Hook::TimedVerifier.into()));
        assert_eq!(servo.trust_store().map(|t| t.roots), Some(140));
    }

    #[test]
    fn texts_this_version_does_not_know_still_read_and_write_back() {
        let line = r#"{"transport":"quic","hook":"inline","resumption":false,"cache_roots":false,"roots":"system","profile":"slhdsa128s"}"#;
        let c: Config = serde_json::from_str(line).unwrap();
        assert_eq!(c.transport, Some(Named::Unknown("quic".into())));
        assert_eq!(c.hook, Some(Named::Unknown("inline".into())));
        assert_eq!(c.profile, Some(Named::Unknown("slhdsa128s".into())));
        assert_eq!(c.roots, Some(Roots::Named("system".into())));
        assert_eq!(c.trust_store(), None);
        assert_eq!(Config::default().trust_store(), None);
        assert_eq!(serde_json::to_string(&c).unwrap(), line);
    }

    #[test]
    fn configurations_differ_where_their_texts_do() {
        let a: Config = serde_json::from_str(DRIVER).unwrap();
        let mut b = a.clone();
        b.hook = Some(Named::from("callback"));
        assert_eq!(a, b);
        b.hook = Some(Hook::Replace.into());
        assert_ne!(a, b);
        assert!(a < b, "ordered by text, as when the fields were strings");
    }
}
