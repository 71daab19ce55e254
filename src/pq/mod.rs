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

use certbench_core::der::MlDsa;
use certbench_core::verifier::{Algorithm, Capabilities, Unsupported};

pub use certbench_schema::Profile;

/// The ML-DSA parameter sets of `profile`'s chains, lowest first (none for today's).
pub fn ml_dsa(profile: Profile) -> Vec<MlDsa> {
    match profile {
        Profile::Classical => vec![],
        Profile::MlDsa44 => vec![MlDsa::P44],
        Profile::MlDsa65 => vec![MlDsa::P65],
        Profile::MlDsa87 => vec![MlDsa::P87],
        Profile::Mixed => vec![MlDsa::P44, MlDsa::P65],
        // The leaf's key (its CertificateVerify); the certificate has no signature.
        Profile::Mtc => vec![MlDsa::P44],
    }
}

/// Why a method with `capabilities` cannot verify `profile`'s chains, if it cannot: what
/// [`Capabilities::unsupported`] says of any of its twins, known before connecting. A method
/// verifies Merkle Tree Certificates ([`Capabilities::mtc`]) or X.509 chains, never both:
/// `mtc` is unsupported by every other method, and the chains of every other profile by the
/// `mtc` method.
pub fn unsupported_by(profile: Profile, capabilities: &Capabilities) -> Option<Unsupported> {
    match (profile == Profile::Mtc, capabilities.mtc) {
        (true, false) => return Some(Unsupported::from(Algorithm::MtcProof)),
        (false, true) => return Some(Unsupported::from(Algorithm::SignedX509)),
        _ => {}
    }
    let first = *ml_dsa(profile).first()?;
    (!capabilities.ml_dsa).then_some(Unsupported::from(Algorithm::MlDsa(first)))
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
    fn a_pq_run_measures_today_s_chains_then_each_profile_once() {
        assert_eq!(
            with_classical(&[Profile::Mixed, Profile::MlDsa44, Profile::Mixed]),
            [Profile::Classical, Profile::Mixed, Profile::MlDsa44]
        );
    }
}
