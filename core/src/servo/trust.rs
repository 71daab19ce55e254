//! The trust set of the verifier Servo chose, and the roots a certbench method is given to
//! have the same one.
//!
//! Servo's `CertificateVerificationOverrideVerifier::new` (servo-net 0.7.0) chooses:
//! - no `--certificate-path`, platform verifier: `RUSTLS_PLATFORM_VERIFIER_CACHE`, the
//!   platform verifier built once per process over the system store;
//! - `--certificate-path`: `Verifier::new_with_extra_roots(overrides)`, the system store plus
//!   the override certificates, built at every call;
//! - Android or the pref `network_use_webpki_roots`: `WebPkiServerVerifier` over
//!   `webpki_roots::TLS_SERVER_ROOTS` plus the overrides, built at every call. certbench
//!   links the same crate (`webpki-roots`; a Servo build unifies it with Servo's locked
//!   release, [`SERVO_LOCKED_WEBPKI_ROOTS`] at `patches/SERVO_PIN`), so the set's count is
//!   its anchors'; a method is given each anchor's whole certificate from
//!   `webpki-root-certs` (the same Mozilla data), matched by subject and key.
//!
//! Invariant: a sample's `config.roots` is the [`RootSet::trust_store`] of the roots its
//! verifier trusts; where a method cannot have exactly Servo's set (the `platform` method
//! always adds the system store) the description says what it has instead.

use std::sync::{Mutex, OnceLock};

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

/// The `webpki-roots` release Servo's `Cargo.lock` holds at `patches/SERVO_PIN`'s commit.
pub const SERVO_LOCKED_WEBPKI_ROOTS: &str = "1.0.9";

/// Servo's `TLS_SERVER_ROOTS` as certificates: each anchor's certificate from
/// `webpki-root-certs`, matched by subject and key; and how many anchors have none there
/// (0 when the two crates hold the same Mozilla release).
pub fn webpki_roots() -> (RootSet, usize) {
    let anchors = webpki_roots::TLS_SERVER_ROOTS;
    let certs: Vec<CertificateDer<'static>> = (webpki_root_certs::TLS_SERVER_ROOT_CERTS.iter())
        .filter(|c| {
            webpki::anchor_from_trusted_cert(c).is_ok_and(|t| {
                anchors.iter().any(|a| {
                    a.subject.as_ref() == t.subject.as_ref()
                        && a.subject_public_key_info.as_ref() == t.subject_public_key_info.as_ref()
                })
            })
        })
        .cloned()
        .collect();
    let missing = anchors.len().saturating_sub(certs.len());
    let origin = if missing == 0 {
        "webpki-roots"
    } else {
        "webpki-roots-partial"
    };
    (RootSet::from_certs(origin, certs), missing)
}

/// The warning to give when the `webpki-roots` this build locked is not the release Servo
/// locks at the pin (a build outside Servo's checkout, or a newer Servo): the trust set of the
/// webpki-roots choice is then not the one that Servo ships.
pub fn webpki_roots_warning() -> Option<String> {
    let linked = crate::versions::locked("webpki-roots");
    (linked != SERVO_LOCKED_WEBPKI_ROOTS).then(|| {
        format!(
            "certbench: this build locks webpki-roots {linked} ({}), Servo at the pin locks \
             {SERVO_LOCKED_WEBPKI_ROOTS}: the webpki-roots trust set is not Servo's",
            crate::versions::lock_file()
        )
    })
}

/// The trust set of Servo's own verifier on its webpki-roots choice: the anchors of
/// `webpki_roots` (their count, as Servo's `RootCertStore` holds them) plus the overrides.
fn servo_webpki_store(overrides: &[CertificateDer<'static>]) -> TrustStore {
    let (set, missing) = webpki_roots();
    let mut set = RootSet::from_certs("webpki-roots", set.certs().to_vec());
    set.extend("overrides", overrides.iter().cloned());
    let mut store = set.trust_store();
    store.roots += missing as u64;
    store
}

/// What was worked out once per process, by what it was worked out from.
type Memo<K, V> = Mutex<Vec<(K, Vec<CertificateDer<'static>>, V)>>;

/// `make()`, or what it gave before for `key` and `overrides`: Servo builds a verifier per
/// TLS config (twice at start-up, once per WebSocket), and certbench adds no root-set clone
/// or matching to each (the trust set is the same for the same choice and overrides).
fn once<K: PartialEq + Copy, V: Clone>(
    memo: &Memo<K, V>,
    key: K,
    overrides: &[CertificateDer<'static>],
    make: impl FnOnce() -> Result<V, Error>,
) -> Result<V, Error> {
    let mut seen = memo.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((.., v)) = (seen.iter()).find(|(k, o, _)| *k == key && o.as_slice() == overrides) {
        return Ok(v.clone());
    }
    let v = make()?;
    seen.push((key, overrides.to_vec(), v.clone()));
    Ok(v)
}

/// The description of the roots Servo's chosen verifier trusts (worked out once per
/// process and choice).
pub fn servo_trust_store(
    choice: ServoChoice,
    overrides: &[CertificateDer<'static>],
) -> Result<TrustStore, Error> {
    static MEMO: Memo<ServoChoice, TrustStore> = Mutex::new(Vec::new());
    once(&MEMO, choice, overrides, || match choice {
        ServoChoice::WebpkiRoots => Ok(servo_webpki_store(overrides)),
        _ => servo_roots(choice, overrides).map(|r| r.trust_store()),
    })
}

/// The roots Servo's chosen verifier trusts.
pub fn servo_roots(
    choice: ServoChoice,
    overrides: &[CertificateDer<'static>],
) -> Result<RootSet, Error> {
    let mut set = match choice {
        ServoChoice::PlatformCached | ServoChoice::PlatformExtraRoots => system()?,
        ServoChoice::WebpkiRoots => webpki_roots().0,
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
    type Given = (Vec<CertificateDer<'static>>, TrustStore);
    static MEMO: Memo<(Method, ServoChoice, Trust), Given> = Mutex::new(Vec::new());
    once(&MEMO, (method, choice, trust), overrides, || {
        given(method, choice, trust, overrides)
    })
}

fn given(
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
            match (trust, servo_platform) {
                (_, true) => {}
                (Trust::Servo, false) => {
                    set.extend("webpki-roots", webpki_roots().0.certs().iter().cloned());
                }
                (Trust::Mozilla, false) => {
                    set.extend("mozilla", mozilla().certs().iter().cloned());
                }
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

    #[test]
    fn servo_choices_follow_connector_rs() {
        assert_eq!(choice(false, None), ServoChoice::PlatformCached);
        assert_eq!(choice(false, Some(&[])), ServoChoice::PlatformExtraRoots);
        assert_eq!(choice(true, None), ServoChoice::WebpkiRoots);
        assert_eq!(choice(true, Some(&[])), ServoChoice::WebpkiRoots);
    }

    #[test]
    fn servo_webpki_roots_trust_is_servos_crate_for_every_method() {
        // Servo's crate at the version Servo locks, linked here.
        assert_eq!(
            crate::versions::locked("webpki-roots"),
            SERVO_LOCKED_WEBPKI_ROOTS
        );
        assert_eq!(webpki_roots_warning(), None);
        // Servo's own verifier: the anchor count of Servo's crate at Servo's locked version.
        let n = webpki_roots::TLS_SERVER_ROOTS.len();
        let servo = servo_trust_store(ServoChoice::WebpkiRoots, &[]).unwrap();
        assert_eq!(servo.roots as usize, n);
        assert_eq!(servo.origin, "webpki-roots");
        // A method: those anchors' certificates, the ones this build's webpki-root-certs holds
        // (all of them in a Servo build, which locks both crates at one release).
        let (set, missing) = webpki_roots();
        assert_eq!(set.certs().len() + missing, n);
        let (certs, described) = for_method(
            Method::RustlsParallel,
            ServoChoice::WebpkiRoots,
            Trust::Servo,
            &[],
        )
        .unwrap();
        assert_eq!(certs.len(), n - missing);
        assert_eq!(described.roots as usize, n - missing);
        let expected = if missing == 0 {
            "webpki-roots"
        } else {
            "webpki-roots-partial"
        };
        assert_eq!(described.origin, expected);
        let (_, mozilla) = for_method(
            Method::Webpki,
            ServoChoice::PlatformCached,
            Trust::Mozilla,
            &[],
        )
        .unwrap();
        let m = webpki_root_certs::TLS_SERVER_ROOT_CERTS.len();
        assert_eq!(mozilla.to_string(), format!("mozilla ({m})"));
    }
}
