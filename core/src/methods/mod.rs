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
use std::net::IpAddr;
use std::str::FromStr;
use std::sync::Arc;

use rustls::client::danger::ServerCertVerifier;

use rustls_pki_types::{CertificateDer, CertificateRevocationListDer};

use crate::chain::Chain;
use crate::error::Error;
use crate::stages::Recorder;

#[cfg(feature = "awslc")]
pub mod awslc;
#[cfg(feature = "chrome")]
pub mod chrome;
#[cfg(feature = "firefox")]
pub mod firefox;
#[cfg(feature = "gnutls")]
pub mod gnutls;
#[cfg(feature = "openssl")]
pub mod openssl;
#[cfg(feature = "platform")]
pub mod platform;
pub mod rustls_parallel;
pub mod rustls_serial;
#[cfg(feature = "webpki-legacy")]
pub mod webpki_legacy;
pub mod webpki_server;

/// The name a chain must be valid for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerName<'a> {
    /// A DNS name (`example.com`).
    Dns(&'a str),
    /// An IP address.
    Ip(IpAddr),
    /// An e-mail address (RFC 822 name).
    Email(&'a str),
}

impl<'a> PeerName<'a> {
    /// A URL host: an IP address literal (IPv6 with or without brackets) or else a DNS name.
    pub fn from_host(host: &'a str) -> PeerName<'a> {
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        match bare.parse::<IpAddr>() {
            Ok(ip) => PeerName::Ip(ip),
            Err(_) => PeerName::Dns(host),
        }
    }
}

impl fmt::Display for PeerName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerName::Dns(s) | PeerName::Email(s) => f.write_str(s),
            PeerName::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

/// The extended key usage the end-entity certificate must allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eku {
    /// TLS server authentication (`id-kp-serverAuth`): what a browser checks.
    ServerAuth,
    /// TLS client authentication (`id-kp-clientAuth`).
    ClientAuth,
}

/// What to verify a chain for.
///
/// A browser verifying a server is [`Target::server`]: a host, a validation time, server
/// auth. The other fields express the x509-limbo testcase options; a method that cannot
/// express one says so in its [`Capabilities`], and is then never asked to verify that
/// target (a call anyway is a rejection, see [`DynVerifier::verify`]).
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The name the chain must be valid for; `None`: no name check.
    pub peer: Option<PeerName<'a>>,
    /// Validation time, seconds since the Unix epoch; `None`: no time was given (webpki
    /// methods use the current time, OpenSSL skips time checks, as the limbo harnesses do).
    pub time: Option<u64>,
    /// The EKU required; `None`: none requested (OpenSSL sets no purpose; webpki, which
    /// always checks one, checks server auth, as the limbo harnesses do).
    pub eku: Option<Eku>,
    /// Maximum number of intermediates between leaf and anchor (OpenSSL's verify depth).
    pub max_depth: Option<u32>,
    /// Certificate revocation lists to check every certificate of the path against.
    pub crls: &'a [CertificateRevocationListDer<'a>],
}

impl<'a> Target<'a> {
    /// A TLS server, as a browser verifies it: `host` (a DNS name or an IP literal) at `time`,
    /// server auth, no depth limit, no CRLs.
    pub fn server(host: &'a str, time: u64) -> Target<'a> {
        Target {
            peer: Some(PeerName::from_host(host)),
            time: Some(time),
            eku: Some(Eku::ServerAuth),
            max_depth: None,
            crls: &[],
        }
    }

    /// The validation time, or now when none was given.
    pub fn time_or_now(&self) -> u64 {
        self.time.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        })
    }
}

/// What a method can express beyond [`Target::server`]. Declared by each method, so that a
/// runner skips (with the reason) what a method cannot check instead of silently checking
/// less.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// IP address peer names.
    pub ip_names: bool,
    /// E-mail (RFC 822) peer names.
    pub email_names: bool,
    /// Verifying a path without checking any name.
    pub no_name: bool,
    /// Client-auth EKU.
    pub client_auth: bool,
    /// A maximum chain depth.
    pub max_depth: bool,
    /// CRLs.
    pub crls: bool,
}

impl Capabilities {
    /// Everything: what OpenSSL's and AWS-LC's `X509_verify_cert` can be told.
    pub const ALL: Capabilities = Capabilities {
        ip_names: true,
        email_names: true,
        no_name: true,
        client_auth: true,
        max_depth: true,
        crls: true,
    };

    /// Why a method with these capabilities cannot verify `target`, or `None` if it can.
    pub fn missing(&self, target: &Target<'_>) -> Option<&'static str> {
        match target.peer {
            None if !self.no_name => return Some("cannot verify without a peer name"),
            Some(PeerName::Ip(_)) if !self.ip_names => {
                return Some("cannot check IP address peer names");
            }
            Some(PeerName::Email(_)) if !self.email_names => {
                return Some("cannot check e-mail (RFC 822) peer names");
            }
            _ => {}
        }
        if target.eku == Some(Eku::ClientAuth) && !self.client_auth {
            return Some("cannot check the client-auth EKU");
        }
        if target.max_depth.is_some() && !self.max_depth {
            return Some("cannot limit the chain depth");
        }
        if !target.crls.is_empty() && !self.crls {
            return Some("cannot check CRLs");
        }
        None
    }
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

impl std::error::Error for Rejection {}

/// The library a method verifies with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Library {
    /// Its name, e.g. `rustls-webpki`.
    pub name: &'static str,
    /// Its version as built or linked, e.g. `0.103.17`.
    pub version: String,
    /// The start of the `harness` name of the upstream x509-limbo harness for this library
    /// (`openssl-`, `rustls-webpki`, `rust-webpki`), to compare with its result file; `None`
    /// when upstream has none.
    pub limbo_harness: Option<&'static str>,
}

impl fmt::Display for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.name, self.version)
    }
}

/// A verification method with its own trust-store type.
pub trait Verifier: Send + Sync + 'static {
    /// The method's trust store.
    type Roots: Send + Sync + 'static;

    /// What this method can express beyond [`Target::server`]. [`Verifier::verify`] must
    /// honour every [`Target`] field its capabilities claim.
    fn capabilities(&self) -> Capabilities;

    /// The library that verifies.
    fn library(&self) -> Library;

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

    /// The method's own rustls `ServerCertVerifier`, when it is one (`webpki`, `platform`):
    /// the rustls transport then uses it as it is. `None` (the default): the transport wraps
    /// [`Verifier::verify`] (see `transport::rustls::MethodVerifier`).
    fn rustls_verifier(&self, _roots: &Self::Roots) -> Option<Arc<dyn ServerCertVerifier>> {
        None
    }
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
    fn capabilities(&self) -> Capabilities {
        self.verifier.capabilities()
    }

    fn library(&self) -> Library {
        self.verifier.library()
    }

    fn rustls_verifier(&self, roots: &AnyRoots) -> Option<Arc<dyn ServerCertVerifier>> {
        self.verifier
            .rustls_verifier(roots.inner.downcast_ref::<V::Roots>()?)
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
    /// Chrome's verifier: BoringSSL's libpki `CertPathBuilder` as Chromium's `CertVerifyProcBuiltin` sets it up, then Chrome's host check.
    [feature = "chrome"] Chrome => "chrome", chrome::Chrome::verifier();
    /// Firefox's verifier: mozilla::pkix `BuildCertChain` over NSS's signature checks, then `CheckCertHostname`.
    [feature = "firefox"] Firefox => "firefox", firefox::Firefox::verifier();
    /// WebKitGTK's verifier: GnuTLS's `gnutls_x509_trust_list_verify_crt` as glib-networking calls it.
    [feature = "gnutls"] Gnutls => "gnutls", gnutls::GnutlsVerifier;
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
