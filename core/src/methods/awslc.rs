//! `awslc`: AWS-LC's `X509_verify_cert`, through `aws-lc-sys` (the library rustls'
//! aws-lc-rs provider is built on), beside the system OpenSSL in the same process.
//!
//! The same policy as the `openssl` method wherever AWS-LC has the knob: this verification's
//! parameters on its own context, `X509_V_FLAG_PARTIAL_CHAIN`, the validation time (or
//! `X509_V_FLAG_NO_CHECK_TIME`), the purpose of the requested EKU, the peer name, the depth
//! limit, CRLs with `CRL_CHECK | CRL_CHECK_ALL`. AWS-LC has no `X509_STRICT` flag (its checks
//! are always the strict ones), never accepts partial wildcards, and has no security levels
//! (OpenSSL's auth level 2 has no counterpart: AWS-LC refuses RSA keys below 1024 bits and MD5
//! signatures itself). Roots: an `X509_STORE`. Chain creation: DER → `X509` per certificate.
//! The name is checked inside `X509_verify_cert` (no separate `verify-hostname` stage).

use std::net::IpAddr;

use certbench_schema::Stage;
use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::error::Error;
use crate::ffi::awslc::{self, Cert, Crl, Name, Params, Store};
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Eku, Library, PeerName, Rejection, Target, Verifier};

/// AWS-LC's `X509_verify_cert`.
#[derive(Clone, Debug, Default)]
pub struct AwsLcVerifier;

/// An AWS-LC trust store.
pub struct AwsLcRoots(pub Store);

impl AwsLcVerifier {
    /// The verification policy, as samples record it (see the module docs).
    pub fn policy(&self) -> String {
        "PARTIAL_CHAIN, purpose sslserver (AWS-LC: always strict, no partial wildcards, no security levels)".to_owned()
    }
}

impl Verifier for AwsLcVerifier {
    type Roots = AwsLcRoots;

    fn library(&self) -> Library {
        Library {
            name: "AWS-LC",
            version: awslc::version(),
            limbo_harness: None,
        }
    }

    /// Everything, ML-DSA included (AWS-LC's `crypto/x509/algorithm.c` checks ML-DSA-44/65/87
    /// signatures in `X509_verify_cert`).
    fn capabilities(&self) -> Capabilities {
        Capabilities::ALL
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<AwsLcRoots, Error> {
        let certs = roots
            .iter()
            .map(|der| Cert::from_der(der))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(AwsLcRoots(Store::new(&certs)?))
    }

    fn verify(
        &self,
        roots: &AwsLcRoots,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        let span = rec.start();
        let leaf = Cert::from_der(&chain.leaf);
        let untrusted = chain
            .intermediates
            .iter()
            .map(|der| Cert::from_der(der))
            .collect::<Result<Vec<_>, _>>();
        let crls = target
            .crls
            .iter()
            .map(|der| Crl::from_der(der))
            .collect::<Result<Vec<_>, _>>();
        rec.stop(Stage::ChainCreation, span);
        let bad = |what: &str, e: awslc::AwsLcError| Rejection::new(format!("bad {what}: {e}"));
        let leaf = leaf.map_err(|e| bad("chain", e))?;
        let untrusted = untrusted.map_err(|e| bad("chain", e))?;
        let crls = crls.map_err(|e| bad("CRL", e))?;

        let time = match target.time {
            Some(t) => Some(
                i64::try_from(t)
                    .map_err(|_| Rejection::new(format!("validation time {t} out of range")))?,
            ),
            None => None,
        };
        let ip = match target.peer {
            Some(PeerName::Ip(IpAddr::V4(a))) => a.octets().to_vec(),
            Some(PeerName::Ip(IpAddr::V6(a))) => a.octets().to_vec(),
            _ => Vec::new(),
        };
        let params = Params {
            time,
            purpose: target.eku.map(|eku| match eku {
                Eku::ServerAuth => awslc::SSL_SERVER,
                Eku::ClientAuth => awslc::SSL_CLIENT,
            }),
            name: target.peer.map(|p| match p {
                PeerName::Dns(host) => Name::Dns(host),
                PeerName::Ip(_) => Name::Ip(&ip),
                PeerName::Email(email) => Name::Email(email),
            }),
            depth: target
                .max_depth
                .map(|d| i32::try_from(d).unwrap_or(i32::MAX)),
        };
        let span = rec.start();
        let verdict = awslc::verify(&roots.0, &leaf, &untrusted, &crls, &params);
        rec.stop(Stage::Verify, span);
        match verdict {
            Ok(Ok(())) => Ok(()),
            Ok(Err(refusal)) => Err(Rejection::new(format!(
                "{} (depth {})",
                refusal.reason, refusal.depth
            ))),
            Err(e) => Err(Rejection::new(format!("AWS-LC error: {e}"))),
        }
    }
}
