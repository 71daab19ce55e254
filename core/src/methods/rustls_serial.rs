//! `rustlsserial`: rustls-webpki 0.103 on aws-lc-rs, the way rustls' `WebPkiServerVerifier`
//! calls it: `EndEntityCert::verify_for_usage` (server auth) then
//! `verify_is_valid_for_subject_name`.
//!
//! Beyond a browser's check it can express client auth, IP names, no name (the path alone)
//! and CRLs (`RevocationOptions`: the whole chain, unknown status denied, expired CRLs
//! rejected — OpenSSL's behaviour); not a depth limit or e-mail names.
//!
//! Roots: `TrustAnchor`s made with `anchor_from_trusted_cert(..).to_owned()`, as rustls'
//! `RootCertStore::add` does. Chain creation: parsing the end-entity DER into an
//! `EndEntityCert` (intermediates are parsed by webpki during path building, inside `verify`).

use std::sync::OnceLock;
use std::time::Duration;

use certbench_schema::Stage;
use rustls_pki_types::{
    CertificateDer, ServerName, SignatureVerificationAlgorithm, TrustAnchor, UnixTime,
};
use webpki::{
    BorrowedCertRevocationList, CertRevocationList, EndEntityCert, ExpirationPolicy, KeyUsage,
    RevocationCheckDepth, RevocationOptions, RevocationOptionsBuilder, UnknownStatusPolicy,
};

use crate::chain::Chain;
use crate::error::Error;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Eku, Library, PeerName, Rejection, Target, Verifier};

/// Signature algorithms, as a static list.
pub type Algorithms = &'static [&'static dyn SignatureVerificationAlgorithm];

/// The signature algorithms rustls' aws-lc-rs provider gives `WebPkiServerVerifier`: what a
/// browser on rustls verifies certificates with.
pub fn signature_algorithms() -> Algorithms {
    static ALGS: OnceLock<Algorithms> = OnceLock::new();
    ALGS.get_or_init(|| {
        rustls::crypto::aws_lc_rs::default_provider()
            .signature_verification_algorithms
            .all
    })
}

/// rustls-webpki, one signature after the other.
#[derive(Clone, Copy, Debug)]
pub struct RustlsSerial {
    algs: Algorithms,
}

impl RustlsSerial {
    /// With rustls' aws-lc-rs algorithms ([`signature_algorithms`]).
    pub fn new() -> RustlsSerial {
        RustlsSerial::with_algorithms(signature_algorithms())
    }

    /// With another list of signature algorithms (e.g. an older library's).
    pub fn with_algorithms(algs: Algorithms) -> RustlsSerial {
        RustlsSerial { algs }
    }
}

impl Default for RustlsSerial {
    fn default() -> Self {
        RustlsSerial::new()
    }
}

/// webpki trust anchors.
pub struct WebpkiRoots(pub Vec<TrustAnchor<'static>>);

/// Builds owned trust anchors from DER roots, skipping roots webpki cannot use (as rustls'
/// `RootCertStore::add_parsable_certificates` does). An error only when none is usable.
pub fn trust_anchors(
    roots: &[CertificateDer<'static>],
) -> Result<Vec<TrustAnchor<'static>>, Error> {
    crate::verifier::parsable_roots(roots, "webpki", |der| {
        webpki::anchor_from_trusted_cert(der).map(|a| a.to_owned())
    })
}

impl Verifier for RustlsSerial {
    type Roots = WebpkiRoots;

    fn library(&self) -> Library {
        Library {
            name: "rustls-webpki",
            version: crate::versions::locked("rustls-webpki").to_owned(),
            limbo_harness: Some("rustls-webpki"),
        }
    }

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<WebpkiRoots, Error> {
        Ok(WebpkiRoots(trust_anchors(roots)?))
    }

    fn verify(
        &self,
        roots: &WebpkiRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        verify_with(chain, target, rec, |ee, path| {
            ee.verify_for_usage(
                self.algs,
                &roots.0,
                &chain.intermediates,
                path.time,
                path.usage,
                path.revocation,
                None,
            )
            .map(|_| ())
        })?;
        crate::ct::check::rustls_stage(
            self.algs,
            chain,
            &roots.0,
            &target,
            &crate::ct::check::Serial,
            rec,
        )?;
        crate::revocation::rustls_stage(self.algs, chain, &roots.0, &target, rec)
    }
}

/// What both rustls-webpki methods express.
pub(crate) const CAPABILITIES: Capabilities = Capabilities {
    ip_names: true,
    email_names: false,
    no_name: true,
    client_auth: true,
    max_depth: false,
    crls: true,
    // rustls' aws-lc-rs provider lists ML_DSA_44/65/87 (rustls-webpki's aws_lc_rs_algs).
    ml_dsa: true,
    // `--ct`: certbench's SCT check on rustls' provider (`crate::ct::check`).
    ct: crate::checks::CtSupport::Added,
    // `--revocation`: the mechanism it names (`crate::revocation::rustls_stage`).
    revocation: crate::revocation::Support::Rustls,
    mtc: false,
};

/// The arguments of `verify_for_usage` that come from the [`Target`].
pub(crate) struct PathArgs<'p> {
    pub time: UnixTime,
    pub usage: KeyUsage,
    pub revocation: Option<RevocationOptions<'p>>,
}

/// The webpki verification both rustls-webpki methods share. `verify_path` runs inside the
/// `verify` stage and does the path validation (`verify_for_usage`), however the method does
/// it. CRLs are parsed in `chain-creation`.
pub(crate) fn verify_with<'c>(
    chain: &'c Chain,
    target: Target<'_>,
    rec: &mut Recorder,
    verify_path: impl FnOnce(&EndEntityCert<'c>, PathArgs<'_>) -> Result<(), webpki::Error>,
) -> Result<(), Rejection> {
    let span = rec.start();
    let ee = EndEntityCert::try_from(&chain.leaf);
    let crls = target
        .crls
        .iter()
        .map(|der| BorrowedCertRevocationList::from_der(der).map(CertRevocationList::from))
        .collect::<Result<Vec<_>, _>>();
    rec.stop(Stage::ChainCreation, span);
    let ee = ee.map_err(reject)?;
    let crls = crls.map_err(|e| Rejection::new(format!("bad CRL: {e:?}")))?;
    let crl_refs: Vec<&CertRevocationList<'_>> = crls.iter().collect();

    let span = rec.start();
    let args = PathArgs {
        time: UnixTime::since_unix_epoch(Duration::from_secs(target.time_or_now())),
        usage: match target.eku {
            Some(Eku::ClientAuth) => KeyUsage::client_auth(),
            Some(Eku::ServerAuth) | None => KeyUsage::server_auth(),
        },
        revocation: RevocationOptionsBuilder::new(&crl_refs).ok().map(|b| {
            b.with_depth(RevocationCheckDepth::Chain)
                .with_status_policy(UnknownStatusPolicy::Deny)
                .with_expiration_policy(ExpirationPolicy::Enforce)
                .build()
        }),
    };
    let path = verify_path(&ee, args);
    rec.stop(Stage::Verify, span);
    path.map_err(reject)?;

    let name = match target.peer {
        None => return Ok(()),
        Some(PeerName::Dns(host)) => ServerName::try_from(host)
            .map_err(|e| Rejection::new(format!("invalid host name `{host}`: {e}")))?,
        Some(PeerName::Ip(ip)) => ServerName::IpAddress(ip.into()),
        Some(PeerName::Email(_)) => {
            return Err(Rejection::new("rustls-webpki cannot check e-mail names"));
        }
    };
    let span = rec.start();
    let name_ok = ee.verify_is_valid_for_subject_name(&name).map_err(reject);
    rec.stop(Stage::VerifyHostname, span);
    name_ok
}

fn reject(e: webpki::Error) -> Rejection {
    Rejection::new(format!("{e:?}"))
}
