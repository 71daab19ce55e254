//! The vocabulary every verifier method speaks: what to verify a chain for ([`Target`],
//! [`PeerName`], [`Eku`]), what a method can express ([`Capabilities`]), its refusal
//! ([`Rejection`]), its [`Library`], and the [`Verifier`] trait a method implements. The list
//! of methods is [`crate::methods`]; each method's file imports this module, never that list.
//!
//! A method builds its own trust store from DER roots ([`Verifier::build_roots`], timed by the
//! caller as `roots-creation`) and verifies a DER chain for a host at a time
//! ([`Verifier::verify`]), recording its own `chain-creation`, `verify` and (where it checks
//! the host apart) `verify-hostname` stages. The caller times `total-verification` around it.
//!
//! Invariant for every method: a chain is accepted only when the method's library said so;
//! any failure, including a malformed input or a store built for another method, is a
//! [`Rejection`] with a reason, never an accept and never a panic.

use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

use rustls::client::danger::ServerCertVerifier;

use rustls_pki_types::{CertificateDer, CertificateRevocationListDer};

use crate::chain::Chain;
use crate::ct::CtLogs;
use crate::error::Error;
use crate::revocation::data::{Refusal, RevocationData};
use crate::revocation::types::Mechanism;
use crate::stages::Recorder;

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
/// target (a call anyway is a rejection, see [`DynVerifier::verify`](crate::methods::DynVerifier::verify)).
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
    /// Certificate Transparency: the logs to check the leaf's SCTs against, after the path is
    /// verified (the `ct` stage). `None`: no CT check. A method that has no CT check
    /// ignores it (the sample then has no `ct`).
    pub ct: Option<&'a CtLogs>,
    /// Revocation: the mechanism to check with and its data (loaded once per process),
    /// checked after the path is verified (the `revocation` stage), as the method's
    /// [`crate::checks::Checks`] resolved it. `None`: no check. A method with no mechanism
    /// ignores it (the sample then has no `revocation`).
    pub revocation: Option<(Mechanism, &'a RevocationData)>,
    /// The OCSP response the server stapled for the end-entity certificate (TLS
    /// `status_request`), if it stapled one.
    pub stapled_ocsp: Option<&'a [u8]>,
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
            ct: None,
            revocation: None,
            stapled_ocsp: None,
        }
    }

    /// The same target, with the leaf's SCTs checked against `logs`.
    pub fn with_ct(self, logs: Option<&'a CtLogs>) -> Target<'a> {
        Target { ct: logs, ..self }
    }

    /// The same target, with revocation checked with a mechanism against its data, the
    /// server having stapled `stapled_ocsp`.
    pub fn with_revocation(
        self,
        data: Option<(Mechanism, &'a RevocationData)>,
        stapled_ocsp: Option<&'a [u8]>,
    ) -> Target<'a> {
        Target {
            revocation: data,
            stapled_ocsp,
            ..self
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

/// Whether, and how, a method checks Certificate Transparency ([`Capabilities::ct`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CtSupport {
    /// No CT check: the method ignores CT logs.
    #[default]
    None,
    /// Its browser's own check and policy, made by default as the browser ships
    /// (`chrome`, `firefox`).
    Own,
    /// The check a rustls user adds (Chrome's policy), made only when the run asks (`--ct`).
    Added,
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
    /// ML-DSA keys and signatures (FIPS 204, RFC 9881): the post-quantum chains of `--pq`.
    pub ml_dsa: bool,
    /// A Certificate Transparency check ([`Target::ct`]): the browser's own, made by default,
    /// or what a rustls user adds (`--ct`). A method without one ignores the target's logs.
    pub ct: CtSupport,
    /// A revocation check ([`Target::revocation`]): the browser's own mechanism, made by
    /// default, or the one `--revocation` names for the rustls methods.
    pub revocation: crate::revocation::types::Support,
    /// Merkle Tree Certificates (the `mtc` profile, [`crate::mtc`]) and only those: a method
    /// with `mtc` verifies no signed X.509 chain, one without it no Merkle Tree Certificate.
    pub mtc: bool,
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
        ml_dsa: true,
        ct: CtSupport::None,
        revocation: crate::revocation::types::Support::None,
        mtc: false,
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

    /// The algorithm of `chain` that a method with these capabilities does not implement, if
    /// any: such a chain is not verified at all (a runner records "unsupported", never a
    /// verdict and never a figure).
    pub fn unsupported(&self, chain: &Chain) -> Option<Unsupported> {
        let is_mtc = crate::mtc::is_mtc(&chain.leaf);
        match (self.mtc, is_mtc) {
            (true, true) => return None,
            (true, false) => return Some(Unsupported::from(Algorithm::SignedX509)),
            (false, true) => return Some(Unsupported::from(Algorithm::MtcProof)),
            (false, false) => {}
        }
        if self.ml_dsa {
            return None; // nothing else is ever unsupported: no need to read the chain
        }
        let ml_dsa = crate::der::ml_dsa_in(chain.iter().map(|c| c.as_ref()));
        ml_dsa
            .first()
            .map(|&m| Unsupported::from(Algorithm::MlDsa(m)))
    }
}

/// A chain holds an algorithm the method does not implement ([`Capabilities::unsupported`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// The first such algorithm of the chain.
    pub algorithm: Algorithm,
}

/// What a method may not implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// An ML-DSA parameter set.
    MlDsa(crate::der::MlDsa),
    /// `id-alg-mtcProof`: a Merkle Tree Certificate, which only `mtc` verifies.
    MtcProof,
    /// A signed X.509 chain, given to a method that verifies Merkle Tree Certificates only.
    SignedX509,
}

impl From<Algorithm> for Unsupported {
    fn from(algorithm: Algorithm) -> Unsupported {
        Unsupported { algorithm }
    }
}

impl fmt::Display for Unsupported {
    /// `unsupported algorithm: ML-DSA-44` as ever for ML-DSA; the MTC texts beside it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.algorithm {
            Algorithm::MlDsa(m) => write!(f, "unsupported algorithm: {}", m.name()),
            Algorithm::MtcProof => {
                f.write_str("unsupported algorithm: MTC proof (Merkle Tree Certificate)")
            }
            Algorithm::SignedX509 => f.write_str(
                "unsupported algorithm: signed X.509 chain (verifies Merkle Tree Certificates only)",
            ),
        }
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

impl From<Refusal> for Rejection {
    /// A revocation check's refusal is the method's rejection, in its words.
    fn from(r: Refusal) -> Rejection {
        Rejection::new(r.to_string())
    }
}

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

    /// Called by a transport as a TLS handshake this verifier will verify starts (its
    /// ClientHello on the way), so that a method may prepare while the server answers
    /// (`rustlsparallel` can wake a pool worker). Never changes a verdict. Default: nothing.
    fn handshake_started(&self) {}

    /// Loads and starts the method's library if this process has not yet (NSS's start-up for
    /// `firefox`), so that a runner keeps it out of `roots-creation`. A library that cannot
    /// start is reported by [`Verifier::build_roots`]. Default: nothing to start.
    fn start_up(&self) {}

    /// What the library's start-up took (`library-init`), the first time a runner asks in
    /// this process, after [`Verifier::start_up`]; `None` after, and for methods without one.
    fn take_start_up_ns(&self) -> Option<u64> {
        None
    }

    /// Makes what the method needs of `logs` before any timed stage (a native library parses
    /// the logs' keys once, as a browser does when it loads its log list). Default: nothing
    /// (the rustls methods' check reads the keys as it goes, as webpki reads a certificate's).
    fn prepare_ct(&self, _logs: &CtLogs) {}

    /// The trust anchor IDs (binary) the client names in its ClientHello for `roots`
    /// (draft-ietf-tls-trust-anchor-ids), so that a server may choose the certificate it
    /// sends: `mtc`'s held landmarks. Default: none (the ClientHello names nothing).
    fn trust_anchor_ids(&self, _roots: &Self::Roots) -> Vec<Vec<u8>> {
        Vec::new()
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
