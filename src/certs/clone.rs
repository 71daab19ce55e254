//! Cloning a real chain: same shape, fresh keys, under a local root.
//!
//! A clone keeps, per certificate: the key type and size, the subject (CA names get a
//! ` (certbench mirror)` suffix so that a clone never shares a name with the real CA it
//! copies, which would send path building to the wrong key: [`super::clone_name`]), the
//! serial number, the validity span, and every extension byte for byte with its criticality
//! (subject alternative names, basic constraints, key usage, EKU, policies, AIA, CRL
//! distribution points, name constraints, …). Only the key identifiers are new: the subject
//! key identifier is computed from the new key and the authority key identifier from the new
//! issuer's key.
//! Validity windows are shifted by one offset per chain so that the corpus validation time
//! falls on `now`.
//!
//! SCTs: a leaf's SCT list extension (1.3.6.1.4.1.11129.2.4.2) is replaced, in place, by as
//! many SCTs from the mirror's own CT logs, the i-th from the mirror of the real i-th SCT's
//! log, signed over the clone's precertificate, its timestamp shifted as the validity is (see
//! [`crate::certs::ct`]); an SCT the mirror cannot reproduce (not v1 ECDSA P-256 SHA-256) fails the
//! chain's clone. Intermediates and roots never carry SCTs (a CA's SCT list is left out).
//!
//! A v1 certificate (an old root such as netflix.com's VeriSign root) is cloned as a v3 CA with
//! basic constraints, since rcgen writes only v3.
//!
//! Signatures are made by the issuer clone's key with rcgen's algorithm for that key type
//! (RSA: sha256WithRSAEncryption; P-256: ecdsa-with-SHA256; P-384: ecdsa-with-SHA384), so a
//! chain whose real CA signed with another hash is cloned with this one.
//!
//! With a post-quantum [`Profile`] the clone is the chain's *twin*: every key (and the
//! stand-in issuers') is the profile's ML-DSA key for its role, leaf or CA, and a key usage
//! loses the bits RFC 9881 §5 forbids an ML-DSA key (keyEncipherment, dataEncipherment,
//! keyAgreement, encipherOnly, decipherOnly; digitalSignature is set if nothing is left).
//! Everything else is as above, SCTs included: from P-256 logs, or, in the `pq-scts` scenario,
//! from logs with ML-DSA-44 keys (the cloner's [`CtLogs`] decide). A twin set of another
//! scenario than the twins' first (classical SCTs, as served) names its CAs with the scenario
//! too ([`super::clone_name::set_suffix`]); the trimmed chain itself is chosen in
//! [`super::trim`].

use std::collections::HashMap;

use rcgen::{
    CertificateParams, CustomExtension, IsCa, Issuer, KeyPair, RsaKeySize, SerialNumber,
    SignatureAlgorithm,
};
use rustls_pki_types::CertificateDer;
use sha2::{Digest, Sha256};
use x509_parser::prelude::{FromDer, X509Certificate};

use super::clone_name::{
    ca_suffix, is_ca, is_v1, issuer_name, issuer_of, issuer_params, set_suffix, subject,
};
use super::ct::{self, CtError, CtLogs};
use super::key;

pub use super::clone_name::CA_SUFFIX;
use crate::pq::Profile;
use crate::pq::scenario::TwinSet;

/// OIDs rcgen writes itself (never copied): subjectKeyIdentifier, authorityKeyIdentifier.
const SKI: &[u64] = &[2, 5, 29, 14];
const AKI: &[u64] = &[2, 5, 29, 35];
/// keyUsage, rewritten for an ML-DSA key.
const KEY_USAGE: &[u64] = &[2, 5, 29, 15];

/// Errors while cloning.
#[derive(Debug, thiserror::Error)]
pub enum CloneError {
    /// A certificate x509-parser cannot read.
    #[error("cannot parse certificate {index}: {message}")]
    Parse {
        /// Position in the chain (0 = leaf).
        index: usize,
        /// Parser message.
        message: String,
    },
    /// A key type rcgen cannot generate.
    #[error("unsupported key type {0}")]
    KeyType(String),
    /// rcgen failed.
    #[error("rcgen: {0}")]
    Rcgen(#[from] rcgen::Error),
    /// The leaf's SCTs could not be read or minted.
    #[error("SCTs: {0}")]
    Ct(#[from] CtError),
}

/// A generated certificate with its key.
pub struct Cloned {
    /// The certificate.
    pub der: CertificateDer<'static>,
    /// Its private key (PKCS#8 DER).
    pub key: KeyPair,
}

/// The clone's key for `spki_cert`: the profile's ML-DSA key for its role, or (classical) a
/// key of the same type and size, with the rcgen algorithm each signs with.
fn new_key(spki_cert: &X509Certificate<'_>, profile: Profile) -> Result<KeyPair, CloneError> {
    let ca = is_ca(spki_cert) || is_v1(spki_cert);
    if let Some(alg) = key::algorithm(profile, ca) {
        return Ok(KeyPair::generate_for(alg)?);
    }
    let label = certbench_core::der::key_type(spki_cert.as_ref());
    let (alg, rsa): (&'static SignatureAlgorithm, Option<RsaKeySize>) = match label.as_str() {
        "RSA-2048" => (&rcgen::PKCS_RSA_SHA256, Some(RsaKeySize::_2048)),
        "RSA-3072" => (&rcgen::PKCS_RSA_SHA256, Some(RsaKeySize::_3072)),
        "RSA-4096" => (&rcgen::PKCS_RSA_SHA256, Some(RsaKeySize::_4096)),
        "ECDSA-P256" => (&rcgen::PKCS_ECDSA_P256_SHA256, None),
        "ECDSA-P384" => (&rcgen::PKCS_ECDSA_P384_SHA384, None),
        other => return Err(CloneError::KeyType(other.to_owned())),
    };
    Ok(match rsa {
        Some(size) => KeyPair::generate_rsa_for(alg, size)?,
        None => KeyPair::generate_for(alg)?,
    })
}

/// Parameters for the clone of `x509`: everything but keys and signature.
fn params(
    x509: &X509Certificate<'_>,
    shift_secs: i64,
    key: &KeyPair,
    has_issuer_key_id: bool,
    profile: Profile,
    suffix: &str,
) -> CertificateParams {
    let mut p = CertificateParams::default();
    p.distinguished_name = subject(x509, suffix);
    p.serial_number = Some(SerialNumber::from_slice(x509.raw_serial()));
    let shift = time::Duration::seconds(shift_secs);
    p.not_before = x509.validity().not_before.to_datetime() + shift;
    p.not_after = x509.validity().not_after.to_datetime() + shift;
    // Extensions are copied verbatim; rcgen writes none of its own (is_ca = NoCa, empty
    // lists) except the authority key identifier.
    p.is_ca = IsCa::NoCa;
    if is_v1(x509) {
        // rcgen writes only v3 certificates, and a v3 certificate without basic constraints
        // is not a CA. A v1 certificate (an old root) is implicitly one: say so explicitly.
        p.is_ca = IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    }
    p.use_authority_key_identifier_extension = has_issuer_key_id;
    for ext in x509.extensions() {
        let oid: Vec<u64> = ext.oid.iter().map(|i| i.collect()).unwrap_or_default();
        if oid == AKI {
            continue;
        }
        let content = if oid == SKI {
            // OCTET STRING of the new key's identifier.
            let id = p.key_identifier(key);
            let mut v = vec![0x04, id.len() as u8];
            v.extend(id);
            v
        } else if oid == KEY_USAGE && profile.is_pq() {
            key::key_usage_for_ml_dsa(ext.value)
        } else {
            ext.value.to_vec()
        };
        let mut custom = CustomExtension::from_oid_content(&oid, content);
        custom.set_criticality(ext.critical);
        p.custom_extensions.push(custom);
    }
    p
}

/// Clones certificates, sharing the clone of a certificate that several chains send.
pub struct Cloner {
    /// The keys the clones get.
    profile: Profile,
    /// The suffix of its CAs' common names.
    suffix: String,
    /// SHA-256 of an original certificate → its clone.
    done: HashMap<[u8; 32], Cloned>,
    /// The CT logs whose SCTs leaves get.
    ct: CtLogs,
}

impl Default for Cloner {
    fn default() -> Cloner {
        Cloner::new()
    }
}

fn sha256(der: &[u8]) -> [u8; 32] {
    Sha256::digest(der).into()
}

/// A chain's clone: the certificates to send (leaf first) and the leaf key.
pub struct ClonedChain {
    /// Leaf first, then the intermediates, as the original sent them.
    pub sent: Vec<CertificateDer<'static>>,
    /// The leaf's private key (PKCS#8 DER).
    pub leaf_key: Vec<u8>,
    /// The clone of the chain's root (self-signed, to be trusted).
    pub root: CertificateDer<'static>,
}

impl Cloner {
    /// An empty cloner of today's key types.
    pub fn new() -> Cloner {
        Cloner::with_profile(Profile::Classical)
    }

    /// An empty cloner whose clones get `profile`'s keys (twins, for a post-quantum one), and
    /// SCTs from CT logs it makes as it meets real ones (each its own operator).
    pub fn with_profile(profile: Profile) -> Cloner {
        Cloner::with_logs(profile, CtLogs::new())
    }

    /// An empty cloner of `profile` whose leaves get SCTs from `ct` (a log is added to it for
    /// a real log it has no mirror of).
    pub fn with_logs(profile: Profile, ct: CtLogs) -> Cloner {
        Cloner {
            profile,
            suffix: ca_suffix(profile),
            done: HashMap::new(),
            ct,
        }
    }

    /// An empty cloner of `set`'s profile, its CAs named for the set
    /// ([`super::clone_name::set_suffix`]), whose leaves get SCTs from `ct` (whose algorithm is
    /// the set's scenario's).
    pub fn for_set(set: TwinSet, ct: CtLogs) -> Cloner {
        Cloner {
            suffix: set_suffix(set),
            ..Cloner::with_logs(set.profile, ct)
        }
    }

    /// The CT logs its leaves' SCTs come from.
    pub fn ct_logs(&self) -> &CtLogs {
        &self.ct
    }

    /// The CT logs, once cloning is done.
    pub fn into_ct_logs(self) -> CtLogs {
        self.ct
    }

    /// The keys its clones get.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Clones `sent` (leaf first) and its `root`, shifting every validity by `shift_secs`.
    ///
    /// Issuers are found by name among the chain's own certificates; a sent certificate whose
    /// issuer is not in the chain (a cross-sign to a root the client may not have) is signed
    /// by a stand-in issuer that nobody trusts, as in the real chain.
    pub fn clone_chain(
        &mut self,
        sent: &[CertificateDer<'static>],
        root: &CertificateDer<'static>,
        shift_secs: i64,
    ) -> Result<ClonedChain, CloneError> {
        let all: Vec<&CertificateDer<'static>> = sent.iter().chain(std::iter::once(root)).collect();
        let parsed = parse_all(&all)?;
        for i in top_down(&parsed) {
            if !self.done.contains_key(&sha256(all[i])) {
                self.clone_one(&all, &parsed, i, shift_secs)?;
            }
        }
        let get = |der: &CertificateDer<'static>| &self.done[&sha256(der)];
        let leaf = get(&sent[0]);
        Ok(ClonedChain {
            sent: sent.iter().map(|c| get(c).der.clone()).collect(),
            leaf_key: leaf.key.serialize_der(),
            root: get(root).der.clone(),
        })
    }

    /// Clones `all[i]` (of a chain whose root is last) with a new key of the profile, signed
    /// by its issuer's clone (made before it: [`top_down`]), or by itself when self-signed, or
    /// else by a stand-in issuer; the leaf (`i == 0`) with the mirror's SCTs for its real ones.
    fn clone_one(
        &mut self,
        all: &[&CertificateDer<'static>],
        parsed: &[X509Certificate<'_>],
        i: usize,
        shift_secs: i64,
    ) -> Result<(), CloneError> {
        let x = &parsed[i];
        let key = new_key(x, self.profile)?;
        let self_signed = i == all.len() - 1 || x.subject().as_raw() == x.issuer().as_raw();
        let has_aki = !self_signed
            && (x.extensions().iter())
                .any(|e| e.oid.iter().map(|i| i.collect::<Vec<u64>>()).as_deref() == Some(AKI));
        let mut p = params(x, shift_secs, &key, has_aki, self.profile, &self.suffix);
        // The leaf's SCTs, the mirror's; a CA has none.
        let real = if i == 0 { ct::real_scts(x)? } else { None };
        if real.is_none() {
            p.custom_extensions.retain(|e| !ct::is_sct_list(e));
        }
        let specs = match &real {
            Some(real) => self.ct.specs_for(real, shift_secs)?,
            None => Vec::new(),
        };
        let sign = |issuer: &Issuer<'_, &KeyPair>| -> Result<rcgen::Certificate, CloneError> {
            Ok(match specs.is_empty() {
                true => p.signed_by(&key, issuer)?,
                false => ct::issue_with_scts(&p, &key, issuer, &specs)?,
            })
        };
        let cert = if self_signed {
            sign(&Issuer::from_params(&p, &key))?
        } else {
            match issuer_of(parsed, i) {
                Some(j) if self.done.contains_key(&sha256(all[j])) => {
                    let issuer_clone = &self.done[&sha256(all[j])];
                    let issuer = issuer_params(&parsed[j], &self.suffix);
                    sign(&Issuer::new(issuer, &issuer_clone.key))?
                }
                _ => {
                    // Stand-in issuer with the original issuer's name (suffixed).
                    let alg = key::algorithm(self.profile, true)
                        .unwrap_or(&rcgen::PKCS_ECDSA_P256_SHA256);
                    let stand_in_key = KeyPair::generate_for(alg)?;
                    let mut ip = CertificateParams::default();
                    ip.distinguished_name = issuer_name(x, &self.suffix);
                    sign(&Issuer::new(ip, &stand_in_key))?
                }
            }
        };
        let cloned = Cloned {
            der: cert.der().clone(),
            key,
        };
        self.done.insert(sha256(all[i]), cloned);
        Ok(())
    }
}

/// Each of `all` parsed (an error names the index of the one that is not a certificate).
fn parse_all<'a>(
    all: &[&'a CertificateDer<'static>],
) -> Result<Vec<X509Certificate<'a>>, CloneError> {
    all.iter()
        .enumerate()
        .map(|(index, der)| {
            X509Certificate::from_der(der)
                .map(|(_, x)| x)
                .map_err(|e| CloneError::Parse {
                    index,
                    message: e.to_string(),
                })
        })
        .collect()
}

/// The order to clone a chain in (its root last in `parsed`): top-down, so that every
/// issuer exists before what it signs; a cycle of cross-signs is taken in order (signed by
/// stand-ins).
fn top_down(parsed: &[X509Certificate<'_>]) -> Vec<usize> {
    let root_i = parsed.len() - 1;
    let mut order: Vec<usize> = vec![root_i];
    while order.len() < parsed.len() {
        let before = order.len();
        for i in 0..root_i {
            if order.contains(&i) {
                continue;
            }
            let issuer = issuer_of(parsed, i);
            if issuer.is_none_or(|j| order.contains(&j)) {
                order.push(i);
            }
        }
        if order.len() == before {
            order.extend(
                (0..root_i)
                    .filter(|i| !order.contains(i))
                    .collect::<Vec<_>>(),
            );
        }
    }
    order
}

impl Cloner {
    /// The clone of the CA that issued `sent[0]` (its certificate, and an rcgen issuer over
    /// its key, named as the leaf's issuer field names it), when the chain's own certificates
    /// or root hold that CA (`None` for a stand-in issuer, or a chain not cloned yet): what
    /// signs the leaf's OCSP response and its CA's CRL.
    pub fn leaf_issuer(
        &self,
        sent: &[CertificateDer<'static>],
        root: &CertificateDer<'static>,
    ) -> Option<(CertificateDer<'static>, Issuer<'static, &KeyPair>)> {
        let all: Vec<&CertificateDer<'static>> = sent.iter().chain(std::iter::once(root)).collect();
        let parsed: Vec<X509Certificate<'_>> = (all.iter())
            .map(|der| X509Certificate::from_der(der).ok().map(|(_, x)| x))
            .collect::<Option<_>>()?;
        let j = issuer_of(&parsed, 0)?;
        let clone = self.done.get(&sha256(all[j]))?;
        let params = issuer_params(&parsed[j], &self.suffix);
        Some((clone.der.clone(), Issuer::new(params, &clone.key)))
    }
}
