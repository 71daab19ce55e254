//! What a patched Servo is asked to measure, read once per process from Servo's prefs
//! ([`Prefs`]: `certbench_method`, `certbench_trust`, `certbench_samples`, set with
//! servoshell's `--pref` or a prefs file, and on Android and OHOS as any pref) or else from the
//! environment variables of the same meaning:
//!
//! - `CERTBENCH_METHOD`: `servo` (Servo's own verifier, timed as Servo chose it) or a
//!   certbench method built into this certbench-core (`webpki`, `rustlsserial`,
//!   `rustlsparallel`, `platform`, …), which then verifies instead of Servo's verifier.
//! - `CERTBENCH_TRUST`: `servo` (default: the method gets Servo's trust set — the roots and
//!   override certificates Servo's chosen verifier has) or `mozilla` (the Mozilla roots plus
//!   the overrides: the comparison on one bundled set, named so in every sample).
//! - `CERTBENCH_SAMPLES`: the JSONL file (default `certbench-servo.jsonl` once anything is
//!   measured).
//! - `CERTBENCH_CT` (pref `certbench_ct`): a CT log list (v3 JSON, as `certbench` writes
//!   it or Chrome's): the method also checks the leaf's SCTs and the CT policy (`ct` stage).
//! - `CERTBENCH_REVOCATION` (pref `certbench_revocation`): `MECHANISM:DIR` (`crl`, `crlite`,
//!   `upki`, `ocsp` and certbench's revocation data in `DIR`): the method also checks
//!   revocation (`revocation` stage; the data's load is `revocation-load`).
//!
//! CT and revocation need a certbench method: Servo's own verifier checks neither.
//!
//! Invariant: a value that cannot be honoured is a [`SettingsError`], never a fallback to
//! another verifier — the patch refuses to start ([`super::Refusal`]), so that no sample is
//! ever written under a name other than the one asked for.

use std::path::PathBuf;

use crate::methods::Method;
use crate::revocation::types::Mechanism;
use certbench_schema::UnknownName;

/// The method name of Servo's own verifier in samples (and in `CERTBENCH_METHOD`).
pub const SERVO_OWN: &str = "servo";

/// The verifier whose verifications are timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measured {
    /// Servo's own verifier, exactly as `connector.rs` chose it.
    Servo,
    /// A certbench method, in place of Servo's verifier.
    Method(Method),
}

/// The trust set a certbench method is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// Servo's: the roots of the verifier Servo chose, plus its override certificates.
    Servo,
    /// The Mozilla roots (`webpki-root-certs`) plus Servo's override certificates.
    Mozilla,
}

/// Servo's certbench prefs (the patch adds them to servo-config's `Preferences`); a
/// non-empty pref wins over the environment variable of the same meaning.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prefs {
    /// `certbench_method`, as `CERTBENCH_METHOD`.
    pub method: String,
    /// `certbench_trust`, as `CERTBENCH_TRUST`.
    pub trust: String,
    /// `certbench_samples`, as `CERTBENCH_SAMPLES`.
    pub samples: String,
    /// `certbench_ct`, as `CERTBENCH_CT`.
    pub ct: String,
    /// `certbench_revocation`, as `CERTBENCH_REVOCATION`.
    pub revocation: String,
}

impl Prefs {
    /// The pref standing for the environment variable `var`, when it is set.
    pub fn get(&self, var: &str) -> Option<String> {
        let value = match var {
            "CERTBENCH_METHOD" => &self.method,
            "CERTBENCH_TRUST" => &self.trust,
            "CERTBENCH_SAMPLES" => &self.samples,
            "CERTBENCH_CT" => &self.ct,
            "CERTBENCH_REVOCATION" => &self.revocation,
            _ => return None,
        };
        Some(value.clone()).filter(|v| !v.is_empty())
    }
}

/// What the prefs and the environment ask for; `None` from [`Settings::from_vars`] means nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The verifier timed.
    pub measured: Measured,
    /// The trust set a method is given (always [`Trust::Servo`] for Servo's own verifier).
    pub trust: Trust,
    /// Where samples go.
    pub samples: PathBuf,
    /// The CT log list a method checks SCTs against.
    pub ct: Option<PathBuf>,
    /// The revocation mechanism a method checks, and the folder of its data.
    pub revocation: Option<(Mechanism, PathBuf)>,
}

/// A setting that cannot be honoured.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// `CERTBENCH_METHOD` names no method built into this certbench-core.
    #[error("CERTBENCH_METHOD (or pref certbench_method) `{value}`: {reason}")]
    Method {
        /// The value given.
        value: String,
        /// Why it cannot be used (unknown, not built in, or unavailable here).
        reason: String,
    },
    /// `CERTBENCH_TRUST` is neither `servo` nor `mozilla`.
    #[error("CERTBENCH_TRUST (or pref certbench_trust) `{0}`: expected `servo` or `mozilla`")]
    Trust(String),
    /// `CERTBENCH_TRUST=mozilla` with Servo's own verifier, whose roots are Servo's.
    #[error(
        "CERTBENCH_TRUST=mozilla needs a certbench method in CERTBENCH_METHOD: Servo's own verifier has Servo's roots"
    )]
    MozillaForServo,
    /// `CERTBENCH_CT` or `CERTBENCH_REVOCATION` with Servo's own verifier.
    #[error(
        "CERTBENCH_CT and CERTBENCH_REVOCATION (prefs certbench_ct, certbench_revocation) need a certbench method in CERTBENCH_METHOD: Servo's own verifier checks neither"
    )]
    ChecksForServo,
    /// `CERTBENCH_REVOCATION` is not `MECHANISM:DIR`.
    #[error("CERTBENCH_REVOCATION (or pref certbench_revocation) `{value}`: {reason}")]
    Revocation {
        /// The value given.
        value: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// The CT log list cannot be read.
    #[error("CERTBENCH_CT (or pref certbench_ct) `{path}`: {reason}")]
    Ct {
        /// The file given.
        path: String,
        /// Why it cannot be used.
        reason: String,
    },
}

impl Settings {
    /// Reads the settings through `var` (the environment, in a Servo build). `Ok(None)`: no
    /// variable set, nothing measured.
    pub fn from_vars(
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Settings>, SettingsError> {
        let get = |name: &str| var(name).filter(|v| !v.is_empty());
        let method = get("CERTBENCH_METHOD");
        let trust = get("CERTBENCH_TRUST");
        let samples = get("CERTBENCH_SAMPLES");
        let (ct, revocation) = (get("CERTBENCH_CT"), get("CERTBENCH_REVOCATION"));
        if [&method, &trust, &samples, &ct, &revocation]
            .iter()
            .all(|v| v.is_none())
        {
            return Ok(None);
        }
        let measured = match method.as_deref() {
            None | Some(SERVO_OWN) => Measured::Servo,
            Some(name) => {
                let m = name
                    .parse::<Method>()
                    .map_err(|reason| SettingsError::Method {
                        value: name.to_owned(),
                        reason,
                    })?;
                if let Some(reason) = m.unavailable() {
                    return Err(SettingsError::Method {
                        value: name.to_owned(),
                        reason,
                    });
                }
                Measured::Method(m)
            }
        };
        let trust = match trust.as_deref() {
            None | Some("servo") => Trust::Servo,
            Some("mozilla") if measured == Measured::Servo => {
                return Err(SettingsError::MozillaForServo);
            }
            Some("mozilla") => Trust::Mozilla,
            Some(other) => return Err(SettingsError::Trust(other.to_owned())),
        };
        if measured == Measured::Servo && (ct.is_some() || revocation.is_some()) {
            return Err(SettingsError::ChecksForServo);
        }
        let revocation = revocation.map(|v| revocation_setting(&v)).transpose()?;
        Ok(Some(Settings {
            measured,
            trust,
            samples: PathBuf::from(samples.as_deref().unwrap_or("certbench-servo.jsonl")),
            ct: ct.map(PathBuf::from),
            revocation,
        }))
    }

    /// The method name samples carry.
    pub fn method_name(&self) -> &'static str {
        match self.measured {
            Measured::Servo => SERVO_OWN,
            Measured::Method(m) => m.name(),
        }
    }
}

/// `MECHANISM:DIR`.
fn revocation_setting(value: &str) -> Result<(Mechanism, PathBuf), SettingsError> {
    let refused = |reason: String| SettingsError::Revocation {
        value: value.to_owned(),
        reason,
    };
    let (mechanism, dir) = (value.split_once(':'))
        .ok_or_else(|| refused("expected MECHANISM:DIR, e.g. crlite:/path/to/data".into()))?;
    let mechanism = mechanism
        .parse()
        .map_err(|e: UnknownName| refused(e.to_string()))?;
    Ok((mechanism, PathBuf::from(dir)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(vars: &[(&str, &str)]) -> Result<Option<Settings>, SettingsError> {
        Settings::from_vars(|k| {
            (vars.iter())
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn servo_settings_nothing_set_is_nothing_measured() {
        assert_eq!(read(&[]), Ok(None));
        assert_eq!(read(&[("CERTBENCH_METHOD", "")]), Ok(None));
    }

    #[test]
    fn servo_settings_name_what_is_measured() {
        let s = read(&[("CERTBENCH_SAMPLES", "/tmp/s.jsonl")])
            .unwrap()
            .unwrap();
        assert_eq!(s.measured, Measured::Servo);
        assert_eq!(s.method_name(), "servo");
        assert_eq!(s.samples, PathBuf::from("/tmp/s.jsonl"));
        let s = read(&[("CERTBENCH_METHOD", "servo")]).unwrap().unwrap();
        assert_eq!(s.measured, Measured::Servo);
        assert_eq!(s.samples, PathBuf::from("certbench-servo.jsonl"));
        let s = read(&[
            ("CERTBENCH_METHOD", "rustlsparallel"),
            ("CERTBENCH_TRUST", "mozilla"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(s.measured, Measured::Method(Method::RustlsParallel));
        assert_eq!(s.trust, Trust::Mozilla);
        assert_eq!(s.method_name(), "rustlsparallel");
    }

    #[test]
    fn servo_prefs_win_over_the_environment() {
        let prefs = Prefs {
            method: "webpki".into(),
            ..Prefs::default()
        };
        let env = [
            ("CERTBENCH_METHOD", "rustlsserial"),
            ("CERTBENCH_SAMPLES", "/e"),
        ];
        let s = Settings::from_vars(|k| {
            (prefs.get(k)).or_else(|| {
                env.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            })
        })
        .unwrap()
        .unwrap();
        assert_eq!(s.measured, Measured::Method(Method::Webpki));
        assert_eq!(s.samples, PathBuf::from("/e"));
        assert_eq!(prefs.get("CERTBENCH_TRUST"), None);
    }

    #[test]
    fn servo_settings_refuse_what_cannot_be_honoured() {
        let e = read(&[("CERTBENCH_METHOD", "nosuch")]).unwrap_err();
        assert!(matches!(&e, SettingsError::Method { value, .. } if value == "nosuch"));
        assert!(e.to_string().contains("unknown method `nosuch`"), "{e}");
        #[cfg(not(feature = "chrome"))]
        {
            let e = read(&[("CERTBENCH_METHOD", "chrome")]).unwrap_err();
            assert!(e.to_string().contains("not built in"), "{e}");
        }
        assert_eq!(
            read(&[("CERTBENCH_TRUST", "mozilla")]),
            Err(SettingsError::MozillaForServo)
        );
        assert_eq!(
            read(&[("CERTBENCH_METHOD", "webpki"), ("CERTBENCH_TRUST", "x")]),
            Err(SettingsError::Trust("x".into()))
        );
    }

    #[test]
    fn servo_settings_ct_and_revocation_need_a_method() {
        let s = read(&[
            ("CERTBENCH_METHOD", "webpki"),
            ("CERTBENCH_CT", "/tmp/logs.json"),
            ("CERTBENCH_REVOCATION", "crlite:/tmp/data"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(s.ct, Some(PathBuf::from("/tmp/logs.json")));
        assert_eq!(
            s.revocation,
            Some((Mechanism::Crlite, PathBuf::from("/tmp/data")))
        );
        assert_eq!(
            read(&[("CERTBENCH_CT", "/tmp/logs.json")]),
            Err(SettingsError::ChecksForServo)
        );
        for bad in ["crlite", "nosuch:/tmp"] {
            let e = read(&[
                ("CERTBENCH_METHOD", "webpki"),
                ("CERTBENCH_REVOCATION", bad),
            ]);
            assert!(
                matches!(e, Err(SettingsError::Revocation { .. })),
                "{bad}: {e:?}"
            );
        }
    }
}
