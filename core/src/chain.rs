//! Certificate chains as the server sent them (DER, leaf first) and loading them from PEM.
//! Reading a certificate's DER (its signed parts, its key type) is [`crate::der`].

use std::path::Path;

use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;

use crate::der::{SignedParts, key_type};
use crate::error::Error;

/// A server's chain: the end-entity certificate and the other certificates it sent, in order.
///
/// Invariant: every certificate parsed as DER X.509 when loaded through this module (a
/// `Chain` built by hand may hold anything: verifiers must reject, never panic).
#[derive(Clone, Debug)]
pub struct Chain {
    /// The end-entity (leaf) certificate.
    pub leaf: CertificateDer<'static>,
    /// The other certificates as sent (may include cross-signs the shortest path does not need).
    pub intermediates: Vec<CertificateDer<'static>>,
}

impl Chain {
    /// Number of certificates sent (leaf + intermediates).
    pub fn len(&self) -> usize {
        1 + self.intermediates.len()
    }

    /// Always false: a chain has a leaf.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Leaf first, then intermediates.
    pub fn iter(&self) -> impl Iterator<Item = &CertificateDer<'static>> {
        std::iter::once(&self.leaf).chain(self.intermediates.iter())
    }

    /// Key type of every certificate, leaf first (see [`key_type`]).
    pub fn key_types(&self) -> Vec<String> {
        self.iter().map(|c| key_type(c)).collect()
    }
}

/// Reads every certificate of a PEM file. Each certificate must be DER X.509; a file without
/// any certificate gives an empty list. Errors name the file.
pub fn read_pem_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, Error> {
    let bytes = std::fs::read(path).map_err(|cause| Error::Io {
        path: path.to_owned(),
        cause,
    })?;
    let mut certs = Vec::new();
    for (i, item) in CertificateDer::pem_slice_iter(&bytes).enumerate() {
        let cert = item.map_err(|e| Error::Pem {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        SignedParts::parse(&cert).map_err(|cause| Error::BadDer {
            path: path.to_owned(),
            index: i + 1,
            cause,
        })?;
        certs.push(cert);
    }
    Ok(certs)
}

/// Like [`read_pem_certs`], but a file without any certificate is an error.
pub fn read_pem_certs_nonempty(path: &Path) -> Result<Vec<CertificateDer<'static>>, Error> {
    let certs = read_pem_certs(path)?;
    if certs.is_empty() {
        return Err(Error::NoCertificate {
            path: path.to_owned(),
        });
    }
    Ok(certs)
}

/// Loads a chain folder: `leaf.pem` (one certificate) and optional `intermediates.pem`, or
/// `chain.pem` (leaf first).
pub fn load_chain_dir(dir: &Path) -> Result<Chain, Error> {
    let leaf_path = dir.join("leaf.pem");
    let chain_path = dir.join("chain.pem");
    if leaf_path.exists() {
        let mut leaf = read_pem_certs_nonempty(&leaf_path)?;
        if leaf.len() != 1 {
            return Err(Error::TooManyLeaves {
                path: leaf_path,
                count: leaf.len(),
            });
        }
        let inter_path = dir.join("intermediates.pem");
        let intermediates = if inter_path.exists() {
            read_pem_certs(&inter_path)?
        } else {
            Vec::new()
        };
        Ok(Chain {
            leaf: leaf.remove(0),
            intermediates,
        })
    } else if chain_path.exists() {
        let mut certs = read_pem_certs_nonempty(&chain_path)?;
        let leaf = certs.remove(0);
        Ok(Chain {
            leaf,
            intermediates: certs,
        })
    } else {
        Err(Error::EmptyChain {
            dir: dir.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junk_is_rejected_with_the_file_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("junk.pem");
        std::fs::write(
            &p,
            "-----BEGIN CERTIFICATE-----\nAAECAwQF\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        let e = read_pem_certs(&p).unwrap_err().to_string();
        assert!(e.contains("junk.pem") && e.contains("not DER X.509"), "{e}");
        std::fs::write(&p, "hello, I am not PEM\n").unwrap();
        let e = read_pem_certs_nonempty(&p).unwrap_err().to_string();
        assert!(
            e.contains("junk.pem") && e.contains("no certificate"),
            "{e}"
        );
    }
}
