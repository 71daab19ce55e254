//! The trust set of the verifier Servo chose, and the roots a certbench method is given to
//! have the same one.
//!
//! Servo's `CertificateVerificationOverrideVerifier::new` (servo-net 0.7.0) chooses:
//! - no `--certificate-path`, platform verifier: `RUSTLS_PLATFORM_VERIFIER_CACHE`, the
//!   platform verifier built once per process over the system store;
//! - `--certificate-path`: `Verifier::new_with_extra_roots(overrides)`, the system store plus
//!   the override certificates, built at every call;
//! - Android or the pref `network_use_webpki_roots`: `WebPkiServerVerifier` over
//!   `webpki_roots` (the Mozilla roots) plus the overrides, built at every call.
//!
//! Invariant: a sample's `config.roots` is the [`RootSet::trust_store`] of the roots its
//! verifier trusts; where a method cannot have exactly Servo's set (the `platform` method
//! always adds the system store) the description says what it has instead.

use std::sync::OnceLock;

use certbench_schema::TrustStore;
use certbench_schema::servo::ServoChoice;
use rustls_pki_types::CertificateDer;

use super::settings::Trust;
use crate::error::Error;
use crate::methods::Method;
use crate::roots::{RootSet, RootsSpec};

/// Servo's choice, from what `connector.rs` knows at that point.
pub fn choice(
    use_webpki_roots: bool,
    overrides: Option<&[CertificateDer<'static>]>,
) -> ServoChoice {
    match (use_webpki_roots, overrides) {
        (true, _) => ServoChoice::WebpkiRoots,
        (false, None) => ServoChoice::PlatformCached,
        (false, Some(_)) => ServoChoice::PlatformExtraRoots,
    }
}

/// The system store as the platform verifier reads it (`rustls-native-certs`), loaded once
/// per process for describing and building trust sets (never inside a timed stage).
fn system() -> Result<RootSet, Error> {
    static SYSTEM: OnceLock<Result<RootSet, String>> = OnceLock::new();
    SYSTEM
        .get_or_init(|| RootSet::load(&RootsSpec::System).map_err(|e| e.to_string()))
        .clone()
        .map_err(|message| Error::Roots {
            origin: "system".into(),
            message,
        })
}

fn mozilla() -> RootSet {
    RootSet::from_certs("mozilla", webpki_root_certs::TLS_SERVER_ROOT_CERTS.to_vec())
}

/// The roots Servo's chosen verifier trusts.
pub fn servo_roots(
    choice: ServoChoice,
    overrides: &[CertificateDer<'static>],
) -> Result<RootSet, Error> {
    let mut set = match choice {
        ServoChoice::PlatformCached | ServoChoice::PlatformExtraRoots => system()?,
        ServoChoice::WebpkiRoots => mozilla(),
    };
    set.extend("overrides", overrides.iter().cloned());
    Ok(set)
}

/// What `method` is given to build its store from, and the description of the set it then
/// trusts: Servo's set ([`Trust::Servo`]) or the Mozilla roots plus the overrides.
pub fn for_method(
    method: Method,
    choice: ServoChoice,
    trust: Trust,
    overrides: &[CertificateDer<'static>],
) -> Result<(Vec<CertificateDer<'static>>, TrustStore), Error> {
    let servo_platform = trust == Trust::Servo && choice != ServoChoice::WebpkiRoots;
    let has = match (trust, is_platform(method)) {
        (Trust::Servo, false) => servo_roots(choice, overrides)?,
        (Trust::Mozilla, false) => {
            let mut set = mozilla();
            set.extend("overrides", overrides.iter().cloned());
            set
        }
        // The platform method reads the system store itself and takes the rest as extras:
        // on Servo's platform choices that is Servo's set; otherwise it trusts the system
        // store besides, and the description says so.
        (_, true) => {
            let mut set = system()?;
            if !servo_platform {
                set.extend("mozilla", mozilla().certs().iter().cloned());
            }
            set.extend("overrides", overrides.iter().cloned());
            set
        }
    };
    let given = if is_platform(method) {
        let system = system()?;
        (has.certs().iter())
            .filter(|c| !system.certs().iter().any(|s| s.as_ref() == c.as_ref()))
            .cloned()
            .collect()
    } else {
        has.certs().to_vec()
    };
    Ok((given, has.trust_store()))
}

#[cfg(feature = "platform")]
fn is_platform(method: Method) -> bool {
    method == Method::Platform
}

#[cfg(not(feature = "platform"))]
fn is_platform(_: Method) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a_root() -> CertificateDer<'static> {
        // A root outside the Mozilla set: the last Mozilla root's bytes with one byte changed
        // would not parse, so take a Mozilla root and check dedup instead.
        webpki_root_certs::TLS_SERVER_ROOT_CERTS[0].clone()
    }

    #[test]
    fn servo_choices_follow_connector_rs() {
        assert_eq!(choice(false, None), ServoChoice::PlatformCached);
        assert_eq!(choice(false, Some(&[])), ServoChoice::PlatformExtraRoots);
        assert_eq!(choice(true, None), ServoChoice::WebpkiRoots);
        assert_eq!(choice(true, Some(&[])), ServoChoice::WebpkiRoots);
    }

    #[test]
    fn servo_webpki_roots_trust_is_the_mozilla_set_for_every_method() {
        let n = webpki_root_certs::TLS_SERVER_ROOT_CERTS.len();
        let servo = servo_roots(ServoChoice::WebpkiRoots, &[a_root()]).unwrap();
        assert_eq!(servo.describe(), format!("mozilla ({n})"));
        let (certs, described) = for_method(
            Method::RustlsParallel,
            ServoChoice::WebpkiRoots,
            Trust::Servo,
            &[a_root()],
        )
        .unwrap();
        assert_eq!(described, servo.trust_store());
        assert_eq!(certs.len(), n);
        let (_, mozilla) = for_method(
            Method::Webpki,
            ServoChoice::PlatformCached,
            Trust::Mozilla,
            &[],
        )
        .unwrap();
        assert_eq!(mozilla.to_string(), format!("mozilla ({n})"));
    }
}
