//! Verifier methods: one file per method, one line per method in [`methods!`] below, and the
//! type-erased [`AnyRoots`]/[`DynVerifier`] through which a runner holds any [`Method`]'s
//! verifier. What a method is (the [`Verifier`] trait, [`Target`], [`Rejection`], …) is
//! [`crate::verifier`].

use std::any::Any;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use rustls::client::danger::ServerCertVerifier;
use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::error::Error;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, Rejection, Target, Verifier};

#[cfg(feature = "awslc")]
pub mod awslc;
#[cfg(feature = "chrome")]
pub mod chrome;
#[cfg(feature = "firefox")]
pub mod firefox;
#[cfg(feature = "gnutls")]
pub mod gnutls;
pub mod mtc;
#[cfg(feature = "openssl")]
pub mod openssl;
#[cfg(feature = "platform")]
pub mod platform;
pub mod rustls_parallel;
pub mod rustls_serial;
#[cfg(feature = "webpki-legacy")]
pub mod webpki_legacy;
pub mod webpki_server;

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
    /// See [`Verifier::capabilities`].
    fn capabilities(&self) -> Capabilities;
    /// See [`Verifier::library`].
    fn library(&self) -> Library;
    /// See [`Verifier::build_roots`].
    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<AnyRoots, Error>;
    /// See [`Verifier::rustls_verifier`]; `None` also for a store built by another method.
    fn rustls_verifier(&self, roots: &AnyRoots) -> Option<Arc<dyn ServerCertVerifier>>;
    /// See [`Verifier::verify`]. A store built by another method, or a target beyond the
    /// method's [`Capabilities`], is a rejection (fail closed: never a silently weaker check).
    /// A chain with an algorithm the method does not implement ([`Capabilities::unsupported`])
    /// is its library's to reject; runners ask first and record it as unsupported, untimed.
    fn verify(
        &self,
        roots: &AnyRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection>;
    /// See [`Verifier::handshake_started`]. Default: nothing.
    fn handshake_started(&self) {}
    /// See [`Verifier::start_up`]. Default: nothing to start.
    fn start_up(&self) {}
    /// See [`Verifier::prepare_ct`]. Default: nothing.
    fn prepare_ct(&self, _logs: &crate::ct::CtLogs) {}
    /// See [`Verifier::take_start_up_ns`]. Default: none.
    fn take_start_up_ns(&self) -> Option<u64> {
        None
    }
    /// See [`Verifier::trust_anchor_ids`]; none for a store built by another method.
    fn trust_anchor_ids(&self, _roots: &AnyRoots) -> Vec<Vec<u8>> {
        Vec::new()
    }
}

struct Erased<V> {
    method: Method,
    verifier: V,
}

impl<V: Verifier> DynVerifier for Erased<V> {
    fn capabilities(&self) -> Capabilities {
        self.verifier.capabilities()
    }

    fn library(&self) -> Library {
        self.verifier.library()
    }

    fn handshake_started(&self) {
        self.verifier.handshake_started()
    }

    fn start_up(&self) {
        self.verifier.start_up()
    }

    fn take_start_up_ns(&self) -> Option<u64> {
        self.verifier.take_start_up_ns()
    }

    fn prepare_ct(&self, logs: &crate::ct::CtLogs) {
        self.verifier.prepare_ct(logs)
    }

    fn rustls_verifier(&self, roots: &AnyRoots) -> Option<Arc<dyn ServerCertVerifier>> {
        self.verifier
            .rustls_verifier(roots.inner.downcast_ref::<V::Roots>()?)
    }

    fn trust_anchor_ids(&self, roots: &AnyRoots) -> Vec<Vec<u8>> {
        (roots.inner.downcast_ref::<V::Roots>())
            .map_or_else(Vec::new, |r| self.verifier.trust_anchor_ids(r))
    }

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
        if let Some(why) = self.verifier.capabilities().missing(&target) {
            return Err(Rejection::new(format!("`{}` {why}", self.method)));
        }
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
    ($( $(#[doc = $doc:literal])* [$cfg:meta] $variant:ident => $name:literal, $make:expr; )*) => {
        /// A verification method. The single list that the CLI, the tables and the tests use.
        /// A method whose library is behind a cargo feature exists only with that feature.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Method {
            $( $(#[doc = $doc])* #[cfg($cfg)] $variant, )*
        }

        impl Method {
            /// Every method built in, in the order `all` runs them.
            pub const ALL: &'static [Method] = &[$( #[cfg($cfg)] Method::$variant, )*];

            /// Every method's name, built in or not, with the feature it needs.
            const KNOWN: &'static [(&'static str, &'static str)] = &[$( ($name, stringify!($cfg)), )*];

            /// The method's name on the command line and in tables.
            pub fn name(self) -> &'static str {
                match self { $( #[cfg($cfg)] Method::$variant => $name, )* }
            }

            /// What the method is, in one line (its doc comment in `methods!`), for `--help`.
            pub fn about(self) -> &'static str {
                match self { $( #[cfg($cfg)] Method::$variant => concat!($($doc),*).trim_ascii(), )* }
            }

            /// A verifier for this method.
            pub fn verifier(self) -> Box<dyn DynVerifier> {
                match self {
                    $( #[cfg($cfg)] Method::$variant => Box::new(Erased { method: self, verifier: $make }), )*
                }
            }
        }
    };
}

// One line per method: its cargo feature (`all()`: always built), variant, name, verifier.
methods! {
    /// OpenSSL's own `X509_verify_cert`, host checked through `X509_VERIFY_PARAM_set1_host`.
    [feature = "openssl"] OpenSsl => "openssl", openssl::OpenSslVerifier::default();
    /// AWS-LC's `X509_verify_cert` (aws-lc-sys), the openssl method's policy where AWS-LC has it.
    [feature = "awslc"] AwsLc => "awslc", awslc::AwsLcVerifier;
    /// rustls-webpki: `verify_for_usage` then `verify_is_valid_for_subject_name`.
    [all()] RustlsSerial => "rustlsserial", rustls_serial::RustlsSerial::new();
    /// rustls-webpki with the chain's signatures checked in parallel on a persistent pool, and its anchors looked up by subject.
    [all()] RustlsParallel => "rustlsparallel", rustls_parallel::RustlsParallel::new();
    /// The original webpki 0.22.4, as rustls 0.20 called it.
    [feature = "webpki-legacy"] WebpkiLegacy => "webpkilegacy", webpki_legacy::WebpkiLegacy;
    /// rustls' `WebPkiServerVerifier`, called as rustls calls it (Servo's webpki-roots path).
    [all()] Webpki => "webpki", webpki_server::WebpkiServer;
    /// rustls-platform-verifier (Servo's default): system roots plus the given ones.
    [feature = "platform"] Platform => "platform", platform::Platform;
    /// Chrome's verifier: BoringSSL's libpki `CertPathBuilder` as Chromium's `CertVerifyProcBuiltin` sets it up (its EV attempt, then DV), then Chrome's host check.
    [feature = "chrome"] Chrome => "chrome", chrome::Chrome::verifier();
    /// Firefox's verifier: mozilla::pkix `BuildCertChain` (its EV attempt, then DV) over the signature checks of an NSS of Firefox's era (built from source), then `CheckCertHostname`.
    [feature = "firefox"] Firefox => "firefox", firefox::Firefox::verifier();
    /// WebKitGTK's verifier: GnuTLS as glib-networking >= 2.70 calls it (what `gnutls_certificate_verify_peers3` calls, the host inside).
    [feature = "gnutls"] Gnutls => "gnutls", gnutls::GnutlsVerifier;
    /// certbench's Merkle Tree Certificate verifier (draft-ietf-plants-merkle-tree-certs-07): the inclusion proof up to a trusted subtree or a CA-cosigned one, then validity and name.
    [all()] Mtc => "mtc", mtc::Mtc;
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(m) = Method::ALL.iter().copied().find(|m| m.name() == s) {
            return Ok(m);
        }
        match Method::KNOWN.iter().find(|(name, _)| *name == s) {
            Some((_, cfg)) => Err(format!(
                "method `{s}` is not built in (certbench-core was built without `{cfg}`)"
            )),
            None => Err(format!(
                "unknown method `{s}` (expected {})",
                Method::names_help()
            )),
        }
    }
}

impl Method {
    /// Why this method cannot verify in this process, with what to do about it (a browser's
    /// native verifier that was not built, or whose shared object does not load); `None`: it
    /// can. Only the native verifiers can be unavailable.
    pub fn unavailable(self) -> Option<String> {
        match self {
            #[cfg(feature = "chrome")]
            Method::Chrome => chrome::Chrome::verifier()
                .loaded()
                .err()
                .map(|e| e.to_string()),
            #[cfg(feature = "firefox")]
            Method::Firefox => firefox::Firefox::verifier()
                .loaded()
                .err()
                .map(|e| e.to_string()),
            _ => None,
        }
    }

    /// Every built-in method that can verify in this process ([`Method::unavailable`]), in
    /// [`Method::ALL`]'s order: what `all` means on the command line.
    pub fn available() -> Vec<Method> {
        Method::ALL
            .iter()
            .copied()
            .filter(|m| m.unavailable().is_none())
            .collect()
    }

    /// The names `--method` takes: every built-in method, then `all`, comma-separated.
    pub fn names_help() -> String {
        let mut names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
        names.push("all");
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(all(
        feature = "openssl",
        feature = "awslc",
        feature = "webpki-legacy",
        feature = "platform"
    ))]
    fn names_are_the_seed_names_and_round_trip() {
        // The seed's methods first; the browsers' verifiers (features) after them.
        let names: Vec<&str> = Method::ALL.iter().take(7).map(|m| m.name()).collect();
        assert_eq!(
            names,
            [
                "openssl",
                "awslc",
                "rustlsserial",
                "rustlsparallel",
                "webpkilegacy",
                "webpki",
                "platform"
            ]
        );
        for &m in Method::ALL {
            assert_eq!(m.name().parse::<Method>().unwrap(), m);
        }
        assert!(Method::ALL.iter().all(|m| !m.about().is_empty()));
        let e = "ring".parse::<Method>().unwrap_err();
        assert!(
            e.contains("unknown method `ring`") && e.contains("all"),
            "{e}"
        );
    }

    #[test]
    #[cfg(not(feature = "openssl"))]
    fn a_method_left_out_by_a_feature_says_which() {
        let e = "openssl".parse::<Method>().unwrap_err();
        assert!(e.contains("not built in") && e.contains("openssl"), "{e}");
    }
}
