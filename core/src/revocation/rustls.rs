//! What `--revocation` adds to the rustls methods (`rustlsserial`, `rustlsparallel`, `webpki`,
//! `platform`): the mechanism the run names (`--revocation`, resolved into the method's
//! [`crate::checks::Checks`]), checked over the
//! method's path found by names ([`PathParts::by_names`]) after the path verified, as a rustls
//! user (Servo) would add it:
//! - `crl`: rustls-webpki's CRL steps for every certificate of the path ([`super::crl`]);
//! - `crlite`: a clubcard filter in memory through `clubcard-crlite` ([`super::crlite`]);
//! - `upki`: the rustls project's `upki`, which reads its files per check;
//! - `ocsp`: the response the server stapled, verified with `x509-ocsp` and rustls' provider
//!   ([`super::ocsp`]).
//!
//! Finding the path by names is not timed (webpki has the path in hand); the check is.

use rustls_pki_types::TrustAnchor;

use super::data::{Loaded, no_data};
use super::path::PathParts;
use super::types::{Mechanism, RevocationError};
use crate::chain::Chain;
use crate::ct::check::Algorithms;
use crate::stages::Recorder;
use crate::verifier::{Rejection, Target};

/// The `revocation` stage of a rustls method: nothing without `target.revocation`; otherwise
/// the target's mechanism over `chain`'s path to `anchors`.
pub fn rustls_stage(
    algs: Algorithms,
    chain: &Chain,
    anchors: &[TrustAnchor<'_>],
    target: &Target<'_>,
    rec: &mut Recorder,
) -> Result<(), Rejection> {
    let Some((mechanism, data)) = target.revocation else {
        return Ok(());
    };
    let parts = PathParts::by_names(chain, anchors).map_err(|e| Rejection::new(e.to_string()))?;
    let path = parts.view();
    let now = target.time_or_now();
    let stapled = target.stapled_ocsp;
    let staple = stapled.filter(|_| mechanism == Mechanism::Ocsp);
    let checked = data.run(mechanism, staple, rec, |loaded| match (mechanism, loaded) {
        (Mechanism::Ocsp, _) => super::ocsp::check_stapled(stapled, &path, algs, now),
        (_, None) => no_data(),
        (Mechanism::Crl, Some(Loaded::Crls(crls))) => crls.check_path(&path, algs, now),
        (Mechanism::Crlite, Some(Loaded::Crlite(filter))) => filter.check_rustls(&path),
        (Mechanism::Upki, Some(Loaded::Upki(store))) => store.check(&path),
        (other, Some(_)) => Err(RevocationError::Invalid {
            mechanism: other,
            detail: "not a mechanism of the rustls methods (crl, crlite, upki, ocsp)".into(),
        }),
    });
    Ok(checked?)
}
