//! Post-quantum twins: a chain re-issued with the same names, extensions, validity and depth,
//! its keys replaced by a profile's ML-DSA keys (FIPS 204; RFC 9881 for X.509), so that what
//! ML-DSA certificates would cost a browser is measured on the very chains it meets today.
//!
//! The re-issuing itself is the mirror's cloning ([`crate::certs::clone`]) with a
//! [`Profile`] (its keys: [`crate::certs::key`]): `--pq` for the mirror (`mirror/`), the
//! driver and `verify` ([`crate::certs::twin`]). What
//! such a chain costs on the wire is counted by the transport ([`crate::transport::flight`]).
//!
//! Profiles (docs/pq.md gives their sources): `mldsa44`, `mldsa65`, `mldsa87` (every key of
//! the chain at that level), and `mixed` (an ML-DSA-44 leaf under ML-DSA-65 CAs: a short-lived
//! leaf key, whose signature every handshake carries, at the lowest level; the CAs' long-lived
//! keys one level up), and `mtc`: Merkle Tree Certificates (draft-ietf-plants-merkle-tree-
//! certs-07; [`crate::certs::mtc`]): a landmark-relative, signatureless ML-DSA-44 leaf from
//! certbench's MTC CA, served alone, verified by the `mtc` method only.
//!
//! Each profile's twins are made under scenarios ([`scenario`]: who signs the SCTs, which
//! certificates are sent); a [`scenario::TwinSet`] names one set of chains a run measures.

pub mod scenario;

use std::fmt;
use std::str::FromStr;

use certbench_core::der::MlDsa;
use certbench_core::verifier::{Algorithm, Capabilities, Unsupported};

/// The keys a chain's certificates get.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Profile {
    /// Each certificate keeps its key type (RSA, ECDSA): today's chains, the baseline every
    /// `--pq` run measures beside its profiles.
    Classical,
    /// ML-DSA-44 keys throughout (NIST security category 2).
    MlDsa44,
    /// ML-DSA-65 keys throughout (category 3).
    MlDsa65,
    /// ML-DSA-87 keys throughout (category 5).
    MlDsa87,
    /// An ML-DSA-44 leaf under ML-DSA-65 intermediates and root.
    Mixed,
    /// A Merkle Tree Certificate (landmark-relative, signatureless) with an ML-DSA-44 key,
    /// alone: no intermediate, no signature.
    Mtc,
}

impl Profile {
    /// The ML-DSA X.509 profiles (twins of the chains), in the order runs and tables list
    /// them.
    pub const PQ: &'static [Profile] = &[
        Profile::MlDsa44,
        Profile::MlDsa65,
        Profile::MlDsa87,
        Profile::Mixed,
    ];

    /// Every post-quantum profile `--pq` takes: the ML-DSA X.509 ones, then `mtc`.
    pub const ALL_PQ: &'static [Profile] = &[
        Profile::MlDsa44,
        Profile::MlDsa65,
        Profile::MlDsa87,
        Profile::Mixed,
        Profile::Mtc,
    ];

    /// The profile's name on the command line, in samples (`config.profile`) and tables.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Classical => "classical",
            Profile::MlDsa44 => "mldsa44",
            Profile::MlDsa65 => "mldsa65",
            Profile::MlDsa87 => "mldsa87",
            Profile::Mixed => "mixed",
            Profile::Mtc => "mtc",
        }
    }

    /// True for the post-quantum profiles.
    pub fn is_pq(self) -> bool {
        self != Profile::Classical
    }

    /// The ML-DSA parameter sets of the profile's chains, lowest first (none for today's).
    pub fn ml_dsa(self) -> Vec<MlDsa> {
        match self {
            Profile::Classical => vec![],
            Profile::MlDsa44 => vec![MlDsa::P44],
            Profile::MlDsa65 => vec![MlDsa::P65],
            Profile::MlDsa87 => vec![MlDsa::P87],
            Profile::Mixed => vec![MlDsa::P44, MlDsa::P65],
            // The leaf's key (its CertificateVerify); the certificate has no signature.
            Profile::Mtc => vec![MlDsa::P44],
        }
    }

    /// Why a method with `capabilities` cannot verify this profile's chains, if it cannot:
    /// what [`Capabilities::unsupported`] says of any of its twins, known before connecting.
    /// A method verifies Merkle Tree Certificates ([`Capabilities::mtc`]) or X.509 chains,
    /// never both: `mtc` is unsupported by every other method, and the chains of every other
    /// profile by the `mtc` method.
    pub fn unsupported_by(self, capabilities: &Capabilities) -> Option<Unsupported> {
        match (self == Profile::Mtc, capabilities.mtc) {
            (true, false) => return Some(Unsupported::from(Algorithm::MtcProof)),
            (false, true) => return Some(Unsupported::from(Algorithm::SignedX509)),
            _ => {}
        }
        let first = *self.ml_dsa().first()?;
        (!capabilities.ml_dsa).then_some(Unsupported::from(Algorithm::MlDsa(first)))
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The profile as a sample's configuration names it (`config.profile`).
impl From<Profile> for certbench_schema::Profile {
    fn from(profile: Profile) -> certbench_schema::Profile {
        match profile {
            Profile::Classical => certbench_schema::Profile::Classical,
            Profile::MlDsa44 => certbench_schema::Profile::MlDsa44,
            Profile::MlDsa65 => certbench_schema::Profile::MlDsa65,
            Profile::MlDsa87 => certbench_schema::Profile::MlDsa87,
            Profile::Mixed => certbench_schema::Profile::Mixed,
            Profile::Mtc => certbench_schema::Profile::Mtc,
        }
    }
}

/// A `--pq` value that names no post-quantum profile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown post-quantum profile `{0}` (expected mldsa44, mldsa65, mldsa87, mixed or mtc)")]
pub struct UnknownProfile(pub String);

impl FromStr for Profile {
    type Err = UnknownProfile;
    /// A post-quantum profile by name (`classical` is not one: every `--pq` run measures it).
    fn from_str(s: &str) -> Result<Profile, UnknownProfile> {
        Profile::ALL_PQ
            .iter()
            .copied()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownProfile(s.to_owned()))
    }
}

/// What a `--pq` run measures: today's chains, then each profile asked for, once each.
pub fn with_classical(profiles: &[Profile]) -> Vec<Profile> {
    let mut all = vec![Profile::Classical];
    for &p in profiles {
        if !all.contains(&p) {
            all.push(p);
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_parse_by_name_and_classical_is_not_one() {
        for &p in Profile::ALL_PQ {
            assert_eq!(p.name().parse::<Profile>(), Ok(p));
            assert!(p.is_pq());
        }
        assert!("classical".parse::<Profile>().is_err());
        assert!(
            "mldsa"
                .parse::<Profile>()
                .unwrap_err()
                .to_string()
                .contains("mldsa44"),
            "the error names the profiles"
        );
        assert_eq!(
            with_classical(&[Profile::Mixed, Profile::MlDsa44, Profile::Mixed]),
            [Profile::Classical, Profile::Mixed, Profile::MlDsa44]
        );
    }
}
