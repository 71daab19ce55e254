//! Verifier methods: one file per method, one line per method in [`methods!`] below.
//!
//! A method builds its own trust store from DER roots ([`Verifier::build_roots`], timed by the
//! caller as `roots-creation`) and verifies a DER chain for a host at a time
//! ([`Verifier::verify`]), recording its own `chain-creation`, `verify` and (where it checks
//! the host apart) `verify-hostname` stages. The caller times `total-verification` around it.
//!
//! Invariant for every method: a chain is accepted only when the method's library said so;
//! any failure, including a malformed input or a store built for another method, is a
//! [`Rejection`] with a reason, never an accept and never a panic.

use std::any::Any;
use std::fmt;
use std::str::FromStr;

use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::error::Error;
use crate::stages::Recorder;

pub mod openssl;
pub mod rustls_parallel;
pub mod rustls_serial;
pub mod webpki_legacy;

/// What to verify a chain for.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The host name (DNS name or IP address literal) the chain must be valid for.
    pub host: &'a str,
    /// Validation time, seconds since the Unix epoch.
    pub time: u64,
}

/// A verifier's refusal, in the verifier's own words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// The reason (e.g. `certificate has expired (depth 0)`, `UnknownIssuer`).
    pub reason: String,
}

impl Rejection {
    /// A rejection with this reason.
    pub fn new(reason: impl Into<String>) -> Rejection {
        Rejection {
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// A verification method with its own trust-store type.
pub trait Verifier: Send + Sync + 'static {
    /// The method's trust store.
    type Roots: Send + Sync + 'static;

    /// Builds the trust store from DER roots (the caller times this as `roots-creation`).
    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<Self::Roots, Error>;

    /// Verifies `chain` for `target`, recording `chain-creation`, `verify` and, where the
    /// method checks the host apart from `verify`, `verify-hostname`.
    fn verify(
        &self,
        roots: &Self::Roots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection>;
}

/// Parses every root with `parse`, keeping those it accepts, as rustls'
/// `RootCertStore::add_parsable_certificates` does: one unusable root does not make the
/// whole store unusable. An error (naming `origin` and the first failure) only when no root
/// is usable.
pub(crate) fn parsable_roots<T, E: fmt::Debug>(
    roots: &[CertificateDer<'static>],
    origin: &str,
    parse: impl Fn(&CertificateDer<'static>) -> Result<T, E>,
) -> Result<Vec<T>, Error> {
    let mut first_error = None;
    let parsed: Vec<T> = roots
        .iter()
        .filter_map(|der| match parse(der) {
            Ok(t) => Some(t),
            Err(e) => {
                first_error.get_or_insert(e);
                None
            }
        })
        .collect();
    match (parsed.is_empty(), first_error) {
        (true, Some(e)) => Err(Error::Roots {
            origin: origin.into(),
            message: format!("no root usable as a trust anchor (first error: {e:?})"),
        }),
        _ => Ok(parsed),
    }
}

/// A trust store built by some method, its type erased.
pub struct AnyRoots {
    method: Method,
    inner: Box<dyn Any + Send + Sync>,
}

impl AnyRoots {
    /// The method that built it.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The store itself, if it is a `T`.
    pub fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        self.inner.downcast_ref()
    }
}

/// The object-safe face of a [`Verifier`], for lists of methods.
pub trait DynVerifier: Send + Sync {
    /// See [`Verifier::build_roots`].
    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<AnyRoots, Error>;
    /// See [`Verifier::verify`]; a store built by another method is a rejection.
    fn verify(
        &self,
        roots: &AnyRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection>;
}

struct Erased<V> {
    method: Method,
    verifier: V,
}

impl<V: Verifier> DynVerifier for Erased<V> {
    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<AnyRoots, Error> {
        Ok(AnyRoots {
            method: self.method,
            inner: Box::new(self.verifier.build_roots(roots)?),
        })
    }

    fn verify(
        &self,
        roots: &AnyRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        match roots.inner.downcast_ref::<V::Roots>() {
            Some(r) => self.verifier.verify(r, chain, target, rec),
            None => Err(Rejection::new(format!(
                "trust store built by `{}` given to `{}`",
                roots.method, self.method
            ))),
        }
    }
}

macro_rules! methods {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $make:expr; )*) => {
        /// A verification method. The single list that the CLI, the tables and the tests use.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Method {
            $( $(#[$doc])* $variant, )*
        }

        impl Method {
            /// Every method, in the order `all` runs them.
            pub const ALL: &'static [Method] = &[$(Method::$variant),*];

            /// The method's name on the command line and in tables.
            pub fn name(self) -> &'static str {
                match self { $(Method::$variant => $name),* }
            }

            /// A verifier for this method.
            pub fn verifier(self) -> Box<dyn DynVerifier> {
                match self {
                    $(Method::$variant => Box::new(Erased { method: self, verifier: $make }),)*
                }
            }
        }
    };
}

methods! {
    /// OpenSSL's own `X509_verify_cert`, host checked through `X509_VERIFY_PARAM_set1_host`.
    OpenSsl => "openssl", openssl::OpenSslVerifier::default();
    /// rustls-webpki: `verify_for_usage` then `verify_is_valid_for_subject_name`.
    RustlsSerial => "rustlsserial", rustls_serial::RustlsSerial::new();
    /// rustls-webpki with the chain's signatures checked in parallel on a persistent pool.
    RustlsParallel => "rustlsparallel", rustls_parallel::RustlsParallel::new();
    /// The original webpki 0.22.4, as rustls 0.20 called it.
    WebpkiLegacy => "webpkilegacy", webpki_legacy::WebpkiLegacy;
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Method::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown method `{s}` (expected {})", names_help()))
    }
}

fn names_help() -> String {
    let mut names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
    names.push("all");
    names.join(", ")
}

/// Parses a `--method` value: a method name, `all`, or a comma-separated list of names.
/// Duplicates are dropped; order is kept.
pub fn parse_methods(s: &str) -> Result<Vec<Method>, String> {
    let mut out: Vec<Method> = Vec::new();
    for part in s.split(',').map(str::trim) {
        let add: Vec<Method> = if part == "all" {
            Method::ALL.to_vec()
        } else {
            vec![part.parse()?]
        };
        for m in add {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_seed_names_and_round_trip() {
        let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(
            names,
            ["openssl", "rustlsserial", "rustlsparallel", "webpkilegacy"]
        );
        for &m in Method::ALL {
            assert_eq!(m.name().parse::<Method>().unwrap(), m);
        }
        assert_eq!(parse_methods("all").unwrap(), Method::ALL);
        assert_eq!(
            parse_methods("rustlsparallel,openssl,rustlsparallel").unwrap(),
            [Method::RustlsParallel, Method::OpenSsl]
        );
        let e = parse_methods("ring").unwrap_err();
        assert!(
            e.contains("unknown method `ring`") && e.contains("all"),
            "{e}"
        );
    }
}
