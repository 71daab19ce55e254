//! [`Checks`]: what one method checks beyond the path and the name (the leaf's SCTs against
//! CT logs, the path's revocation against data), resolved once per method from what the
//! method does as shipped and what the run asks ([`Request`]); every verifier, transport and
//! server of a run takes the resolved value, nothing else decides it.
//!
//! A method named after a browser does what that browser does by default: `chrome` checks CT
//! with Chrome's policy and its CRLSet, `firefox` CT with Gecko's policy and CRLite, `gnutls`
//! the stapled OCSP response ([`CtSupport::Own`], [`Support::Own`]). Servo's methods check
//! what Servo checks, nothing, unless the run adds a check a rustls user can add
//! ([`CtSupport::Added`], [`Support::Rustls`]: `--ct`, `--revocation MECHANISM`).
//! [`Request::path_only`] turns every check off, for the path-only comparison.
//!
//! Invariant: a [`Checks`] holds logs only for a method with a CT check the request turns on,
//! and data only for a method with a revocation mechanism the request turns on, so a method
//! never sees a check it would not make.

use std::fmt;
use std::sync::Arc;

use crate::ct::CtLogs;
use crate::revocation::data::RevocationData;
use crate::revocation::types::{Mechanism, Support};
pub use crate::verifier::CtSupport;
use crate::verifier::{Capabilities, Target};

/// What a run asks of its methods' checks, beyond what each does as shipped (its flags).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// No method checks CT or revocation: the path-only comparison (`--path-only`).
    pub path_only: bool,
    /// The methods that can add a CT check check it too (`--ct`).
    pub ct: bool,
    /// The methods that can add a revocation check check it with this mechanism
    /// (`--revocation`); the browsers' methods check with their own.
    pub revocation: Option<Mechanism>,
}

impl Request {
    /// Whether a method with `caps` checks CT under this request.
    pub fn checks_ct(&self, caps: &Capabilities) -> bool {
        !self.path_only
            && match caps.ct {
                CtSupport::None => false,
                CtSupport::Own => true,
                CtSupport::Added => self.ct,
            }
    }

    /// The mechanism a method with `caps` checks revocation with under this request.
    pub fn revocation(&self, caps: &Capabilities) -> Option<Mechanism> {
        if self.path_only {
            return None;
        }
        match caps.revocation {
            Support::None => None,
            Support::Own(m) => Some(m),
            Support::Rustls => self.revocation,
        }
    }

    /// What a method with `caps` checks under this request, in words: `path only`, or e.g.
    /// `CT (own policy) + crlset`.
    pub fn describe(&self, caps: &Capabilities) -> String {
        let mut parts = Vec::new();
        if self.checks_ct(caps) {
            parts.push(match caps.ct {
                CtSupport::Own => "CT (own policy)".to_owned(),
                _ => "CT (Chrome's policy)".to_owned(),
            });
        }
        if let Some(m) = self.revocation(caps) {
            parts.push(m.to_string());
        }
        if parts.is_empty() {
            "path only".to_owned()
        } else {
            parts.join(" + ")
        }
    }
}

/// Which check a flag adds: CT (`--ct`) or revocation (`--revocation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// `--ct`.
    Ct,
    /// `--revocation`.
    Revocation,
}

/// How a run's methods take a flag that adds a check ([`Added::reach`]), by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach<'a> {
    /// Those it adds the check to (Servo's rustls methods).
    pub adds: Vec<&'a str>,
    /// Those that check it as shipped, flag or not (the browsers').
    pub shipped: Vec<&'a str>,
    /// Those without such a check at all.
    pub cannot: Vec<&'a str>,
}

impl Added {
    /// How `methods` (name, capabilities) take this flag.
    pub fn reach<'a>(self, methods: &[(&'a str, Capabilities)]) -> Reach<'a> {
        let mut r = Reach::default();
        for &(name, caps) in methods {
            let (adds, own) = match self {
                Added::Ct => (caps.ct == CtSupport::Added, caps.ct == CtSupport::Own),
                Added::Revocation => (
                    caps.revocation == Support::Rustls,
                    matches!(caps.revocation, Support::Own(_)),
                ),
            };
            match (adds, own) {
                (true, _) => r.adds.push(name),
                (_, true) => r.shipped.push(name),
                _ => r.cannot.push(name),
            }
        }
        r
    }
}

/// A run's request with the CT logs and the revocation data its methods check against: what
/// each method's [`Checks`] is resolved from ([`RunChecks::for_method`]).
///
/// Invariant (kept by the runner that makes it): `logs` is there when any method of the run
/// checks CT, `data` when any checks revocation; a method whose check finds neither checks
/// nothing (and a runner that can tell says so before it starts).
#[derive(Clone, Debug, Default)]
pub struct RunChecks {
    /// What the run asks.
    pub request: Request,
    /// The CT logs.
    pub logs: Option<Arc<CtLogs>>,
    /// The revocation data.
    pub data: Option<Arc<RevocationData>>,
}

impl RunChecks {
    /// No check at all, for any method.
    pub fn path_only() -> RunChecks {
        RunChecks {
            request: Request {
                path_only: true,
                ..Request::default()
            },
            ..RunChecks::default()
        }
    }

    /// What a method with `caps` checks in this run.
    pub fn for_method(&self, caps: &Capabilities) -> Checks {
        let revocation = self.request.revocation(caps);
        Checks {
            ct: self.logs.clone().filter(|_| self.request.checks_ct(caps)),
            revocation: match revocation {
                Some(m) => self.data.clone().map(|data| (m, data)),
                None => None,
            },
        }
    }
}

/// What one method checks beyond the path and the name (see the module docs).
#[derive(Clone, Default)]
pub struct Checks {
    /// The CT logs the leaf's SCTs are checked against (the `ct` stage).
    pub ct: Option<Arc<CtLogs>>,
    /// The mechanism revocation is checked with, and its data (the `revocation` stage).
    pub revocation: Option<(Mechanism, Arc<RevocationData>)>,
}

impl Checks {
    /// No check beyond the path and the name.
    pub fn none() -> Checks {
        Checks::default()
    }

    /// Whether nothing beyond the path and the name is checked.
    pub fn is_none(&self) -> bool {
        self.ct.is_none() && self.revocation.is_none()
    }

    /// The mechanism revocation is checked with, if any.
    pub fn mechanism(&self) -> Option<Mechanism> {
        self.revocation.as_ref().map(|(m, _)| *m)
    }

    /// The revocation data, if revocation is checked.
    pub fn data(&self) -> Option<&Arc<RevocationData>> {
        self.revocation.as_ref().map(|(_, d)| d)
    }

    /// `target` checking these, the server having stapled `stapled_ocsp`.
    pub fn target<'a>(&'a self, target: Target<'a>, stapled_ocsp: Option<&'a [u8]>) -> Target<'a> {
        let revocation = self.revocation.as_ref().map(|(m, d)| (*m, d.as_ref()));
        target
            .with_ct(self.ct.as_deref())
            .with_revocation(revocation, stapled_ocsp)
    }
}

impl fmt::Debug for Checks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checks")
            .field("ct", &self.ct.as_ref().map(|l| l.origin.as_str()))
            .field("revocation", &self.mechanism())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(ct: CtSupport, revocation: Support) -> Capabilities {
        Capabilities {
            ct,
            revocation,
            ..Capabilities::default()
        }
    }

    #[test]
    fn browsers_check_as_shipped_and_servo_nothing_unless_asked() {
        let chrome = caps(CtSupport::Own, Support::Own(Mechanism::CrlSet));
        let gnutls = caps(CtSupport::None, Support::Own(Mechanism::Ocsp));
        let rustls = caps(CtSupport::Added, Support::Rustls);
        let openssl = caps(CtSupport::None, Support::None);
        let shipped = Request::default();
        assert!(shipped.checks_ct(&chrome));
        assert_eq!(shipped.revocation(&chrome), Some(Mechanism::CrlSet));
        assert!(!shipped.checks_ct(&gnutls));
        assert_eq!(shipped.revocation(&gnutls), Some(Mechanism::Ocsp));
        assert!(!shipped.checks_ct(&rustls));
        assert_eq!(shipped.revocation(&rustls), None);
        assert_eq!(shipped.describe(&openssl), "path only");
        assert_eq!(shipped.describe(&chrome), "CT (own policy) + crlset");

        let added = Request {
            ct: true,
            revocation: Some(Mechanism::Upki),
            ..Request::default()
        };
        assert!(added.checks_ct(&rustls));
        assert_eq!(added.revocation(&rustls), Some(Mechanism::Upki));
        // A browser keeps its own mechanism whatever the run names.
        assert_eq!(added.revocation(&chrome), Some(Mechanism::CrlSet));
        assert!(!added.checks_ct(&openssl));

        let path_only = Request {
            path_only: true,
            ..added
        };
        for c in [chrome, gnutls, rustls, openssl] {
            assert!(!path_only.checks_ct(&c));
            assert_eq!(path_only.revocation(&c), None);
            assert_eq!(path_only.describe(&c), "path only");
        }
    }

    #[test]
    fn a_method_gets_only_the_checks_it_makes() {
        let logs = Arc::new(CtLogs::new(Vec::new(), "test"));
        let data = Arc::new(RevocationData::new(
            crate::revocation::data::DataFiles::default(),
        ));
        let run = RunChecks {
            request: Request::default(),
            logs: Some(logs),
            data: Some(data),
        };
        let firefox = run.for_method(&caps(CtSupport::Own, Support::Own(Mechanism::Crlite)));
        assert!(firefox.ct.is_some());
        assert_eq!(firefox.mechanism(), Some(Mechanism::Crlite));
        let servo = run.for_method(&caps(CtSupport::Added, Support::Rustls));
        assert!(servo.is_none());
        assert!(
            RunChecks::path_only()
                .for_method(&caps(CtSupport::Own, Support::Own(Mechanism::Crlite)))
                .is_none()
        );
    }
}
