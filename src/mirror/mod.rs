//! The loopback mirror: per host, a clone of the real chain, generated once and cached on
//! disk ([`cache`]), served by an SNI-routing server ([`server`]) with its misbehaving hosts
//! ([`faults`]); [`local`] serves a run's sites from it. The certificates are made in
//! [`crate::certs`] (the mirror calls [`crate::certs::mirror_set::make`]); this module keeps
//! what is served and cached.
//!
//! Hosts served: every host of the corpus (its first chain in manifest order, cloned:
//! [`crate::certs::clone`]); `cnn.com`, which has no corpus chain, with a synthetic typical
//! shape; and fault hosts with certificates ([`EXPIRED_HOST`], [`NOT_YET_VALID_HOST`],
//! [`WRONG_HOST`], [`SELF_SIGNED_HOST`], [`UNTRUSTED_HOST`], [`OUT_OF_ORDER_HOST`],
//! [`faults::NO_HTTP_HOST`]: [`crate::certs::synthetic`] says what each is). The faults that
//! happen on the connection itself are in [`faults`].
//!
//! Certificate Transparency: the clones' leaves carry SCTs from the mirror's own CT logs (see
//! [`crate::certs::ct`]), one per real log that signed an SCT of a corpus leaf, which a client
//! of the mirror trusts as it trusts the mirror's roots: their list is
//! [`MirrorSet::ct_log_list`]. The synthetic sites' leaves carry SCTs too, the fault hosts'
//! none.
//!
//! Revocation (`--revocation`): every leaf's issuing CA signs the OCSP response its server
//! staples and one CRL per CA (see [`crate::certs::mirror_revocation`]):
//! `DIR/<host>/stapled.ocsp` and `DIR/crls/<CA>.crl`; revoked.badssl.com's clone is revoked
//! in both.
//!
//! With a post-quantum [`Profile`] (`--pq`), every chain is its twin instead: the same hosts,
//! names, extensions and validity, every key the profile's ML-DSA key, the synthetic hosts'
//! too; cached in `DIR/pq/<profile>/` ([`profile_dir`]). Each profile's twins are made under
//! each scenario (`crate::pq::scenario`: ML-DSA SCTs, trimmed chains), one set per
//! ([`MirrorSet::twin_set`]), cached in `DIR/pq/<profile>-<scts>-<chain>/` ([`set_dir`]; the
//! twins as served with classical SCTs stay in `DIR/pq/<profile>/`).

pub mod cache;
pub mod faults;
pub mod local;
pub mod mtc_choice;
pub mod quic;
pub mod server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rustls_pki_types::CertificateDer;

use crate::certs::ct::CtLogs;
use crate::certs::host::MakeError;
use crate::certs::mirror_revocation::Crls;
use crate::certs::mirror_set;
use crate::pq::Profile;
use crate::pq::scenario::{Scenario, TwinSet};
use certbench_core::corpus::Corpus;

pub use crate::certs::host::HostCert;
pub use crate::certs::synthetic::{
    EXPIRED_HOST, LOAD_WILDCARD, NOT_YET_VALID_HOST, OUT_OF_ORDER_HOST, SELF_SIGNED_HOST,
    UNTRUSTED_HOST, WRONG_HOST,
};

/// A cache whose CT log list is older than this is made anew: Chrome stops enforcing CT with
/// a log list more than ten weeks old.
pub const CT_LOG_LIST_MAX_AGE_DAYS: i64 = 60;

/// Errors making or loading the mirror's certificates.
#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    /// The certificates could not be made.
    #[error(transparent)]
    Make(#[from] MakeError),
    /// Cache I/O.
    #[error("mirror cache {path}: {message}")]
    Cache {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
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
    /// The scenario its twins were made under (`None` for today's chains).
    pub scenario: Option<Scenario>,
    /// The CT logs whose SCTs the clones' leaves carry (with their private keys).
    pub ct_logs: CtLogs,
    /// Those logs as Chrome's log list v3 JSON (`DIR/ct-logs.json`): what a client of the
    /// mirror trusts beside [`Self::roots`]. Every log `usable`; the list's timestamp is when
    /// the set was made.
    pub ct_log_list: String,
    /// Each issuing CA's CRL (DER) by file name (`DIR/crls/<name>`); none for twins.
    pub crls: Crls,
}

/// Where `profile`'s set is cached under the mirror's cache `dir`: `dir` itself for today's
/// chains, `dir/pq/<profile>` for twins.
pub fn profile_dir(dir: &Path, profile: Profile) -> PathBuf {
    set_dir(dir, TwinSet::new(profile, Scenario::AS_SERVED))
}

/// Where `set` is cached under the mirror's cache `dir`: `dir` itself for today's chains,
/// `dir/pq/<`[`TwinSet::dir_name`]`>` for twins.
pub fn set_dir(dir: &Path, set: TwinSet) -> PathBuf {
    match set.profile {
        Profile::Classical => dir.to_owned(),
        _ => dir.join("pq").join(set.dir_name()),
    }
}

/// Now, in Unix seconds.
fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl MirrorSet {
    /// Makes every host's certificates (slow: fresh keys).
    pub fn generate(corpus: &Corpus, dir: &Path) -> Result<MirrorSet, MirrorError> {
        Self::generate_for(corpus, dir, Profile::Classical)
    }

    /// Makes every host's certificates with `profile`'s keys (as served, classical SCTs).
    pub fn generate_for(
        corpus: &Corpus,
        dir: &Path,
        profile: Profile,
    ) -> Result<MirrorSet, MirrorError> {
        Self::generate_set(corpus, dir, TwinSet::new(profile, Scenario::AS_SERVED))
    }

    /// Makes every host's certificates in `set`.
    pub fn generate_set(
        corpus: &Corpus,
        dir: &Path,
        set: TwinSet,
    ) -> Result<MirrorSet, MirrorError> {
        let now = now();
        let made = mirror_set::make(corpus, set, now)?;
        Ok(MirrorSet {
            hosts: made.hosts,
            roots: made.roots,
            dir: dir.to_owned(),
            from_cache: false,
            profile: set.profile,
            scenario: set.scenario,
            ct_log_list: made.ct_logs.log_list_json(now),
            ct_logs: made.ct_logs,
            crls: made.crls,
        })
    }

    /// The set of chains it is.
    pub fn twin_set(&self) -> TwinSet {
        TwinSet {
            profile: self.profile,
            scenario: self.scenario,
        }
    }
}
