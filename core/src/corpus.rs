//! The real-chain corpus: one folder per chain (`leaf.pem`, `intermediates.pem`, `root.pem`,
//! or `chain.pem`), described by an optional `manifest.json`.
//!
//! With a manifest, chains come in manifest order with its host, validation time and recorded
//! verdicts. Without one, every sub-folder is a chain, in name order: the host is the folder
//! name up to `__`, the validation time is now. A chain that fails to load is kept as a
//! [`LoadFailure`] naming its file; the other chains load as usual.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rustls_pki_types::CertificateDer;
use serde::Deserialize;

use crate::chain::{Chain, load_chain_dir, read_pem_certs};
use crate::error::Error;

/// The corpus bundled with certbench (`corpus/real-chains` in the source tree, beside `core/`).
pub fn bundled_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/real-chains")
}

/// The post-quantum twins' roots the fuzz seeds need (`corpus/pq-twins/roots.pem`, made by
/// certbench from this corpus: its PROVENANCE.md says how).
pub fn pq_twin_roots_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/pq-twins/roots.pem")
}

/// Verdicts recorded in the manifest for a chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expected {
    /// The manifest's own expectation (`"expected": "valid"`): a browser should accept it.
    pub valid: Option<bool>,
    /// OpenSSL 3.0.19 with `X509_STRICT` accepted the chain.
    pub openssl_strict: Option<bool>,
    /// OpenSSL 3.0.19 without `X509_STRICT` accepted the chain.
    pub openssl_default: Option<bool>,
    /// rustls-webpki 0.103 accepted the chain.
    pub rustls_webpki: Option<bool>,
    /// webpki 0.22 accepted the chain.
    pub webpki_legacy: Option<bool>,
}

/// One stored chain.
#[derive(Clone, Debug)]
pub struct CorpusChain {
    /// Folder name, e.g. `reddit.com__rustls-bench`.
    pub id: String,
    /// Host name the chain is for.
    pub host: String,
    /// Validation time, seconds since the Unix epoch.
    pub validation_time: u64,
    /// The chain as sent.
    pub chain: Chain,
    /// The chain's trust anchor(s) from `root.pem` (may be empty).
    pub roots: Vec<CertificateDer<'static>>,
    /// Key type per sent certificate, leaf first.
    pub key_types: Vec<String>,
    /// Verdicts recorded in the manifest.
    pub expected: Expected,
    /// The chain's root is (or was, at the validation time) publicly trusted, so a browser
    /// requires Certificate Transparency of it (Chrome: `is_issued_by_known_root`; Firefox:
    /// built-in roots); `false` for a private CA's root (the manifest's `public_root`).
    pub public_root: bool,
    /// The OCSP response the site stapled for the leaf, when the corpus has one
    /// (`stapled.ocsp` in the chain's folder: a real response, as its PROVENANCE says); the
    /// `verify` command offers it as a server would staple it.
    pub stapled_ocsp: Option<Vec<u8>>,
}

/// A chain that could not be loaded.
#[derive(Debug)]
pub struct LoadFailure {
    /// Folder name.
    pub id: String,
    /// Host name (from the manifest or the folder name).
    pub host: String,
    /// What went wrong, naming the file.
    pub error: Error,
}

/// A loaded corpus.
#[derive(Debug)]
pub struct Corpus {
    /// The corpus folder.
    pub dir: PathBuf,
    /// Chains that loaded.
    pub chains: Vec<CorpusChain>,
    /// Chains that did not.
    pub failures: Vec<LoadFailure>,
}

#[derive(Deserialize)]
struct Manifest {
    chains: Vec<ManifestChain>,
}

#[derive(Deserialize)]
struct ManifestChain {
    dir: String,
    host: String,
    validation_time_unix: u64,
    #[serde(default)]
    expected: Option<String>,
    openssl_x509_strict_ok: Option<bool>,
    #[serde(default)]
    openssl_default_ok: Option<bool>,
    #[serde(default)]
    observed_results: BTreeMap<String, Observed>,
    #[serde(default = "public")]
    public_root: bool,
}

fn public() -> bool {
    true
}

#[derive(Deserialize)]
struct Observed {
    result: String,
}

impl ManifestChain {
    fn expected(&self) -> Expected {
        let observed = |prefix: &str| {
            self.observed_results
                .iter()
                .find(|(k, _)| k.starts_with(prefix))
                .map(|(_, v)| v.result == "SUCCESS")
        };
        Expected {
            valid: self.expected.as_deref().map(|e| e == "valid"),
            openssl_strict: self.openssl_x509_strict_ok,
            openssl_default: self.openssl_default_ok,
            rustls_webpki: observed("rustls-webpki"),
            webpki_legacy: observed("webpki 0.22"),
        }
    }
}

impl Corpus {
    /// The bundled corpus.
    pub fn bundled() -> Result<Corpus, Error> {
        Corpus::load(&bundled_dir())
    }

    /// Loads the corpus in `dir`. Only an unreadable folder or manifest is an error; a bad
    /// chain becomes a [`LoadFailure`].
    pub fn load(dir: &Path) -> Result<Corpus, Error> {
        let manifest_path = dir.join("manifest.json");
        let entries: Vec<(String, String, u64, Expected, bool)> = if manifest_path.exists() {
            let text = std::fs::read_to_string(&manifest_path).map_err(|cause| Error::Io {
                path: manifest_path.clone(),
                cause,
            })?;
            let m: Manifest = serde_json::from_str(&text).map_err(|e| Error::Manifest {
                path: manifest_path.clone(),
                message: e.to_string(),
            })?;
            m.chains
                .into_iter()
                .map(|c| {
                    let e = c.expected();
                    (c.dir, c.host, c.validation_time_unix, e, c.public_root)
                })
                .collect()
        } else {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let read = std::fs::read_dir(dir).map_err(|cause| Error::Io {
                path: dir.to_owned(),
                cause,
            })?;
            let mut names: Vec<String> = read
                .filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
                .into_iter()
                .map(|name| {
                    let host = name.split("__").next().unwrap_or(&name).to_owned();
                    (name, host, now, Expected::default(), true)
                })
                .collect()
        };

        let mut chains = Vec::new();
        let mut failures = Vec::new();
        for (id, host, validation_time, expected, public_root) in entries {
            let chain_dir = dir.join(&id);
            match load_one(&chain_dir) {
                Ok((chain, roots)) => chains.push(CorpusChain {
                    key_types: chain.key_types(),
                    stapled_ocsp: std::fs::read(chain_dir.join("stapled.ocsp")).ok(),
                    id,
                    host,
                    validation_time,
                    chain,
                    roots,
                    expected,
                    public_root,
                }),
                Err(error) => failures.push(LoadFailure { id, host, error }),
            }
        }
        Ok(Corpus {
            dir: dir.to_owned(),
            chains,
            failures,
        })
    }

    /// Every chain's trust anchors, deduplicated, in corpus order.
    pub fn roots(&self) -> Vec<CertificateDer<'static>> {
        let mut out: Vec<CertificateDer<'static>> = Vec::new();
        for c in &self.chains {
            for r in &c.roots {
                if !out.iter().any(|have| have.as_ref() == r.as_ref()) {
                    out.push(r.clone());
                }
            }
        }
        out
    }
}

fn load_one(dir: &Path) -> Result<(Chain, Vec<CertificateDer<'static>>), Error> {
    if !dir.is_dir() {
        return Err(Error::Io {
            path: dir.to_owned(),
            cause: std::io::Error::new(std::io::ErrorKind::NotFound, "chain folder not found"),
        });
    }
    let chain = load_chain_dir(dir)?;
    let root_path = dir.join("root.pem");
    let roots = if root_path.exists() {
        read_pem_certs(&root_path)?
    } else {
        Vec::new()
    };
    Ok((chain, roots))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_corpus_loads_all_34_chains() {
        let c = Corpus::bundled().unwrap();
        assert!(c.failures.is_empty(), "{:?}", c.failures);
        assert_eq!(c.chains.len(), 34);
        let reddit = &c.chains[0];
        assert_eq!(reddit.id, "reddit.com__rustls-bench");
        assert_eq!(reddit.host, "reddit.com");
        assert_eq!(reddit.validation_time, 1_770_205_316);
        assert_eq!(reddit.roots.len(), 1);
        assert_eq!(reddit.expected.openssl_strict, Some(true));
        assert_eq!(reddit.expected.rustls_webpki, Some(true));
    }
}
