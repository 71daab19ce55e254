//! x509-limbo testcases (schema version 1) as certbench inputs: each testcase becomes a
//! [`Case`] — DER roots, a [`Chain`], and the [`Target`] fields it asks for — or a
//! [`BadCase`] naming what is wrong with it, so one broken testcase never stops a run.
//!
//! The mapping follows the upstream harnesses (`harness/openssl`, `harness/rust-rustls`,
//! `harness/rust-webpki` of C2SP/x509-limbo): `trusted_certs` are the trust anchors,
//! `untrusted_intermediates` are sent after the `peer_certificate`; `validation_time` null
//! means none (see [`Target::time`]); `expected_peer_name` DNS/IP/RFC822 is the peer name;
//! `extended_key_usage` `[serverAuth]`/`[clientAuth]` the EKU, `[]` none; `max_chain_depth`
//! the depth limit; `crls` the CRLs. What no method here expresses makes the whole case
//! SKIPPED with a reason ([`Case::unsupported`]): CLIENT validation, `signature_algorithms`
//! and `key_usage` constraints, other or several EKUs — as upstream.

use std::path::{Path, PathBuf};

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, CertificateRevocationListDer};
use serde::Deserialize;
use serde_json::value::RawValue;

use certbench_core::chain::Chain;
use certbench_core::verifier::{Eku, PeerName, Target};

/// A peer name, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Peer {
    /// DNS name.
    Dns(String),
    /// IP address.
    Ip(std::net::IpAddr),
    /// E-mail address.
    Email(String),
}

/// One testcase, ready to verify.
#[derive(Clone, Debug)]
pub struct Case {
    /// Testcase id, `family::name`.
    pub id: String,
    /// `true` if the testcase expects the chain to be accepted.
    pub expected_success: bool,
    /// The trust anchors (`trusted_certs`).
    pub roots: Vec<CertificateDer<'static>>,
    /// `peer_certificate`, then `untrusted_intermediates`.
    pub chain: Chain,
    /// `expected_peer_name`.
    pub peer: Option<Peer>,
    /// `validation_time`, seconds since the Unix epoch.
    pub time: Option<u64>,
    /// The EKU asked for.
    pub eku: Option<Eku>,
    /// `max_chain_depth`.
    pub max_depth: Option<u32>,
    /// `crls`, DER.
    pub crls: Vec<CertificateRevocationListDer<'static>>,
    /// Why no certbench method evaluates this testcase, if so (it is then SKIPPED).
    pub unsupported: Option<String>,
}

impl Case {
    /// The verification target this testcase describes.
    pub fn target(&self) -> Target<'_> {
        Target {
            peer: self.peer.as_ref().map(|p| match p {
                Peer::Dns(s) => PeerName::Dns(s),
                Peer::Ip(ip) => PeerName::Ip(*ip),
                Peer::Email(s) => PeerName::Email(s),
            }),
            time: self.time,
            eku: self.eku,
            max_depth: self.max_depth,
            crls: &self.crls,
            ct: None,
            revocation: None,
            stapled_ocsp: None,
        }
    }
}

/// Why a limbo document cannot be used at all.
/// Why a limbo file could not be used at all ([`LimboFile::load`]).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error(transparent)]
    Io(certbench_core::Error),
    /// Not an x509-limbo file (not JSON, not schema version 1).
    #[error("{}: not an x509-limbo file: {cause}", .path.display())]
    Limbo {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        cause: FileError,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Not JSON, or not an object with a `testcases` array.
    #[error("{0}")]
    Json(serde_json::Error),
    /// A `version` other than 1.
    #[error("schema version {0} (expected 1)")]
    Version(serde_json::Value),
}

/// Why one testcase cannot be read (its [`BadCase`] message).
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// Not a testcase object.
    #[error("not a testcase: {0}")]
    NotTestcase(serde_json::Error),
    /// An `expected_result` other than SUCCESS or FAILURE.
    #[error("expected_result `{0}`")]
    ExpectedResult(String),
    /// A certificate or CRL field that is not PEM.
    #[error("{field}: not PEM: {cause}")]
    NotPem {
        field: String,
        cause: rustls_pki_types::pem::Error,
    },
    /// A `validation_time` that is not RFC 3339.
    #[error("validation_time `{value}`: {cause}")]
    Time {
        value: String,
        cause: time::error::Parse,
    },
    /// A `validation_time` before the Unix epoch.
    #[error("validation_time `{0}` is before 1970")]
    Before1970(String),
    /// An IP peer name that is not an IP address.
    #[error("expected_peer_name IP `{value}`: {cause}")]
    PeerIp {
        value: String,
        cause: std::net::AddrParseError,
    },
    /// A peer name kind other than DNS, IP or RFC822.
    #[error("expected_peer_name kind `{0}`")]
    PeerKind(String),
    /// A negative or huge `max_chain_depth`.
    #[error("max_chain_depth {0}")]
    Depth(i64),
    /// A `validation_kind` other than SERVER or CLIENT.
    #[error("validation_kind `{0}`")]
    ValidationKind(String),
}

/// A testcase that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadCase {
    /// Its id if it has one, else `#<position>` (1-based).
    pub id: String,
    /// What is wrong.
    pub message: String,
}

/// A limbo file: every testcase, in file order, read or not.
#[derive(Debug)]
pub struct LimboFile {
    /// Testcases.
    pub cases: Vec<Result<Case, BadCase>>,
}

impl LimboFile {
    /// Reads a limbo file. Only an unreadable file, or one that is not a JSON object with
    /// `version: 1` and a `testcases` array, is an error; a bad testcase is a [`BadCase`].
    pub fn load(path: &Path) -> Result<LimboFile, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|cause| {
            LoadError::Io(certbench_core::Error::Io {
                path: path.to_owned(),
                cause,
            })
        })?;
        LimboFile::parse(&text).map_err(|cause| LoadError::Limbo {
            path: path.to_owned(),
            cause,
        })
    }

    /// Reads a limbo document from text (see [`LimboFile::load`]).
    pub fn parse(text: &str) -> Result<LimboFile, FileError> {
        #[derive(Deserialize)]
        struct File<'a> {
            version: serde_json::Value,
            #[serde(borrow)]
            testcases: Vec<&'a RawValue>,
        }
        let file: File<'_> = serde_json::from_str(text).map_err(FileError::Json)?;
        if file.version != serde_json::json!(1) {
            return Err(FileError::Version(file.version));
        }
        let cases = file
            .testcases
            .iter()
            .enumerate()
            .map(|(i, raw)| {
                Case::from_json(raw.get()).map_err(|(id, error)| BadCase {
                    id: id.unwrap_or_else(|| format!("#{}", i + 1)),
                    message: error.to_string(),
                })
            })
            .collect();
        Ok(LimboFile { cases })
    }
}

#[derive(Deserialize)]
struct RawPeer {
    kind: String,
    value: String,
}

#[derive(Deserialize)]
struct RawTestcase {
    id: String,
    validation_kind: String,
    trusted_certs: Vec<String>,
    untrusted_intermediates: Vec<String>,
    peer_certificate: String,
    #[serde(default)]
    validation_time: Option<String>,
    #[serde(default)]
    signature_algorithms: Vec<serde_json::Value>,
    #[serde(default)]
    key_usage: Vec<serde_json::Value>,
    #[serde(default)]
    extended_key_usage: Vec<String>,
    expected_result: String,
    #[serde(default)]
    expected_peer_name: Option<RawPeer>,
    #[serde(default)]
    expected_peer_names: Vec<RawPeer>,
    #[serde(default)]
    max_chain_depth: Option<i64>,
    #[serde(default)]
    crls: Vec<String>,
}

fn cert(pem: &str, field: String) -> Result<CertificateDer<'static>, CaseError> {
    CertificateDer::from_pem_slice(pem.as_bytes())
        .map_err(|cause| CaseError::NotPem { field, cause })
}

impl Case {
    /// One testcase from its JSON text; on error, the id (if it could be read) and why.
    fn from_json(json: &str) -> Result<Case, (Option<String>, CaseError)> {
        let raw: RawTestcase = match serde_json::from_str(json) {
            Ok(raw) => raw,
            Err(e) => {
                #[derive(Deserialize)]
                struct IdOnly {
                    id: String,
                }
                let id = serde_json::from_str::<IdOnly>(json).ok().map(|i| i.id);
                return Err((id, CaseError::NotTestcase(e)));
            }
        };
        let id = raw.id.clone();
        raw.into_case().map_err(|m| (Some(id), m))
    }
}

/// The PEM certificates of the list `field`, each named `field[i]` in an error.
fn certs(pems: &[String], field: &str) -> Result<Vec<CertificateDer<'static>>, CaseError> {
    pems.iter()
        .enumerate()
        .map(|(i, p)| cert(p, format!("{field}[{i}]")))
        .collect()
}

impl RawTestcase {
    /// The typed testcase; its fields are read (and their errors found) in the file's order.
    fn into_case(self) -> Result<Case, CaseError> {
        let expected_success = self.expected_success()?;
        let roots = certs(&self.trusted_certs, "trusted_certs")?;
        let intermediates = certs(&self.untrusted_intermediates, "untrusted_intermediates")?;
        let leaf = cert(&self.peer_certificate, "peer_certificate".to_owned())?;
        let crls = self.crls()?;
        let time = self.time()?;
        let peer = self.peer()?;
        let max_depth = match self.max_chain_depth {
            None => None,
            Some(d) => Some(u32::try_from(d).map_err(|_| CaseError::Depth(d))?),
        };
        let (eku, unsupported) = self.constraints()?;
        Ok(Case {
            id: self.id,
            expected_success,
            roots,
            chain: Chain {
                leaf,
                intermediates,
            },
            peer,
            time,
            eku,
            max_depth,
            crls,
            unsupported,
        })
    }

    /// `expected_result`: `SUCCESS` or `FAILURE`.
    fn expected_success(&self) -> Result<bool, CaseError> {
        match self.expected_result.as_str() {
            "SUCCESS" => Ok(true),
            "FAILURE" => Ok(false),
            other => Err(CaseError::ExpectedResult(other.to_owned())),
        }
    }

    /// `crls`, each a PEM CRL.
    fn crls(&self) -> Result<Vec<CertificateRevocationListDer<'static>>, CaseError> {
        self.crls
            .iter()
            .enumerate()
            .map(|(i, p)| {
                CertificateRevocationListDer::from_pem_slice(p.as_bytes()).map_err(|cause| {
                    CaseError::NotPem {
                        field: format!("crls[{i}]"),
                        cause,
                    }
                })
            })
            .collect()
    }

    /// `validation_time` (RFC 3339) in seconds since 1970.
    fn time(&self) -> Result<Option<u64>, CaseError> {
        let Some(t) = &self.validation_time else {
            return Ok(None);
        };
        let parsed = time::OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339)
            .map_err(|cause| CaseError::Time {
                value: t.clone(),
                cause,
            })?;
        u64::try_from(parsed.unix_timestamp())
            .map(Some)
            .map_err(|_| CaseError::Before1970(t.clone()))
    }

    /// `expected_peer_name`: a DNS name, an IP address or an email address.
    fn peer(&self) -> Result<Option<Peer>, CaseError> {
        let Some(p) = &self.expected_peer_name else {
            return Ok(None);
        };
        Ok(Some(match p.kind.as_str() {
            "DNS" => Peer::Dns(p.value.clone()),
            "IP" => Peer::Ip(p.value.parse().map_err(|cause| CaseError::PeerIp {
                value: p.value.clone(),
                cause,
            })?),
            "RFC822" => Peer::Email(p.value.clone()),
            other => return Err(CaseError::PeerKind(other.to_owned())),
        }))
    }

    /// The extended key usage asked for, and why certbench cannot run the testcase if it
    /// cannot (of several reasons, the last checked: client validation first of all); an
    /// unknown `validation_kind` is an error.
    fn constraints(&self) -> Result<(Option<Eku>, Option<String>), CaseError> {
        let mut unsupported = None;
        let mut eku = None;
        match self.extended_key_usage.as_slice() {
            [] => {}
            [one] if one == "serverAuth" => eku = Some(Eku::ServerAuth),
            [one] if one == "clientAuth" => eku = Some(Eku::ClientAuth),
            [one] => unsupported = Some(format!("extended key usage `{one}` not supported")),
            _ => unsupported = Some("several extended key usages not supported".to_owned()),
        }
        if !self.key_usage.is_empty() {
            unsupported = Some("key_usage constraints not supported".to_owned());
        }
        if !self.signature_algorithms.is_empty() {
            unsupported = Some("signature_algorithms constraints not supported".to_owned());
        }
        if !self.expected_peer_names.is_empty() {
            unsupported = Some("expected_peer_names (client validation) not supported".to_owned());
        }
        match self.validation_kind.as_str() {
            "SERVER" => {}
            "CLIENT" => {
                unsupported = Some(
                    "CLIENT validation (a server checking a client) is not what certbench measures"
                        .to_owned(),
                )
            }
            other => return Err(CaseError::ValidationKind(other.to_owned())),
        }
        Ok((eku, unsupported))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEM: &str = "-----BEGIN CERTIFICATE-----\nMAMCAQA=\n-----END CERTIFICATE-----\n";

    fn case(extra: &str) -> String {
        format!(
            r#"{{"id":"x::y","validation_kind":"SERVER","trusted_certs":["{p}"],
            "untrusted_intermediates":[],"peer_certificate":"{p}",
            "expected_result":"SUCCESS"{extra}}}"#,
            p = PEM.replace('\n', "\\n")
        )
    }

    #[test]
    fn fields_map_to_the_target_and_bad_testcases_are_named() {
        let text = format!(
            r#"{{"version":1,"testcases":[{},{},{},{},{}]}}"#,
            case(
                r#","validation_time":"2024-01-01T00:00:00+00:00","expected_peer_name":{"kind":"IP","value":"::1"},"max_chain_depth":2"#
            ),
            case(r#","extended_key_usage":["clientAuth","serverAuth"]"#),
            r#"{"id":"bad::one","validation_kind":"SERVER"}"#,
            r#"[1,2]"#,
            case(r#","validation_time":"yesterday""#),
        );
        let f = LimboFile::parse(&text).unwrap();
        let c = f.cases[0].as_ref().unwrap();
        assert_eq!(c.time, Some(1_704_067_200));
        assert_eq!(c.peer, Some(Peer::Ip("::1".parse().unwrap())));
        assert_eq!(c.max_depth, Some(2));
        assert!(c.unsupported.is_none());
        assert!(matches!(c.target().peer, Some(PeerName::Ip(_))));
        let c = f.cases[1].as_ref().unwrap();
        assert!(c.unsupported.as_deref().unwrap().contains("several"));
        let b = f.cases[2].as_ref().unwrap_err();
        assert_eq!(b.id, "bad::one");
        assert!(b.message.contains("missing field"), "{}", b.message);
        assert_eq!(f.cases[3].as_ref().unwrap_err().id, "#4");
        assert!(
            f.cases[4]
                .as_ref()
                .unwrap_err()
                .message
                .contains("yesterday")
        );
        let version = LimboFile::parse(r#"{"version":2,"testcases":[]}"#).unwrap_err();
        assert!(
            matches!(&version, FileError::Version(v) if v == 2),
            "{version}"
        );
        assert_eq!(version.to_string(), "schema version 2 (expected 1)");
        assert!(matches!(
            LimboFile::parse("not json"),
            Err(FileError::Json(_))
        ));
    }
}
