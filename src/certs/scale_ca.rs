//! `certbench revocation-scale`'s certificates: one CA (ECDSA P-256) and the two leaves it
//! issues, `good` and `revoked`, each with one SCT (a day older than the CA) from a test log
//! of its own, so that every data set covers both leaves and every check's verdict can be
//! checked. The CRLs of every size are signed by this CA ([`ScaleCa::signer`]).
//!
//! Invariant: the CA never expires while its cache is kept (rcgen's default validity, 1975 to
//! 4096), so data made once is measured for as long as it stays in the cache; `made_at` is
//! when it was made, the time every check runs at. Kept on disk by the command
//! (`crate::revocation::scale`), its key as PKCS#8 PEM ([`ScaleCa::key_pem`]).

use rcgen::{CertificateParams, Issuer, KeyPair, SerialNumber};
use rustls_pki_types::CertificateDer;

use super::ca::{self, GenError, Signs};
use super::ct::{CtError, MirrorLog, SctSpec, issue_with_scts};

/// The CA's common name.
pub const NAME: &str = "certbench revocation-scale CA";
/// The leaves' serials (16 octets, positive; synthetic serials never collide with them).
pub const GOOD_SERIAL: &[u8; 16] = b"certbench good 1";
/// The revoked leaf's serial.
pub const REVOKED_SERIAL: &[u8; 16] = b"certbench revokd";

/// Why the CA or its leaves could not be made (the generator's own message).
#[derive(Debug, thiserror::Error)]
pub enum ScaleCaError {
    /// A key, a certificate or an issuer.
    #[error(transparent)]
    Generate(#[from] rcgen::Error),
    /// The test log, or a leaf's SCT.
    #[error(transparent)]
    Ct(#[from] CtError),
}

/// The CA and its two leaves.
pub struct ScaleCa {
    key: KeyPair,
    /// The CA's certificate.
    pub der: Vec<u8>,
    /// The leaf no data set revokes.
    pub good: Vec<u8>,
    /// The leaf every data set revokes.
    pub revoked: Vec<u8>,
    /// When it was made (Unix seconds).
    pub made_at: u64,
}

/// The CA's parameters: [`NAME`], signing certificates, CRLs and responses, never expiring.
fn ca_params() -> CertificateParams {
    let (from, to) = ca::forever();
    ca::params(ca::common_name(NAME), Signs::AlsoResponses, from, to)
}

impl ScaleCa {
    /// A new CA made at `made_at`, its leaves each with one SCT (a day old) from a new test
    /// log.
    pub fn make(made_at: u64) -> Result<ScaleCa, ScaleCaError> {
        let key = KeyPair::generate()?;
        let params = ca_params();
        let der = params.self_signed(&key)?.der().to_vec();
        let issuer = Issuer::new(params, &key);
        let log = MirrorLog::generate("certbench revocation-scale log", "certbench")?;
        let spec = SctSpec {
            log: &log,
            timestamp_ms: (made_at - 86_400) * 1000,
            extensions: vec![],
            corrupt_signature: false,
        };
        let leaf = |name: &str, serial: &[u8]| -> Result<Vec<u8>, ScaleCaError> {
            let mut p = CertificateParams::new(vec![format!("{name}.revocation-scale.example")])?;
            p.serial_number = Some(SerialNumber::from_slice(serial));
            let k = KeyPair::generate()?;
            let cert = issue_with_scts(&p, &k, &issuer, std::slice::from_ref(&spec))?;
            Ok(cert.der().to_vec())
        };
        Ok(ScaleCa {
            good: leaf("good", GOOD_SERIAL)?,
            revoked: leaf("revoked", REVOKED_SERIAL)?,
            key,
            der,
            made_at,
        })
    }

    /// The CA as it was kept: its key's PEM ([`Self::key_pem`]), its certificate, its leaves
    /// and when it was made; `None` when the key does not load.
    pub fn from_parts(
        key_pem: &str,
        der: Vec<u8>,
        good: Vec<u8>,
        revoked: Vec<u8>,
        made_at: u64,
    ) -> Option<ScaleCa> {
        Some(ScaleCa {
            key: KeyPair::from_pem(key_pem).ok()?,
            der,
            good,
            revoked,
            made_at,
        })
    }

    /// The CA's key, PKCS#8 PEM.
    pub fn key_pem(&self) -> String {
        self.key.serialize_pem()
    }

    /// The CA as the signer of a CRL ([`super::crl`]).
    pub fn signer(&self) -> Result<Issuer<'static, &KeyPair>, GenError> {
        Ok(Issuer::from_ca_cert_der(
            &CertificateDer::from(&self.der[..]),
            &self.key,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_leaves_are_the_cas_and_it_reloads_from_its_parts() {
        let ca = ScaleCa::make(1_750_000_000).unwrap();
        for (leaf, serial) in [(&ca.good, GOOD_SERIAL), (&ca.revoked, REVOKED_SERIAL)] {
            assert_eq!(certbench_core::der::serial(leaf), Some(&serial[..]));
            let subject = certbench_core::der::SignedParts::parse(&ca.der)
                .unwrap()
                .subject;
            assert_eq!(certbench_core::der::issuer(leaf), Some(subject));
        }
        let again = ScaleCa::from_parts(
            &ca.key_pem(),
            ca.der.clone(),
            ca.good.clone(),
            ca.revoked.clone(),
            ca.made_at,
        )
        .unwrap();
        assert_eq!(again.key_pem(), ca.key_pem());
        assert!(again.signer().is_ok());
        assert!(ScaleCa::from_parts("not a key", vec![], vec![], vec![], 0).is_none());
    }
}
