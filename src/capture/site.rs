//! One site's chain captured: the handshake with a verifier that records what the server sent
//! and verifies it as a browser would ([`capture`]), and the chains written in the corpus
//! layout with their manifest ([`write`]).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::{DigitallySignedStruct, SignatureScheme};
use rustls_pki_types::{CertificateDer, ServerName, TrustAnchor, UnixTime};
use serde::Serialize;
use sha2::{Digest, Sha256};
use x509_parser::prelude::{FromDer, X509Certificate};

use crate::sites::Site;
use crate::transport::Failure;
use certbench_core::roots::RootSet;

/// A site's chain as captured.
#[derive(Clone, Debug)]
pub struct Captured {
    /// The site.
    pub site: Site,
    /// The end-entity certificate.
    pub leaf: CertificateDer<'static>,
    /// What the server sent after it, in its order.
    pub intermediates: Vec<CertificateDer<'static>>,
    /// The trust anchor the verified path ended at, from the trust roots.
    pub root: CertificateDer<'static>,
    /// When, seconds since the Unix epoch (the chain's validation time).
    pub at: u64,
    /// Certificates on the verified path, the anchor included.
    pub path_len: usize,
}

/// Why a site could not be captured.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// Connecting or the handshake failed, or the chain did not verify.
    #[error("{0}")]
    Connection(#[from] Failure),
    /// The chain verified but its anchor is not among the roots' certificates (cannot happen
    /// with certificate roots; kept rather than assumed).
    #[error("the verified path's trust anchor is not one of the trust roots")]
    NoRoot,
    /// Writing the capture failed.
    #[error("writing {path}: {cause}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS's reason.
        cause: std::io::Error,
    },
}

/// What the recording verifier saw and decided.
#[derive(Default)]
struct Seen {
    chain: Option<(CertificateDer<'static>, Vec<CertificateDer<'static>>)>,
    anchor: Option<usize>,
    /// Intermediates on the verified path (the sent ones may include extras).
    path_intermediates: usize,
}

/// A rustls verifier that verifies with rustls-webpki and records the chain and the anchor.
struct Recording {
    roots: Vec<CertificateDer<'static>>,
    anchors: Vec<TrustAnchor<'static>>,
    provider: Arc<CryptoProvider>,
    seen: Mutex<Seen>,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording")
            .field("anchors", &self.anchors.len())
            .finish()
    }
}

impl Recording {
    fn new(roots: &RootSet) -> Recording {
        let (roots, anchors): (Vec<_>, Vec<_>) = roots
            .certs()
            .iter()
            .filter_map(|der| {
                let anchor = webpki::anchor_from_trusted_cert(der).ok()?.to_owned();
                Some((der.clone(), anchor))
            })
            .unzip();
        Recording {
            roots,
            anchors,
            provider: certbench_core::methods::webpki_server::provider(),
            seen: Mutex::new(Seen::default()),
        }
    }
}

impl ServerCertVerifier for Recording {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.chain = Some((
            end_entity.clone().into_owned(),
            intermediates
                .iter()
                .map(|c| c.clone().into_owned())
                .collect(),
        ));
        let cert = webpki::EndEntityCert::try_from(end_entity)
            .map_err(|e| rustls::Error::General(format!("leaf: {e}")))?;
        let path = cert
            .verify_for_usage(
                self.provider.signature_verification_algorithms.all,
                &self.anchors,
                intermediates,
                now,
                webpki::KeyUsage::server_auth(),
                None,
                None,
            )
            .map_err(|e| rustls::Error::General(format!("{e:?}")))?;
        cert.verify_is_valid_for_subject_name(server_name)
            .map_err(|e| rustls::Error::General(format!("{e:?}")))?;
        seen.path_intermediates = path.intermediate_certificates().count();
        seen.anchor = self
            .anchors
            .iter()
            .position(|a| std::ptr::eq(a, path.anchor()));
        Ok(ServerCertVerified::assertion())
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
}

/// Connects to `site` (at `addr` instead of its resolved address, if given), verifies its
/// chain against `roots` now and returns it with its anchor, within `timeout`.
pub async fn capture(
    site: &Site,
    addr: Option<SocketAddr>,
    roots: &RootSet,
    timeout: Duration,
) -> Result<Captured, CaptureError> {
    let recording = Arc::new(Recording::new(roots));
    let config = crate::transport::rustls::client_config(recording.clone(), None)
        .map_err(|e| Failure::Input(e.to_string()))?;
    let name = ServerName::try_from(site.host.clone())
        .map_err(|e| Failure::Input(format!("{}: {e}", site.host)))?;
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let connect = async {
        let tcp = crate::transport::tcp(&site.host, site.port, addr).await?;
        tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(name, tcp)
            .await
            .map_err(|e| {
                let rejected = recording
                    .seen
                    .lock()
                    .map(|s| s.chain.is_some())
                    .unwrap_or(false);
                // A chain was received: the failure is the verdict on it.
                if rejected && e.get_ref().is_some() {
                    Failure::Rejected(e.to_string())
                } else {
                    Failure::TlsHandshake(e.to_string())
                }
            })
    };
    let tls = tokio::time::timeout(timeout, connect)
        .await
        .map_err(|_| Failure::Timeout(timeout))??;
    drop(tls);
    let seen = std::mem::take(&mut *recording.seen.lock().unwrap_or_else(|e| e.into_inner()));
    let ((leaf, intermediates), anchor) = match (seen.chain, seen.anchor) {
        (Some(chain), Some(anchor)) => (chain, anchor),
        _ => return Err(CaptureError::NoRoot),
    };
    Ok(Captured {
        site: site.clone(),
        leaf,
        intermediates,
        root: recording.roots[anchor].clone(),
        at,
        path_len: seen.path_intermediates + 2,
    })
}

/// One certificate in the manifest.
#[derive(Serialize)]
struct ManifestCert {
    role: String,
    subject: String,
    issuer: String,
    key: String,
    signature_algorithm: String,
    not_before: String,
    not_after: String,
    sha256: String,
}

/// One chain in the manifest (the fields [`certbench_core::corpus::Corpus::load`] reads, and what a
/// reader needs to know where it came from).
#[derive(Serialize)]
struct ManifestChain {
    dir: String,
    host: String,
    validation_time: String,
    validation_time_unix: u64,
    chain_length_served: usize,
    path_length_with_root: usize,
    leaf_key: String,
    root_source: String,
    certs: Vec<ManifestCert>,
    source: ManifestSource,
}

#[derive(Serialize)]
struct ManifestSource {
    captured_from: String,
    address: Option<String>,
    short: &'static str,
}

#[derive(Serialize)]
struct Manifest {
    description: &'static str,
    count: usize,
    chains: Vec<ManifestChain>,
}

fn rfc3339(unix: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(unix)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

fn describe(role: String, der: &CertificateDer<'_>) -> ManifestCert {
    let sha256 = Sha256::digest(der.as_ref())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let key = certbench_core::der::key_type(der);
    match X509Certificate::from_der(der) {
        Ok((_, x)) => ManifestCert {
            role,
            subject: x.subject().to_string(),
            issuer: x.issuer().to_string(),
            key,
            signature_algorithm: x509_parser::objects::oid2sn(
                &x.signature_algorithm.algorithm,
                x509_parser::objects::oid_registry(),
            )
            .map(str::to_owned)
            .unwrap_or_else(|_| x.signature_algorithm.algorithm.to_id_string()),
            not_before: rfc3339(x.validity().not_before.timestamp()),
            not_after: rfc3339(x.validity().not_after.timestamp()),
            sha256,
        },
        Err(_) => ManifestCert {
            role,
            subject: String::new(),
            issuer: String::new(),
            key,
            signature_algorithm: String::new(),
            not_before: String::new(),
            not_after: String::new(),
            sha256,
        },
    }
}

fn pem(certs: &[&CertificateDer<'_>]) -> String {
    let blocks: Vec<pem::Pem> = certs
        .iter()
        .map(|c| pem::Pem::new("CERTIFICATE", c.to_vec()))
        .collect();
    pem::encode_many(&blocks)
}

/// The folder name of a capture: `<host>__capture` (`<host>_<port>__capture` off 443).
pub fn folder(site: &Site) -> String {
    let host = site.host.replace([':', '/', '\\'], "_");
    if site.port == 443 {
        format!("{host}__capture")
    } else {
        format!("{host}_{}__capture", site.port)
    }
}

/// Writes `captured` into `dir` in the corpus layout, with `manifest.json`; `roots` names
/// the trust store the anchors came from, `addr` where each site was reached (the mirror).
pub fn write(
    dir: &Path,
    captured: &[(Captured, Option<SocketAddr>)],
    roots: &RootSet,
) -> Result<(), CaptureError> {
    let write = |path: PathBuf, text: String| {
        std::fs::write(&path, text).map_err(|cause| CaptureError::Write { path, cause })
    };
    std::fs::create_dir_all(dir).map_err(|cause| CaptureError::Write {
        path: dir.to_owned(),
        cause,
    })?;
    let mut chains = Vec::new();
    for (c, addr) in captured {
        let name = folder(&c.site);
        let sub = dir.join(&name);
        std::fs::create_dir_all(&sub).map_err(|cause| CaptureError::Write {
            path: sub.clone(),
            cause,
        })?;
        let sent: Vec<&CertificateDer<'_>> = c.intermediates.iter().collect();
        let mut whole = vec![&c.leaf];
        whole.extend(&sent);
        write(sub.join("leaf.pem"), pem(&[&c.leaf]))?;
        write(sub.join("intermediates.pem"), pem(&sent))?;
        write(sub.join("root.pem"), pem(&[&c.root]))?;
        write(sub.join("chain.pem"), pem(&whole))?;
        let mut certs = vec![describe("leaf".into(), &c.leaf)];
        certs.extend(
            c.intermediates
                .iter()
                .enumerate()
                .map(|(i, der)| describe(format!("intermediate[{i}]"), der)),
        );
        certs.push(describe("root".into(), &c.root));
        chains.push(ManifestChain {
            dir: name,
            host: c.site.host.clone(),
            validation_time: rfc3339(c.at as i64),
            validation_time_unix: c.at,
            chain_length_served: 1 + c.intermediates.len(),
            path_length_with_root: c.path_len,
            leaf_key: certbench_core::der::key_type(&c.leaf),
            root_source: format!("trust store {}", roots.describe()),
            certs,
            source: ManifestSource {
                captured_from: c.site.authority(),
                address: addr.map(|a| a.to_string()),
                short: "capture",
            },
        });
    }
    let manifest = Manifest {
        description: "TLS server chains captured by `certbench capture` (leaf first), with the validation time of the capture. Files per dir: leaf.pem, intermediates.pem (as sent), root.pem (the trust anchor the verified path ended at), chain.pem (leaf + intermediates as sent).",
        count: chains.len(),
        chains,
    };
    let text = serde_json::to_string_pretty(&manifest).expect("manifest serializes") + "\n";
    write(dir.join("manifest.json"), text)
}
