//! The loopback mirror's certificates: per host, a clone of the real chain (see [`clone`]),
//! generated once and cached on disk.
//!
//! Hosts served: every host of the corpus (its first chain in manifest order); `cnn.com`,
//! which has no corpus chain, with a synthetic typical shape (RSA-2048 leaf for `cnn.com` and
//! `*.cnn.com` ← RSA-2048 intermediate ← RSA-2048 root, 90-day leaf); and fault hosts with
//! certificates: `expired.mirror.test` (leaf expired ten days ago), `not-yet-valid.mirror.test`
//! (leaf valid from ten years on), `wrong-host.mirror.test` (leaf for `other-host.mirror.test`
//! only), `self-signed.mirror.test` (a self-signed leaf), `untrusted.mirror.test` (under a
//! root that is not in the mirror's trust bundle), `out-of-order.mirror.test` (two
//! intermediates sent root side first: valid, as path building does not depend on the order)
//! and `no-http.mirror.test` (valid; the server closes after the handshake). The faults that
//! happen on the connection itself are in [`faults`].
//!
//! Certificate Transparency: the clones' leaves carry SCTs from the mirror's own CT logs (see
//! [`ct`]), one per real log that signed an SCT of a corpus leaf, which a client of the mirror
//! trusts as it trusts the mirror's roots: their list is [`MirrorSet::ct_log_list`]. The
//! synthetic hosts' leaves carry no SCT.
//!
//! Cache: `DIR/index.json`, `DIR/roots.pem` (every root the mirror's clients must trust),
//! `DIR/ct-logs.json` (the CT logs its clients must trust, Chrome's log list v3 JSON),
//! `DIR/ct-log-keys.pem` (their private keys, in the order the index lists the logs) and
//! `DIR/<host>/{chain.pem,key.pem}`. A cache is reused when it was made from the same corpus
//! manifest and real CT log list by the same generator version for the same profile, every
//! leaf is still valid and its CT log list is less than [`CT_LOG_LIST_MAX_AGE_DAYS`] old;
//! otherwise it is made anew (RSA-4096 keys take seconds each).
//!
//! Revocation (`--revocation`): every leaf's issuing CA signs the OCSP response its server
//! staples and one CRL per CA (see [`revocation`]): `DIR/<host>/stapled.ocsp` and
//! `DIR/crls/<CA>.crl`; revoked.badssl.com's clone is revoked in both.
//!
//! With a post-quantum [`Profile`] (`--pq`), every chain is its twin instead (see
//! [`clone`]): the same hosts, names, extensions and validity, every key the profile's
//! ML-DSA key, the synthetic hosts' too; cached in `DIR/pq/<profile>/`.

pub mod faults;
pub mod local;
pub mod server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::certs::clone::{CloneError, Cloner};
use crate::certs::ct::{self, CachedLog, CtError, CtLogs};
use crate::certs::mirror_revocation as revocation;
use crate::corpus::Corpus;
use crate::pq::Profile;

/// Bumped whenever generation changes, so older caches are not reused.
const GENERATOR_VERSION: u32 = 8;

/// A cache whose CT log list is older than this is made anew: Chrome stops enforcing CT with
/// a log list more than ten weeks old.
pub const CT_LOG_LIST_MAX_AGE_DAYS: i64 = 60;

/// Host of the fault that serves an expired leaf.
pub const EXPIRED_HOST: &str = "expired.mirror.test";
/// Host of the fault that serves a leaf for another name.
pub const WRONG_HOST: &str = "wrong-host.mirror.test";
/// Host of the fault that serves a chain under an untrusted root.
pub const UNTRUSTED_HOST: &str = "untrusted.mirror.test";
/// Host of the fault that serves a leaf whose validity starts in ten years.
pub const NOT_YET_VALID_HOST: &str = "not-yet-valid.mirror.test";
/// Host of the fault that serves a self-signed leaf.
pub const SELF_SIGNED_HOST: &str = "self-signed.mirror.test";
/// Host that sends its two intermediates in the wrong order (still valid).
pub const OUT_OF_ORDER_HOST: &str = "out-of-order.mirror.test";
/// A wildcard host: every `<name>.load.mirror.test` is served (for load runs with many sites).
pub const LOAD_WILDCARD: &str = "*.load.mirror.test";

/// Errors making or loading the mirror's certificates.
#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    /// Cloning failed.
    #[error("cloning {host}: {source}")]
    Clone {
        /// The host being cloned.
        host: String,
        /// Why.
        #[source]
        source: CloneError,
    },
    /// rcgen failed on a synthetic chain.
    #[error("generating {host}: {source}")]
    Generate {
        /// The host.
        host: String,
        /// Why.
        #[source]
        source: rcgen::Error,
    },
    /// The mirror's CT logs could not be made.
    #[error("CT logs: {0}")]
    Ct(#[source] CtError),
    /// A staple or a CRL could not be signed.
    #[error("revocation data of {host}: {source}")]
    Revocation {
        /// The host (or CA) it was for.
        host: String,
        /// Why.
        #[source]
        source: revocation::RevocationGenError,
    },
    /// Cache I/O.
    #[error("mirror cache {path}: {message}")]
    Cache {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// What one host serves.
#[derive(Clone, Debug)]
pub struct HostCert {
    /// The chain to send, leaf first.
    pub chain: Vec<CertificateDer<'static>>,
    /// The leaf's private key (PKCS#8 DER).
    pub key: Vec<u8>,
    /// The corpus chain it clones, or `synthetic`.
    pub source: String,
    /// The OCSP response its server staples (DER), signed by the leaf's issuer; `None` for a
    /// post-quantum twin, a leaf without an issuing CA of the mirror's, or an expired one.
    pub ocsp: Option<Vec<u8>>,
}

/// Every host's certificates, and the roots a client of the mirror must trust.
#[derive(Clone, Debug)]
pub struct MirrorSet {
    /// Host → what it serves.
    pub hosts: BTreeMap<String, HostCert>,
    /// Roots to trust (the clones of the corpus roots and the synthetic root; never the
    /// untrusted fault's root).
    pub roots: Vec<CertificateDer<'static>>,
    /// Where the set is cached.
    pub dir: PathBuf,
    /// True when this set was read from the cache (no key was generated).
    pub from_cache: bool,
    /// The keys its chains have: today's, or a post-quantum profile's.
    pub profile: Profile,
    /// The CT logs whose SCTs the clones' leaves carry (with their private keys).
    pub ct_logs: CtLogs,
    /// Those logs as Chrome's log list v3 JSON (`DIR/ct-logs.json`): what a client of the
    /// mirror trusts beside [`Self::roots`]. Every log `usable`; the list's timestamp is when
    /// the set was made.
    pub ct_log_list: String,
    /// Each issuing CA's CRL (DER) by file name (`DIR/crls/<name>`); none for twins.
    pub crls: revocation::Crls,
}

#[derive(Serialize, Deserialize, PartialEq, Eq)]
struct Index {
    generator: u32,
    corpus_manifest_sha256: String,
    /// The profile's name; absent in caches of today's chains made before profiles.
    #[serde(default = "classical")]
    profile: String,
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

/// Where `profile`'s set is cached under the mirror's cache `dir`: `dir` itself for today's
/// chains, `dir/pq/<profile>` for twins.
pub fn profile_dir(dir: &Path, profile: Profile) -> PathBuf {
    match profile {
        Profile::Classical => dir.to_owned(),
        pq => dir.join("pq").join(pq.name()),
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
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

    /// The set of `profile` cached under the mirror's cache `dir` ([`profile_dir`]), or a new
    /// one made from `corpus` and cached there.
    pub fn load_or_generate_for(
        corpus: &Corpus,
        dir: &Path,
        profile: Profile,
    ) -> Result<MirrorSet, MirrorError> {
        let dir = &profile_dir(dir, profile);
        let hashes = Hashes {
            manifest: sha256_hex(&corpus.dir.join("manifest.json")),
            real_ct_log_list: sha256_hex(&ct::real_list_path(corpus)),
        };
        if let Some(set) = Self::load(dir, &hashes, profile)? {
            return Ok(set);
        }
        let set = Self::generate_for(corpus, dir, profile)?;
        set.save(&hashes)?;
        Ok(set)
    }

    /// The cached set, or `None` when there is none or it cannot be used (a damaged or stale
    /// cache is made anew rather than failing the run).
    fn load(
        dir: &Path,
        hashes: &Hashes,
        profile: Profile,
    ) -> Result<Option<MirrorSet>, MirrorError> {
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
            || index.profile != profile.name()
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
        let Ok(roots) = crate::chain::read_pem_certs(&dir.join("roots.pem")) else {
            return Ok(None);
        };
        let mut hosts = BTreeMap::new();
        for (host, source) in index.hosts {
            let d = host_dir(dir, &host);
            let chain = match crate::chain::read_pem_certs(&d.join("chain.pem")) {
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
                .and_then(|c| crate::der::validity(c))
                .is_some_and(|(not_before, not_after)| not_before <= now && now <= not_after);
            if !valid && host != EXPIRED_HOST && host != NOT_YET_VALID_HOST {
                return Ok(None);
            }
            let ocsp = std::fs::read(d.join("stapled.ocsp")).ok();
            hosts.insert(
                host,
                HostCert {
                    chain,
                    key,
                    source,
                    ocsp,
                },
            );
        }
        let crls = read_crls(&dir.join("crls"));
        Ok(Some(MirrorSet {
            hosts,
            roots,
            dir: dir.to_owned(),
            from_cache: true,
            profile,
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
            // PEM by hand of the crate: rcgen cannot read an ML-DSA PKCS#8 key back.
            let key = pem::Pem::new("PRIVATE KEY", hc.key.clone());
            write(d.join("key.pem"), pem::encode(&key))?;
            if let Some(ocsp) = &hc.ocsp {
                let p = d.join("stapled.ocsp");
                std::fs::write(&p, ocsp).map_err(|e| cache_err(&p, e))?;
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

    /// Makes every host's certificates (slow: fresh keys).
    pub fn generate(corpus: &Corpus, dir: &Path) -> Result<MirrorSet, MirrorError> {
        Self::generate_for(corpus, dir, Profile::Classical)
    }

    /// Makes every host's certificates with `profile`'s keys.
    pub fn generate_for(
        corpus: &Corpus,
        dir: &Path,
        profile: Profile,
    ) -> Result<MirrorSet, MirrorError> {
        let ct_logs = CtLogs::for_corpus(corpus).map_err(MirrorError::Ct)?;
        let mut cloner = Cloner::with_logs(profile, ct_logs);
        let mut hosts = BTreeMap::new();
        let mut roots: Vec<CertificateDer<'static>> = Vec::new();
        // Per issuing CA (its clone's DER): the chain it was met in, and what its CRL lists.
        let mut cas: BTreeMap<Vec<u8>, (usize, revocation::CaLeaves)> = BTreeMap::new();
        let now = now();
        for (i, c) in corpus.chains.iter().enumerate() {
            if hosts.contains_key(&c.host) || c.roots.is_empty() {
                continue;
            }
            let sent: Vec<CertificateDer<'static>> = c.chain.iter().cloned().collect();
            let shift = now - c.validation_time as i64;
            let cloned = cloner
                .clone_chain(&sent, &c.roots[0], shift)
                .map_err(|source| MirrorError::Clone {
                    host: c.host.clone(),
                    source,
                })?;
            if !roots.iter().any(|r| r.as_ref() == cloned.root.as_ref()) {
                roots.push(cloned.root.clone());
            }
            // The staple, while the issuer's key exists (classical chains only: see
            // [`revocation`]).
            let mut ocsp = None;
            if profile == Profile::Classical
                && let Some((issuer_der, issuer)) = cloner.leaf_issuer(&sent, &c.roots[0])
            {
                let leaf = cloned.sent[0].as_ref();
                ocsp = revocation::staple(&issuer_der, issuer.key(), leaf, &c.host, now as u64)
                    .map_err(|source| MirrorError::Revocation {
                        host: c.host.clone(),
                        source,
                    })?;
                let ca = cas
                    .entry(issuer_der.to_vec())
                    .or_insert((i, Default::default()));
                ca.1.add(leaf, &c.host);
            }
            hosts.insert(
                c.host.clone(),
                HostCert {
                    chain: cloned.sent,
                    key: cloned.leaf_key,
                    source: c.id.clone(),
                    ocsp,
                },
            );
        }
        let mut crls = revocation::Crls::new();
        for (issuer_der, (i, leaves)) in &cas {
            let c = &corpus.chains[*i];
            let sent: Vec<CertificateDer<'static>> = c.chain.iter().cloned().collect();
            let Some((_, issuer)) = cloner.leaf_issuer(&sent, &c.roots[0]) else {
                continue;
            };
            let (name, der) =
                revocation::ca_crl(issuer_der, &issuer, leaves, now as u64).map_err(|source| {
                    MirrorError::Revocation {
                        host: c.host.clone(),
                        source,
                    }
                })?;
            crls.insert(name, der);
        }
        let ct_logs = cloner.into_ct_logs();
        let synthetic = synthetic_hosts(now, profile, &ct_logs)?;
        roots.push(synthetic.root);
        hosts.extend(synthetic.hosts);
        crls.extend(synthetic.crls);
        Ok(MirrorSet {
            hosts,
            roots,
            dir: dir.to_owned(),
            from_cache: false,
            profile,
            ct_log_list: ct_logs.log_list_json(now),
            ct_logs,
            crls,
        })
    }
}

/// The CRLs in `dir` (`*.crl`), by file name; none when it cannot be read.
fn read_crls(dir: &Path) -> revocation::Crls {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return revocation::Crls::new();
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

struct Synthetic {
    root: CertificateDer<'static>,
    hosts: BTreeMap<String, HostCert>,
    crls: revocation::Crls,
}

/// A synthetic host's chain, and its intermediate's CRL (`None` for a twin).
type Signed = (HostCert, Option<(String, Vec<u8>)>);

fn gen_err(host: &str) -> impl Fn(rcgen::Error) -> MirrorError + '_ {
    move |source| MirrorError::Generate {
        host: host.to_owned(),
        source,
    }
}

/// A CA's parameters: `name`, CA with the usual key usages, valid ±10 years around now.
///
/// A twin's CA is named for its profile (`certbench mirror CA (mldsa44 twin)` for
/// `certbench mirror RSA CA`), so that no two profiles' CAs share a name.
fn ca_params(name: &str, now: time::OffsetDateTime, profile: Profile) -> CertificateParams {
    let name = match profile {
        Profile::Classical => name.to_owned(),
        pq => format!("{} ({pq} twin)", name.replace("RSA ", "")),
    };
    let mut p = CertificateParams::default();
    p.distinguished_name.push(DnType::CommonName, name);
    p.distinguished_name
        .push(DnType::OrganizationName, "certbench mirror");
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    p.not_before = now - time::Duration::days(3650);
    p.not_after = now + time::Duration::days(3650);
    p
}

/// A synthetic host's key: RSA-2048, or the profile's ML-DSA key for the role (`ca`).
fn synthetic_key(profile: Profile, ca: bool) -> Result<KeyPair, rcgen::Error> {
    match crate::certs::key::algorithm(profile, ca) {
        Some(alg) => KeyPair::generate_for(alg),
        None => KeyPair::generate_rsa_for(&rcgen::PKCS_RSA_SHA256, rcgen::RsaKeySize::_2048),
    }
}

/// A synthetic leaf's key usages: an RSA key's digitalSignature and keyEncipherment, an
/// ML-DSA key's digitalSignature alone (RFC 9881 §5).
fn leaf_key_usages(profile: Profile) -> Vec<KeyUsagePurpose> {
    match profile {
        Profile::Classical => vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ],
        _ => vec![KeyUsagePurpose::DigitalSignature],
    }
}

/// RSA-2048 leaf ← RSA-2048 intermediate under `root` (the profile's keys for a twin), for
/// `names`, valid from `from` for `days` days; with the intermediate's staple for the leaf
/// and its CRL ([`revocation`]; today's keys only).
fn leaf_chain(
    (root, profile): (&Issuer<'_, &KeyPair>, Profile),
    inter_name: &str,
    names: &[&str],
    from: time::OffsetDateTime,
    days: i64,
    host: &str,
    scts: &[ct::SctSpec<'_>],
) -> Result<Signed, MirrorError> {
    let err = gen_err(host);
    let inter_key = synthetic_key(profile, true).map_err(&err)?;
    let mut ip = ca_params(inter_name, from, profile);
    ip.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ip.use_authority_key_identifier_extension = true;
    let inter = ip.signed_by(&inter_key, root).map_err(&err)?;
    let inter_issuer = Issuer::new(ip, &inter_key);

    let leaf_key = synthetic_key(profile, false).map_err(&err)?;
    let mut lp = CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        .map_err(&err)?;
    lp.distinguished_name.push(DnType::CommonName, names[0]);
    lp.subject_alt_names = names
        .iter()
        .map(|n| SanType::DnsName((*n).try_into().expect("valid DNS name")))
        .collect();
    lp.is_ca = IsCa::ExplicitNoCa;
    lp.key_usages = leaf_key_usages(profile);
    lp.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    lp.use_authority_key_identifier_extension = true;
    lp.not_before = from;
    lp.not_after = from + time::Duration::days(days);
    let leaf = if scts.is_empty() {
        lp.signed_by(&leaf_key, &inter_issuer).map_err(&err)?
    } else {
        ct::issue_with_scts(&lp, &leaf_key, &inter_issuer, scts).map_err(MirrorError::Ct)?
    };
    let (mut ocsp, mut crl) = (None, None);
    if profile == Profile::Classical {
        let now = now() as u64;
        let revocation_err = |source| MirrorError::Revocation {
            host: host.to_owned(),
            source,
        };
        ocsp = revocation::staple(inter.der(), &inter_key, leaf.der(), host, now)
            .map_err(revocation_err)?;
        let mut leaves = revocation::CaLeaves::default();
        leaves.add(leaf.der(), host);
        crl = Some(
            revocation::ca_crl(inter.der(), &inter_issuer, &leaves, now).map_err(revocation_err)?,
        );
    }
    let host_cert = HostCert {
        chain: vec![leaf.der().clone(), inter.der().clone()],
        key: leaf_key.serialize_der(),
        source: "synthetic".to_owned(),
        ocsp,
    };
    Ok((host_cert, crl))
}

/// A self-signed RSA-2048 (or the profile's) leaf for [`SELF_SIGNED_HOST`] (not a CA), alone.
fn self_signed(now: time::OffsetDateTime, profile: Profile) -> Result<HostCert, MirrorError> {
    let err = gen_err(SELF_SIGNED_HOST);
    let key = synthetic_key(profile, false).map_err(&err)?;
    let mut p = CertificateParams::new(vec![SELF_SIGNED_HOST.to_owned()]).map_err(&err)?;
    p.distinguished_name
        .push(DnType::CommonName, SELF_SIGNED_HOST);
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    p.not_before = now - time::Duration::days(1);
    p.not_after = now + time::Duration::days(90);
    let cert = p.self_signed(&key).map_err(&err)?;
    Ok(HostCert {
        chain: vec![cert.der().clone()],
        key: key.serialize_der(),
        source: "synthetic".to_owned(),
        ocsp: None,
    })
}

/// Root → intermediate A → intermediate B → leaf for [`OUT_OF_ORDER_HOST`], sent as leaf, A,
/// B (B, the leaf's issuer, should come first).
fn out_of_order(
    (root, profile): (&Issuer<'_, &KeyPair>, Profile),
    now: time::OffsetDateTime,
) -> Result<HostCert, MirrorError> {
    let host = OUT_OF_ORDER_HOST;
    let err = gen_err(host);
    let a_key = synthetic_key(profile, true).map_err(&err)?;
    let mut ap = ca_params("certbench mirror RSA CA A (out of order)", now, profile);
    ap.is_ca = IsCa::Ca(BasicConstraints::Constrained(1));
    ap.use_authority_key_identifier_extension = true;
    let a = ap.signed_by(&a_key, root).map_err(&err)?;
    let a_issuer = Issuer::new(ap, &a_key);
    let b_key = synthetic_key(profile, true).map_err(&err)?;
    let mut bp = ca_params("certbench mirror RSA CA B (out of order)", now, profile);
    bp.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    bp.use_authority_key_identifier_extension = true;
    let b = bp.signed_by(&b_key, &a_issuer).map_err(&err)?;
    let b_issuer = Issuer::new(bp, &b_key);
    let leaf_key = synthetic_key(profile, false).map_err(&err)?;
    let mut lp = CertificateParams::new(vec![host.to_owned()]).map_err(&err)?;
    lp.distinguished_name.push(DnType::CommonName, host);
    lp.is_ca = IsCa::ExplicitNoCa;
    lp.key_usages = leaf_key_usages(profile);
    lp.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    lp.use_authority_key_identifier_extension = true;
    lp.not_before = now - time::Duration::days(1);
    lp.not_after = now + time::Duration::days(90);
    let leaf = lp.signed_by(&leaf_key, &b_issuer).map_err(&err)?;
    Ok(HostCert {
        chain: vec![leaf.der().clone(), a.der().clone(), b.der().clone()],
        key: leaf_key.serialize_der(),
        source: "synthetic".to_owned(),
        ocsp: None,
    })
}

/// SCTs for a synthetic site's leaf issued at `from`, as a real 90-day leaf has them: 2, from
/// the mirror's first two logs of distinct operators (none when the mirror has no two such
/// logs, or for a post-quantum twin: its SCTs are a later question).
fn synthetic_scts(logs: &CtLogs, profile: Profile, from: i64) -> Vec<ct::SctSpec<'_>> {
    let Some(first) = logs.logs().first() else {
        return Vec::new();
    };
    let Some(second) = logs.logs().iter().find(|l| l.operator != first.operator) else {
        return Vec::new();
    };
    if profile != Profile::Classical {
        return Vec::new();
    }
    let at = u64::try_from(from).unwrap_or(0) * 1000;
    [first, second]
        .into_iter()
        .map(|log| ct::SctSpec {
            log,
            timestamp_ms: at,
            extensions: Vec::new(),
            corrupt_signature: false,
        })
        .collect()
}

fn synthetic_hosts(
    now_secs: i64,
    profile: Profile,
    logs: &CtLogs,
) -> Result<Synthetic, MirrorError> {
    let now = time::OffsetDateTime::from_unix_timestamp(now_secs).expect("now is a valid time");
    let err = gen_err("synthetic root");
    let root_key = synthetic_key(profile, true).map_err(&err)?;
    let root_params = ca_params("certbench mirror synthetic root", now, profile);
    let root = root_params.self_signed(&root_key).map_err(&err)?;
    let root_issuer = Issuer::new(root_params, &root_key);
    let root_issuer = (&root_issuer, profile);

    let day = time::Duration::days(1);
    let mut hosts = BTreeMap::new();
    let mut crls = revocation::Crls::new();
    let mut put = |host: &str, (cert, crl): Signed| {
        hosts.insert(host.to_owned(), cert);
        crls.extend(crl);
    };
    put(
        "cnn.com",
        leaf_chain(
            root_issuer,
            "certbench mirror RSA CA",
            &["cnn.com", "*.cnn.com"],
            now - day * 30,
            90,
            "cnn.com",
            &synthetic_scts(logs, profile, now_secs - 30 * 86_400),
        )?,
    );
    put(
        EXPIRED_HOST,
        leaf_chain(
            root_issuer,
            "certbench mirror RSA CA (expired)",
            &[EXPIRED_HOST],
            now - day * 100,
            90,
            EXPIRED_HOST,
            &[],
        )?,
    );
    put(
        WRONG_HOST,
        leaf_chain(
            root_issuer,
            "certbench mirror RSA CA (wrong host)",
            &["other-host.mirror.test"],
            now - day,
            90,
            WRONG_HOST,
            &[],
        )?,
    );
    put(
        NOT_YET_VALID_HOST,
        leaf_chain(
            root_issuer,
            "certbench mirror RSA CA (not yet valid)",
            &[NOT_YET_VALID_HOST],
            now + day * 3650,
            90,
            NOT_YET_VALID_HOST,
            &[],
        )?,
    );
    put(
        faults::NO_HTTP_HOST,
        leaf_chain(
            root_issuer,
            "certbench mirror RSA CA (no HTTP)",
            &[faults::NO_HTTP_HOST],
            now - day,
            90,
            faults::NO_HTTP_HOST,
            &[],
        )?,
    );
    put(SELF_SIGNED_HOST, (self_signed(now, profile)?, None));
    put(
        LOAD_WILDCARD,
        leaf_chain(
            root_issuer,
            "certbench mirror RSA CA (load)",
            &[LOAD_WILDCARD],
            now - day,
            90,
            LOAD_WILDCARD,
            &[],
        )?,
    );
    put(OUT_OF_ORDER_HOST, (out_of_order(root_issuer, now)?, None));
    let err = gen_err(UNTRUSTED_HOST);
    let untrusted_key = synthetic_key(profile, true).map_err(&err)?;
    let untrusted_params = ca_params("certbench mirror untrusted root", now, profile);
    let untrusted_issuer = Issuer::new(untrusted_params, &untrusted_key);
    put(
        UNTRUSTED_HOST,
        leaf_chain(
            (&untrusted_issuer, profile),
            "certbench mirror RSA CA (untrusted)",
            &[UNTRUSTED_HOST],
            now - day,
            90,
            UNTRUSTED_HOST,
            &[],
        )?,
    );
    Ok(Synthetic {
        root: root.der().clone(),
        hosts,
        crls,
    })
}
