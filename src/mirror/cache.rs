//! The mirror's disk cache: a [`MirrorSet`] written once, read back by later runs.
//!
//! Layout: `DIR/index.json`, `DIR/roots.pem` (every root the mirror's clients must trust),
//! `DIR/ct-logs.json` (the CT logs its clients must trust, Chrome's log list v3 JSON),
//! `DIR/ct-log-keys.pem` (their private keys, in the order the index lists the logs),
//! `DIR/<host>/{chain.pem,key.pem}` (and `stapled.ocsp`) and `DIR/crls/<CA>.crl`. A cache is
//! reused when it was made from the same corpus manifest and real CT log list by the same
//! generator version ([`GENERATOR_VERSION`]) for the same profile, every leaf is still valid
//! and its CT log list is less than [`CT_LOG_LIST_MAX_AGE_DAYS`] old; otherwise it is made
//! anew (RSA-4096 keys take seconds each). A damaged or stale cache is made anew rather than
//! failing the run; the index is written last, so a cache cut short is never reused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{
    CT_LOG_LIST_MAX_AGE_DAYS, EXPIRED_HOST, HostCert, MirrorError, MirrorSet, NOT_YET_VALID_HOST,
    now, set_dir,
};
use crate::certs::ct::{self, CachedLog, CtLogs};
use crate::certs::mirror_revocation::Crls;
use crate::pq::Profile;
use crate::pq::scenario::{Scenario, TwinSet};
use certbench_core::corpus::Corpus;

/// Bumped whenever generation changes (anything [`crate::certs::mirror_set::make`] makes), so
/// older caches are not reused.
pub const GENERATOR_VERSION: u32 = 10;

#[derive(Serialize, Deserialize, PartialEq, Eq)]
struct Index {
    generator: u32,
    corpus_manifest_sha256: String,
    /// The profile's name; absent in caches of today's chains made before profiles.
    #[serde(default = "classical")]
    profile: String,
    /// The twins' scenario; absent for today's chains and in caches made before scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scenario: Option<Scenario>,
    hosts: BTreeMap<String, String>,
    /// SHA-256 of the real CT log list the mirror's logs are named after ("" without one).
    #[serde(default)]
    real_ct_log_list_sha256: String,
    /// The mirror's CT logs, in the order of their keys in `ct-log-keys.pem`.
    #[serde(default)]
    ct_logs: Vec<CachedLog>,
}

fn classical() -> String {
    Profile::Classical.name().to_owned()
}

fn cache_err(path: &Path, e: impl std::fmt::Display) -> MirrorError {
    MirrorError::Cache {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// A host name as a folder name.
fn host_dir(dir: &Path, host: &str) -> PathBuf {
    dir.join(host.replace(['/', '\\', ':'], "_"))
}

impl MirrorSet {
    /// The set of today's chains cached in `dir`, or a new one made from `corpus` and cached
    /// there.
    pub fn load_or_generate(corpus: &Corpus, dir: &Path) -> Result<MirrorSet, MirrorError> {
        Self::load_or_generate_for(corpus, dir, Profile::Classical)
    }

    /// The set of `profile` (as served, classical SCTs) cached under the mirror's cache `dir`,
    /// or a new one made from `corpus` and cached there.
    pub fn load_or_generate_for(
        corpus: &Corpus,
        dir: &Path,
        profile: Profile,
    ) -> Result<MirrorSet, MirrorError> {
        Self::load_or_generate_set(corpus, dir, TwinSet::new(profile, Scenario::AS_SERVED))
    }

    /// The set `set` cached under the mirror's cache `dir` ([`set_dir`]), or a new one made
    /// from `corpus` and cached there.
    pub fn load_or_generate_set(
        corpus: &Corpus,
        dir: &Path,
        set: TwinSet,
    ) -> Result<MirrorSet, MirrorError> {
        let dir = &set_dir(dir, set);
        let hashes = Hashes {
            manifest: sha256_hex(&corpus.dir.join("manifest.json")),
            real_ct_log_list: sha256_hex(&ct::real_list_path(corpus)),
        };
        if let Some(loaded) = Self::load(dir, &hashes, set)? {
            return Ok(loaded);
        }
        let made = Self::generate_set(corpus, dir, set)?;
        made.save(&hashes)?;
        Ok(made)
    }

    /// The cached set, or `None` when there is none or it cannot be used (a damaged or stale
    /// cache is made anew rather than failing the run).
    fn load(dir: &Path, hashes: &Hashes, set: TwinSet) -> Result<Option<MirrorSet>, MirrorError> {
        let index_path = dir.join("index.json");
        let Ok(text) = std::fs::read_to_string(&index_path) else {
            return Ok(None);
        };
        let Ok(index) = serde_json::from_str::<Index>(&text) else {
            return Ok(None);
        };
        if index.generator != GENERATOR_VERSION
            || index.corpus_manifest_sha256 != hashes.manifest
            || index.real_ct_log_list_sha256 != hashes.real_ct_log_list
            || index.profile != set.profile.name()
            || index.scenario.unwrap_or(Scenario::AS_SERVED) != set.scenario_or_today()
        {
            return Ok(None);
        }
        // The CT logs: their keys load, and ct-logs.json is their list, fresh enough.
        let (Ok(keys), Ok(ct_log_list)) = (
            std::fs::read_to_string(dir.join("ct-log-keys.pem")),
            std::fs::read_to_string(dir.join("ct-logs.json")),
        ) else {
            return Ok(None);
        };
        let Some(ct_logs) = CtLogs::from_cache(&index.ct_logs, &keys) else {
            return Ok(None);
        };
        match ct_logs.list_made(&ct_log_list) {
            Some(made) if now() - made < CT_LOG_LIST_MAX_AGE_DAYS * 86400 => {}
            _ => return Ok(None),
        }
        let Ok(roots) = certbench_core::chain::read_pem_certs(&dir.join("roots.pem")) else {
            return Ok(None);
        };
        let mut hosts = BTreeMap::new();
        for (host, source) in index.hosts {
            let d = host_dir(dir, &host);
            let chain = match certbench_core::chain::read_pem_certs(&d.join("chain.pem")) {
                Ok(c) if !c.is_empty() => c,
                _ => return Ok(None),
            };
            let key = match PrivateKeyDer::from_pem_file(d.join("key.pem")) {
                Ok(k) => k.secret_der().to_vec(),
                Err(_) => return Ok(None),
            };
            // A leaf no longer valid now: make the set anew. (Read without a crypto library:
            // the system's OpenSSL does not parse an ML-DSA twin.)
            let now = now() as u64;
            let valid = chain
                .first()
                .and_then(|c| certbench_core::der::validity(c))
                .is_some_and(|(not_before, not_after)| not_before <= now && now <= not_after);
            if !valid && host != EXPIRED_HOST && host != NOT_YET_VALID_HOST {
                return Ok(None);
            }
            let ocsp = std::fs::read(d.join("stapled.ocsp")).ok();
            let standalone = certbench_core::chain::read_pem_certs(&d.join("standalone.pem")).ok();
            hosts.insert(
                host,
                HostCert {
                    chain,
                    key,
                    source,
                    ocsp,
                    standalone,
                },
            );
        }
        let crls = read_crls(&dir.join("crls"));
        Ok(Some(MirrorSet {
            hosts,
            roots,
            dir: dir.to_owned(),
            from_cache: true,
            profile: set.profile,
            scenario: set.scenario,
            ct_logs,
            ct_log_list,
            crls,
        }))
    }

    fn save(&self, hashes: &Hashes) -> Result<(), MirrorError> {
        let dir = &self.dir;
        std::fs::create_dir_all(dir).map_err(|e| cache_err(dir, e))?;
        let pem = |certs: &[CertificateDer<'static>]| -> String {
            let blocks: Vec<pem::Pem> = (certs.iter())
                .map(|c| pem::Pem::new("CERTIFICATE", c.to_vec()))
                .collect();
            pem::encode_many(&blocks)
        };
        let write = |p: PathBuf, s: String| std::fs::write(&p, s).map_err(|e| cache_err(&p, e));
        write(dir.join("roots.pem"), pem(&self.roots))?;
        let (ct_logs, ct_keys) = self.ct_logs.to_cache();
        write(dir.join("ct-log-keys.pem"), ct_keys)?;
        write(dir.join("ct-logs.json"), self.ct_log_list.clone())?;
        let mut hosts = BTreeMap::new();
        for (host, hc) in &self.hosts {
            let d = host_dir(dir, host);
            std::fs::create_dir_all(&d).map_err(|e| cache_err(&d, e))?;
            write(d.join("chain.pem"), pem(&hc.chain))?;
            // PEM by hand (the `pem` crate): the certificate maker cannot read an ML-DSA PKCS#8
            // key back.
            let key = pem::Pem::new("PRIVATE KEY", hc.key.clone());
            write(d.join("key.pem"), pem::encode(&key))?;
            if let Some(ocsp) = &hc.ocsp {
                let p = d.join("stapled.ocsp");
                std::fs::write(&p, ocsp).map_err(|e| cache_err(&p, e))?;
            }
            if let Some(standalone) = &hc.standalone {
                write(d.join("standalone.pem"), pem(standalone))?;
            }
            hosts.insert(host.clone(), hc.source.clone());
        }
        let crl_dir = dir.join("crls");
        std::fs::create_dir_all(&crl_dir).map_err(|e| cache_err(&crl_dir, e))?;
        for (name, der) in &self.crls {
            let p = crl_dir.join(name);
            std::fs::write(&p, der).map_err(|e| cache_err(&p, e))?;
        }
        let index = Index {
            generator: GENERATOR_VERSION,
            corpus_manifest_sha256: hashes.manifest.clone(),
            profile: self.profile.name().to_owned(),
            scenario: self.scenario.filter(|s| *s != Scenario::AS_SERVED),
            hosts,
            real_ct_log_list_sha256: hashes.real_ct_log_list.clone(),
            ct_logs,
        };
        // The index goes last: a cache cut short is not an index that points at nothing.
        write(
            dir.join("index.json"),
            serde_json::to_string_pretty(&index).expect("index serializes"),
        )
    }
}

/// The CRLs in `dir` (`*.crl`), by file name; none when it cannot be read.
fn read_crls(dir: &Path) -> Crls {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Crls::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "crl"))
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            Some((name, std::fs::read(e.path()).ok()?))
        })
        .collect()
}

/// What a cache must have been made from.
struct Hashes {
    /// The corpus manifest's SHA-256.
    manifest: String,
    /// The real CT log list's SHA-256, "" when there is none.
    real_ct_log_list: String,
}

/// The file's SHA-256 in hex, "" when it cannot be read.
fn sha256_hex(path: &Path) -> String {
    match std::fs::read(path) {
        Ok(bytes) => Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        Err(_) => String::new(),
    }
}
