//! [`TimedVerifier`]: a rustls `ServerCertVerifier` that wraps another and records the
//! stages of every `verify_server_cert` call into a [`VerificationSink`]; it delegates every
//! other method of the trait, so it changes no behaviour — the wrapped verifier's verdict and
//! error are returned as they are. It wraps either an opaque rustls verifier (rustls'
//! `WebPkiServerVerifier`, rustls-platform-verifier, Servo's own: the whole call is `verify`)
//! or a certbench method through [`MethodVerifier`], which records the method's own
//! `chain-creation`, `verify` and `verify-hostname`. `total-verification` is the whole call.
//! With the method's [`Checks`] (CT logs, a revocation mechanism and its data), the method
//! gets them and the OCSP response rustls hands `verify_server_cert` (the server's staple) in
//! its [`Target`]: its `ct` and `revocation` stages run inside the handshake.
//! The handshake's signature (the server's CertificateVerify, `verify_tls13_signature`; in
//! TLS 1.2 its ServerKeyExchange, `verify_tls12_signature`) is the wrapped verifier's check,
//! timed apart as `certificate-verify` and told to the sink
//! ([`VerificationSink::record_signature`]): it comes after `verify_server_cert`, and is not
//! part of `total-verification`.
//! A panic inside the wrapped verifier is a rejection ([`crate::fail_closed`]), never an
//! unwind into rustls.

use std::fmt;
use std::sync::Arc;

use certbench_schema::Stage;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::{
    CertificateError, DigitallySignedStruct, DistinguishedName, OtherError, SignatureScheme,
};
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};

use crate::chain::Chain;
use crate::checks::Checks;
use crate::fail_closed;
use crate::methods::{AnyRoots, DynVerifier};
use crate::stages::Recorder;
pub use crate::verification_sink::{LastVerification, VerificationSink};
use crate::verifier::{Eku, PeerName, Rejection, Target};

/// A certbench method as a rustls `ServerCertVerifier`: `verify_server_cert` runs the
/// method's [`DynVerifier::verify`] on the chain (copied into certbench's owned [`Chain`],
/// which is counted in `chain-creation`); handshake signatures are checked with the
/// provider's algorithms, as rustls' own verifier does.
pub struct MethodVerifier {
    verifier: Arc<dyn DynVerifier>,
    roots: Arc<AnyRoots>,
    provider: Arc<CryptoProvider>,
    checks: Checks,
    /// The trust anchor IDs the method names ([`DynVerifier::trust_anchor_ids`]), each as
    /// one opaque name of the ClientHello's `certificate_authorities` (rustls has no
    /// `trust_anchors` extension of draft-ietf-tls-trust-anchor-ids).
    hints: Vec<DistinguishedName>,
}

impl fmt::Debug for MethodVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MethodVerifier")
            .field("method", &self.roots.method())
            .finish()
    }
}

fn rejected(reason: String) -> rustls::Error {
    rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(
        Rejection::new(reason),
    ))))
}

/// The text of a verification error: a certbench method's own reason as it gave it (not
/// rustls' `Debug` of the wrapper), else rustls' message.
pub fn reason(e: &rustls::Error) -> String {
    if let rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(inner))) = e {
        let inner: &(dyn std::error::Error + 'static) = inner.as_ref();
        if let Some(r) = inner.downcast_ref::<Rejection>() {
            return r.reason.clone();
        }
    }
    e.to_string()
}

impl MethodVerifier {
    /// `verifier` with the store `roots` it built, checking what `checks` names (resolved
    /// for this method, [`crate::checks::RunChecks::for_method`]); CT logs are prepared for
    /// the method now, before any handshake. Revocation data is loaded on the first check
    /// that needs it, unless the runner preloads it
    /// ([`crate::revocation::RevocationData::preload`]) as the driver does.
    pub fn new(
        verifier: Arc<dyn DynVerifier>,
        roots: Arc<AnyRoots>,
        checks: &Checks,
    ) -> MethodVerifier {
        if let Some(logs) = &checks.ct {
            verifier.prepare_ct(logs);
        }
        let hints = (verifier.trust_anchor_ids(&roots).into_iter())
            .map(DistinguishedName::from)
            .collect();
        MethodVerifier {
            verifier,
            roots,
            provider: crate::methods::webpki_server::provider(),
            checks: checks.clone(),
            hints,
        }
    }

    /// `verify_server_cert` without a stapled response, recording the method's stages into
    /// `rec`.
    pub fn verify_staged(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        now: UnixTime,
        rec: &mut Recorder,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let certs = (end_entity, intermediates);
        self.verify_stapled(certs, server_name, &[], now, rec)
    }

    /// `verify_server_cert` with the OCSP response the server stapled (`ocsp_response`, empty
    /// when it stapled none, as rustls hands it), recording the method's stages into `rec`.
    pub fn verify_stapled(
        &self,
        (end_entity, intermediates): (&CertificateDer<'_>, &[CertificateDer<'_>]),
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
        rec: &mut Recorder,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let span = rec.start();
        let chain = Chain {
            leaf: end_entity.clone().into_owned(),
            intermediates: intermediates
                .iter()
                .map(|c| c.clone().into_owned())
                .collect(),
        };
        rec.stop(Stage::ChainCreation, span);
        let host;
        let peer = match server_name {
            ServerName::DnsName(d) => {
                host = d.as_ref().to_owned();
                PeerName::Dns(&host)
            }
            ServerName::IpAddress(ip) => PeerName::Ip(std::net::IpAddr::from(*ip)),
            other => return Err(rejected(format!("unsupported server name {other:?}"))),
        };
        let base = Target {
            peer: Some(peer),
            time: Some(now.as_secs()),
            eku: Some(Eku::ServerAuth),
            max_depth: None,
            crls: &[],
            ct: None,
            revocation: None,
            stapled_ocsp: None,
        };
        let stapled = (!ocsp_response.is_empty()).then_some(ocsp_response);
        let target = self.checks.target(base, stapled);
        fail_closed::verify(|| self.verifier.verify(&self.roots, &chain, target, rec))
            .map(|()| ServerCertVerified::assertion())
            .map_err(|r| rejected(r.reason))
    }
}

impl ServerCertVerifier for MethodVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verify_stapled(
            (end_entity, intermediates),
            server_name,
            ocsp_response,
            now,
            &mut Recorder::new(),
        )
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }

    fn root_hint_subjects(&self) -> Option<&[DistinguishedName]> {
        (!self.hints.is_empty()).then_some(self.hints.as_slice())
    }
}

#[derive(Debug)]
enum Inner {
    /// A rustls verifier whose insides cannot be seen: the whole call is `verify`.
    Opaque(Arc<dyn ServerCertVerifier>),
    /// A certbench method, recording its own stages.
    Staged(Arc<MethodVerifier>),
}

impl Inner {
    fn verifier(&self) -> &dyn ServerCertVerifier {
        match self {
            Inner::Opaque(v) => v.as_ref(),
            Inner::Staged(v) => v.as_ref(),
        }
    }
}

/// A rustls `ServerCertVerifier` that times another (see the module documentation).
///
/// Invariant: every trait method returns exactly what the wrapped verifier returns, except
/// that a panic in `verify_server_cert` becomes an error.
#[derive(Debug)]
pub struct TimedVerifier {
    inner: Inner,
    sink: Arc<dyn VerificationSink>,
}

impl TimedVerifier {
    /// Times an opaque rustls verifier (e.g. Servo's): `verify` and `total-verification`.
    pub fn new(inner: Arc<dyn ServerCertVerifier>, sink: Arc<dyn VerificationSink>) -> Self {
        TimedVerifier {
            inner: Inner::Opaque(inner),
            sink,
        }
    }

    /// Times a certbench method checking what `checks` names (resolved for it,
    /// [`crate::checks::RunChecks::for_method`]): with no check beyond the path, its own
    /// rustls verifier if it is one (`webpki`, `platform`); otherwise the method through
    /// [`MethodVerifier`], with its own stages (for `webpki` and `platform` the method's
    /// `verify()` is the same verifier's call, then the `ct` and `revocation` stages).
    pub fn for_method(
        verifier: Arc<dyn DynVerifier>,
        roots: Arc<AnyRoots>,
        checks: &Checks,
        sink: Arc<dyn VerificationSink>,
    ) -> Self {
        let opaque = checks
            .is_none()
            .then(|| verifier.rustls_verifier(&roots))
            .flatten();
        let inner = match opaque {
            Some(v) => Inner::Opaque(v),
            None => Inner::Staged(Arc::new(MethodVerifier::new(verifier, roots, checks))),
        };
        TimedVerifier { inner, sink }
    }
}

impl TimedVerifier {
    /// The wrapped verifier's signature check `check`, timed as `certificate-verify` into the
    /// sink; a panic is a rejection.
    fn timed_signature(
        &self,
        check: impl FnOnce(&dyn ServerCertVerifier) -> Result<HandshakeSignatureValid, rustls::Error>,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let rec = Recorder::new();
        let span = rec.start();
        let result = fail_closed::run(|| check(self.inner.verifier()))
            .unwrap_or_else(|panic| Err(rejected(panic.reason)));
        let ns = span.elapsed_ns();
        let verdict = match &result {
            Ok(_) => Ok(()),
            Err(e) => Err(Rejection::new(reason(e))),
        };
        self.sink.record_signature(ns, verdict);
        result
    }
}

impl ServerCertVerifier for TimedVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let mut rec = Recorder::new();
        let total = rec.start();
        let result = match &self.inner {
            Inner::Opaque(v) => {
                let span = rec.start();
                let r = fail_closed::run(|| {
                    v.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
                })
                .unwrap_or_else(|panic| Err(rejected(panic.reason)));
                rec.stop(Stage::Verify, span);
                r
            }
            Inner::Staged(m) => m.verify_stapled(
                (end_entity, intermediates),
                server_name,
                ocsp_response,
                now,
                &mut rec,
            ),
        };
        rec.stop(Stage::TotalVerification, total);
        let verdict = match &result {
            Ok(_) => Ok(()),
            Err(e) => Err(Rejection::new(reason(e))),
        };
        self.sink.record(server_name, &rec, verdict);
        result
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.timed_signature(|v| v.verify_tls12_signature(message, cert, dss))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.timed_signature(|v| v.verify_tls13_signature(message, cert, dss))
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.verifier().supported_verify_schemes()
    }

    fn requires_raw_public_keys(&self) -> bool {
        self.inner.verifier().requires_raw_public_keys()
    }

    fn root_hint_subjects(&self) -> Option<&[DistinguishedName]> {
        self.inner.verifier().root_hint_subjects()
    }
}
