//! Trust roots from one source, as DER, ready for every method to build its own store from.
//!
//! Loading (reading files, the system store) is not timed; building a method's store from the
//! DER is, as `roots-creation` (see [`crate::verifier::Verifier::build_roots`]).

use std::path::PathBuf;
use std::str::FromStr;

use rustls_pki_types::CertificateDer;

use crate::chain::read_pem_certs_nonempty;
use crate::error::Error;

/// Where roots come from (`--roots mozilla|system|FILE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootsSpec {
    /// The Mozilla root program's TLS server roots, bundled (`webpki-root-certs`).
    Mozilla,
    /// The operating system's store (`rustls-native-certs`).
    System,
    /// A PEM file of root certificates.
    File(PathBuf),
}

impl FromStr for RootsSpec {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "mozilla" => RootsSpec::Mozilla,
            "system" => RootsSpec::System,
            path => RootsSpec::File(PathBuf::from(path)),
        })
    }
}

/// A set of root certificates (DER), with a description of where they came from.
#[derive(Clone, Debug)]
pub struct RootSet {
    origin: String,
    certs: Vec<CertificateDer<'static>>,
}

impl RootSet {
    /// Loads the roots named by `spec`. An empty source is an error.
    pub fn load(spec: &RootsSpec) -> Result<RootSet, Error> {
        let (origin, certs) = match spec {
            RootsSpec::Mozilla => (
                "mozilla".to_owned(),
                webpki_root_certs::TLS_SERVER_ROOT_CERTS.to_vec(),
            ),
            RootsSpec::System => {
                let found = rustls_native_certs::load_native_certs();
                if found.certs.is_empty() {
                    let why = found
                        .errors
                        .iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join("; ");
                    return Err(Error::Roots {
                        origin: "system".into(),
                        message: format!("no root certificate found ({why})"),
                    });
                }
                ("system".to_owned(), found.certs)
            }
            RootsSpec::File(path) => (path.display().to_string(), read_pem_certs_nonempty(path)?),
        };
        Ok(RootSet { origin, certs })
    }

    /// A set made of exactly these certificates.
    pub fn from_certs(origin: impl Into<String>, certs: Vec<CertificateDer<'static>>) -> RootSet {
        RootSet {
            origin: origin.into(),
            certs,
        }
    }

    /// Adds the certificates not already present (same bytes); returns how many were added.
    pub fn extend(
        &mut self,
        label: &str,
        extra: impl IntoIterator<Item = CertificateDer<'static>>,
    ) -> usize {
        let mut added = 0;
        for c in extra {
            if !self.certs.iter().any(|have| have.as_ref() == c.as_ref()) {
                self.certs.push(c);
                added += 1;
            }
        }
        if added > 0 {
            self.origin = format!("{}+{label}", self.origin);
        }
        added
    }

    /// The DER roots.
    pub fn certs(&self) -> &[CertificateDer<'static>] {
        &self.certs
    }

    /// The [`certbench_schema::TrustStore`] a sample's configuration names: where the roots
    /// came from and how many there are.
    pub fn trust_store(&self) -> certbench_schema::TrustStore {
        certbench_schema::TrustStore {
            origin: self.origin.clone(),
            roots: self.certs.len() as u64,
        }
    }

    /// [`RootSet::trust_store`] as text, `origin (count)`, e.g. `mozilla+corpus (150)`.
    pub fn describe(&self) -> String {
        self.trust_store().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mozilla_roots_are_bundled_and_extend_dedupes() {
        let mut set = RootSet::load(&RootsSpec::Mozilla).unwrap();
        let n = set.certs().len();
        assert!(n > 100, "{n}");
        let first = set.certs()[0].clone();
        assert_eq!(set.extend("again", [first]), 0);
        assert_eq!(set.describe(), format!("mozilla ({n})"));
    }

    #[test]
    fn missing_roots_file_is_named() {
        let e = RootSet::load(&"/nonexistent/roots.pem".parse().unwrap()).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/roots.pem"), "{e}");
    }
}
