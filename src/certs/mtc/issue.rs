//! certbench's Merkle Tree CA (draft-ietf-plants-merkle-tree-certs-07 §5, §6): it issues a
//! batch of certificates into one issuance log ([`super::log`]), allocates a landmark after
//! them, and gives each certificate in both forms the draft defines: *landmark-relative*
//! (signatureless: the inclusion proof up to a landmark subtree, no signatures) and
//! *standalone* (the same proof, with the ML-DSA-44 cosignatures over the subtree of the CA's
//! cosigner and of a mirror's: the two Chrome requires), and the standalone certificate with
//! the CA's cosignature alone, as a single-cosigner CA of draft -07 issues it (which Chrome's
//! rule rejects).
//! The relying party's side is its CA certificate (§5.5), carrying the landmark subtrees in
//! certbench's own extension (the draft leaves their distribution out of band).
//!
//! Each certificate copies a template X.509 certificate (a real leaf, or the mirror's clone of
//! one): its subject, validity and extensions, but with the CA ID as issuer, the serial
//! `(log_number << 48) | index`, `id-alg-mtcProof` as signature algorithm, a fresh ML-DSA-44
//! key (so TLS's CertificateVerify is ML-DSA-44), and without the extensions that name an
//! issuer key or a signed chain (authority and subject key identifiers, AIA, CRL distribution
//! points) or that an MTC replaces (the SCT list: the log is the transparency); a key usage
//! loses what RFC 9881 §5 forbids an ML-DSA key.
//!
//! Invariants: the CA ID is RFC 5612's example arc 32473.1 (the draft's own example), never a
//! real CA's; what cannot be made is an [`MtcIssueError`], not a panic.

use der::asn1::{ObjectIdentifier, OctetString};
use der::{Decode, Encode};
use rcgen::{KeyPair, PublicKeyData, SigningKey};
use rustls_pki_types::CertificateDer;
use x509_cert::certificate::Certificate;
use x509_cert::ext::Extension;
use x509_cert::spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};

use super::encode::{V3, extensions_der, signed, tbs_der};
use super::log::{ENTRIES_PER_LANDMARK, IssuanceLog};
use certbench_core::mtc::cert::{
    MtcCert, MtcProof, SubtreeSignature, ca_id_name, cosigned_message,
};
use certbench_core::mtc::trust::TrustedSubtree;

pub use super::ca_cert::{CA_ID, MIRROR_ID};

/// Landmarks allocated before the batch's: its interval starts at this many times
/// [`ENTRIES_PER_LANDMARK`], as in a log some days old.
const LANDMARKS_BEFORE: u64 = 100;

/// Why a batch cannot be issued.
#[derive(Debug, thiserror::Error)]
pub enum MtcIssueError {
    /// A template certificate that does not read.
    #[error("template certificate {index}: {message}")]
    Template {
        /// Its position in the batch.
        index: usize,
        /// What went wrong.
        message: String,
    },
    /// Encoding a certificate failed.
    #[error("DER: {0}")]
    Der(String),
    /// rcgen failed (a key, a signature).
    #[error("rcgen: {0}")]
    Rcgen(#[from] rcgen::Error),
    /// An issued certificate that certbench's own reader rejects (a bug, said as one).
    #[error("issued certificate does not read: {0}")]
    Reread(#[from] certbench_core::mtc::MtcError),
    /// A batch too large for one landmark interval.
    #[error("a batch of {0} certificates exceeds a landmark interval")]
    TooLarge(usize),
}

impl From<der::Error> for MtcIssueError {
    fn from(e: der::Error) -> MtcIssueError {
        MtcIssueError::Der(e.to_string())
    }
}

/// One certificate, issued.
pub struct IssuedMtc {
    /// The landmark-relative (signatureless) certificate.
    pub landmark_relative: CertificateDer<'static>,
    /// The standalone certificate: the same subtree, with the CA's and the mirror's
    /// cosignatures.
    pub standalone: CertificateDer<'static>,
    /// The standalone certificate with the CA's cosignature alone.
    pub standalone_ca_only: CertificateDer<'static>,
    /// The leaf's ML-DSA-44 key, PKCS#8 DER.
    pub key_pkcs8: Vec<u8>,
    /// Its entry's index in the log.
    pub index: u64,
    /// The subtree its proof is for.
    pub subtree: (u64, u64),
}

/// A batch issued: the certificates, and what a relying party trusts.
pub struct MtcBatch {
    /// The certificates, in the templates' order.
    pub leaves: Vec<IssuedMtc>,
    /// The CA certificate with the landmark's subtrees: a client up to date.
    pub ca_certificate: CertificateDer<'static>,
    /// The CA certificate without them: a client that does not hold the landmark (it takes
    /// standalone certificates only).
    pub ca_certificate_without_landmarks: CertificateDer<'static>,
    /// The landmark's subtrees with their hashes.
    pub subtrees: Vec<TrustedSubtree>,
    /// The CA cosigner's SubjectPublicKeyInfo DER (ML-DSA-44).
    pub cosigner_spki: Vec<u8>,
    /// The mirror cosigner's SubjectPublicKeyInfo DER (ML-DSA-44).
    pub mirror_spki: Vec<u8>,
}

/// Issues one certificate per template into a new log of the CA, then a landmark.
pub fn issue(templates: &[&[u8]]) -> Result<MtcBatch, MtcIssueError> {
    let n = templates.len() as u64;
    if n > ENTRIES_PER_LANDMARK / 2 {
        return Err(MtcIssueError::TooLarge(templates.len()));
    }
    // The batch in the middle of the landmark's interval, among the CA's other issuance.
    let last_landmark = LANDMARKS_BEFORE * ENTRIES_PER_LANDMARK;
    let mut log = IssuanceLog::new(1, last_landmark, last_landmark + ENTRIES_PER_LANDMARK / 2);
    let cosigner = KeyPair::generate_for(&rcgen::PKCS_ML_DSA_44)?;
    let mirror = KeyPair::generate_for(&rcgen::PKCS_ML_DSA_44)?;
    let mut pending = Vec::new();
    for (i, template) in templates.iter().enumerate() {
        let key = KeyPair::generate_for(&rcgen::PKCS_ML_DSA_44)?;
        let serial = (u64::from(log.log_number) << 48) | log.size();
        let tbs = tbs_from_template(template, serial, &key)
            .map_err(|message| MtcIssueError::Template { index: i, message })?;
        let unproven = encode(&tbs, &MtcProof::empty())?;
        let entry_hash = MtcCert::parse(&unproven)?.entry_hash;
        let index = log
            .append(entry_hash)
            .expect("no padding after the batch yet");
        pending.push((tbs, key, index));
    }
    log.pad_to(last_landmark + ENTRIES_PER_LANDMARK);
    let covering = log.allocate_landmark();
    let subtrees: Vec<TrustedSubtree> = covering
        .iter()
        .filter(|(s, e)| s < e)
        .filter_map(|&(start, end)| {
            Some(TrustedSubtree {
                log_number: log.log_number,
                start,
                end,
                hash: log.subtree_hash(start, end)?,
            })
        })
        .collect();
    let mut leaves = Vec::new();
    for (tbs, key, index) in pending {
        let s = subtrees
            .iter()
            .find(|s| s.start <= index && index < s.end)
            .expect("the landmark's subtrees cover its interval");
        let inclusion = log
            .inclusion_proof(index, s.start, s.end)
            .expect("the entry is in its subtree");
        let message = cosigned_message(CA_ID, CA_ID, log.log_number, s.start, s.end, &s.hash);
        let signature = cosigner.sign(&message)?;
        let message = cosigned_message(MIRROR_ID, CA_ID, log.log_number, s.start, s.end, &s.hash);
        let mirror_signature = mirror.sign(&message)?;
        let mut proof = MtcProof {
            extensions: &[],
            start: s.start,
            end: s.end,
            inclusion,
            signatures: vec![],
        };
        let landmark_relative = encode(&tbs, &proof)?;
        proof.signatures = vec![SubtreeSignature {
            cosigner_id: CA_ID,
            signature: &signature,
        }];
        let standalone_ca_only = encode(&tbs, &proof)?;
        // In §6.1's order: the CA's ID sorts before the mirror's.
        proof.signatures.push(SubtreeSignature {
            cosigner_id: MIRROR_ID,
            signature: &mirror_signature,
        });
        let standalone = encode(&tbs, &proof)?;
        leaves.push(IssuedMtc {
            landmark_relative: CertificateDer::from(landmark_relative),
            standalone: CertificateDer::from(standalone),
            standalone_ca_only: CertificateDer::from(standalone_ca_only),
            key_pkcs8: key.serialize_der(),
            index,
            subtree: (s.start, s.end),
        });
    }
    let (cosigner_spki, mirror_spki) = (
        cosigner.subject_public_key_info(),
        mirror.subject_public_key_info(),
    );
    let ca_cert = |subtrees| super::ca_cert::ca_certificate(&cosigner_spki, &mirror_spki, subtrees);
    Ok(MtcBatch {
        leaves,
        ca_certificate: ca_cert(&subtrees)?,
        ca_certificate_without_landmarks: ca_cert(&[])?,
        subtrees,
        cosigner_spki,
        mirror_spki,
    })
}

/// `id-alg-mtcProof` as an AlgorithmIdentifier, parameters absent.
pub(super) fn mtc_proof_alg() -> AlgorithmIdentifierOwned {
    AlgorithmIdentifierOwned {
        oid: ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.6.67"),
        parameters: None,
    }
}

/// Extensions an MTC leaf does not copy: subject and authority key identifiers, AIA, CRL
/// distribution points, the SCT list.
const DROPPED: &[&str] = &[
    "2.5.29.14",
    "2.5.29.35",
    "1.3.6.1.5.5.7.1.1",
    "2.5.29.31",
    "1.3.6.1.4.1.11129.2.4.2",
];

fn tbs_from_template(der: &[u8], serial: u64, key: &KeyPair) -> Result<Vec<u8>, String> {
    let t = Certificate::from_der(der)
        .map_err(|e| e.to_string())?
        .tbs_certificate;
    let spki = SubjectPublicKeyInfoOwned::from_der(&key.subject_public_key_info())
        .map_err(|e| e.to_string())?;
    let mut extensions = Vec::new();
    for ext in t.extensions.into_iter().flatten() {
        let id = ext.extn_id.to_string();
        if DROPPED.contains(&id.as_str()) {
            continue;
        }
        if id == "2.5.29.15" {
            let value = crate::certs::key::key_usage_for_ml_dsa(ext.extn_value.as_bytes());
            extensions.push(Extension {
                extn_value: OctetString::new(value).map_err(|e| e.to_string())?,
                ..ext
            });
        } else {
            extensions.push(ext);
        }
    }
    let mut serial_der = Vec::new();
    let contents = certbench_core::mtc::trust::uint_contents(serial);
    certbench_core::der::push_tlv(&mut serial_der, 0x02, &contents);
    let e = |r: Result<Vec<u8>, der::Error>| r.map_err(|e| e.to_string());
    Ok(tbs_der(&[
        V3,
        &serial_der,
        &e(mtc_proof_alg().to_der())?,
        &ca_id_name(CA_ID),
        &e(t.validity.to_der())?,
        &e(t.subject.to_der())?,
        &e(spki.to_der())?,
        &e(extensions_der(&extensions))?,
    ]))
}

/// The certificate: `tbs`, `id-alg-mtcProof`, the proof as its signature value.
fn encode(tbs: &[u8], proof: &MtcProof<'_>) -> Result<Vec<u8>, MtcIssueError> {
    Ok(signed(tbs, &mtc_proof_alg().to_der()?, &proof.encode()))
}
