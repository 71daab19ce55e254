//! certbench's own ML-DSA testcases (family `certbench-rfc9881`), written as an x509-limbo
//! document (`certbench limbo --generate-mldsa FILE`): the bundled x509-limbo corpus predates
//! upstream's `rfc9881::*` testcases, so these stand in for them and go further.
//!
//! Each expected verdict follows from a rule, named in the testcase's description:
//! - `ml-dsa-44`, `ml-dsa-65`, `ml-dsa-87`: root → EE, both keys of that level, the root
//!   signing with its key (RFC 9881 §3, §4): **valid** (as upstream's `rfc9881::ml_dsa_*`);
//! - `ml-dsa-44-bad-signature`: the EE names the root as issuer (and its key identifier) but
//!   an impostor key signed it: **invalid** (RFC 5280 §6.1.3 (a)(1); upstream's
//!   `ml_dsa_44_bad_signature`);
//! - `ml-dsa-44-key-encipherment`, `ml-dsa-44-key-agreement`: an ML-DSA EE asserting a key
//!   usage RFC 9881 §5 forbids it: **invalid**, pedantic (upstream's, importance low: most
//!   verifiers do not check key usages against the key's type);
//! - `mixed-levels`: an ML-DSA-44 EE under an ML-DSA-65 intermediate under an ML-DSA-65 root
//!   (the `mixed` profile of `--pq`): **valid** (nothing ties a certificate's level to its
//!   issuer's);
//! - `ecdsa-root-ml-dsa-ee`, `ml-dsa-root-ecdsa-ee`: an issuer of one algorithm signing a
//!   subject key of the other: **valid** (RFC 5280 §4.1.1.2: the issuer's algorithm signs);
//! - `ml-dsa-44-wrong-name`, `ml-dsa-44-expired`: an ML-DSA-44 EE for another name, and one
//!   past its notAfter: **invalid** (RFC 6125 §6; RFC 5280 §6.1.3 (a)(2)), so that a verifier
//!   that checks ML-DSA chains is seen to check the rest too.
//!
//! Keys are fresh each time; the validation time is the time of generation, every
//! certificate valid for a year around it but the expired one.

use rcgen::{
    CertificateParams, CustomExtension, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SignatureAlgorithm,
};
use serde_json::{Value, json};
use time::{Duration, OffsetDateTime};

use super::ca::{self, Signs};

/// Why the testcases could not be made.
#[derive(Debug, thiserror::Error)]
#[error("generating the ML-DSA testcases: {0}")]
pub struct GenerateError(#[from] rcgen::Error);

const NAME: &str = "example.com";

/// A testcase's CA: `name`, valid for a year either side of `now`.
fn ca(name: &str, now: OffsetDateTime) -> CertificateParams {
    let (from, to) = (now - Duration::days(365), now + Duration::days(365));
    ca::params(ca::common_name(name), Signs::CertsAndCrls, from, to)
}

fn ee(name: &str, now: OffsetDateTime, usages: Vec<KeyUsagePurpose>) -> CertificateParams {
    let mut p = CertificateParams::new(vec![name.to_owned()]).expect("a DNS name");
    p.distinguished_name.push(DnType::CommonName, name);
    p.is_ca = IsCa::ExplicitNoCa;
    p.key_usages = usages;
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    p.use_authority_key_identifier_extension = true;
    p.not_before = now - Duration::days(30);
    p.not_after = now + Duration::days(60);
    p
}

fn pem(der: &[u8]) -> String {
    pem::encode(&pem::Pem::new("CERTIFICATE", der.to_vec()))
}

/// One testcase: its chain (root, then intermediates, then the EE) and what to expect.
struct Made {
    id: &'static str,
    description: &'static str,
    valid: bool,
    pedantic: bool,
    root: Vec<u8>,
    intermediates: Vec<Vec<u8>>,
    ee: Vec<u8>,
}

impl Made {
    fn json(&self, now: OffsetDateTime) -> Value {
        let time = now
            .format(&time::format_description::well_known::Rfc3339)
            .expect("a time formats");
        json!({
            "id": format!("certbench-rfc9881::{}", self.id),
            "conflicts_with": [],
            "features": if self.pedantic { vec!["pedantic-rfc5280"] } else { vec![] },
            "importance": if self.pedantic { "low" } else { "high" },
            "description": self.description,
            "validation_kind": "SERVER",
            "trusted_certs": [pem(&self.root)],
            "untrusted_intermediates": self.intermediates.iter().map(|c| pem(c)).collect::<Vec<_>>(),
            "peer_certificate": pem(&self.ee),
            "peer_certificate_key": null,
            "validation_time": time,
            "signature_algorithms": [],
            "key_usage": [],
            "extended_key_usage": ["serverAuth"],
            "expected_result": if self.valid { "SUCCESS" } else { "FAILURE" },
            "expected_peer_name": {"kind": "DNS", "value": NAME},
            "expected_peer_names": [],
            "max_chain_depth": null,
            "crls": [],
        })
    }
}

/// A root of `alg` and an EE of `ee_alg` it signs, for `name`, with `usages`.
fn root_and_ee(
    alg: &'static SignatureAlgorithm,
    ee_alg: &'static SignatureAlgorithm,
    params: CertificateParams,
    now: OffsetDateTime,
) -> Result<(Vec<u8>, Vec<u8>), rcgen::Error> {
    let root_key = KeyPair::generate_for(alg)?;
    let root_params = ca("certbench ML-DSA test root", now);
    let root = root_params.self_signed(&root_key)?;
    let ee_key = KeyPair::generate_for(ee_alg)?;
    let ee = params.signed_by(&ee_key, &Issuer::new(root_params, &root_key))?;
    Ok((root.der().to_vec(), ee.der().to_vec()))
}

/// Every testcase, as a limbo document (schema version 1), at validation time `now`.
pub fn testcases(now: OffsetDateTime) -> Result<Value, GenerateError> {
    let sig = || vec![KeyUsagePurpose::DigitalSignature];
    let mut made = Vec::new();
    for (id, alg) in [
        ("ml-dsa-44", &rcgen::PKCS_ML_DSA_44),
        ("ml-dsa-65", &rcgen::PKCS_ML_DSA_65),
        ("ml-dsa-87", &rcgen::PKCS_ML_DSA_87),
    ] {
        let (root, ee) = root_and_ee(alg, alg, ee(NAME, now, sig()), now)?;
        made.push(Made {
            id,
            description: "root → EE, both of this ML-DSA level, the root signing (RFC 9881 §3, §4): valid.",
            valid: true,
            pedantic: false,
            root,
            intermediates: vec![],
            ee,
        });
    }
    made.push(bad_signature(now)?);
    for (id, usage, description) in [
        (
            "ml-dsa-44-key-encipherment",
            KeyUsagePurpose::KeyEncipherment,
            "An ML-DSA-44 EE asserting keyEncipherment, which RFC 9881 §5 forbids an ML-DSA key: invalid (pedantic).",
        ),
        (
            "ml-dsa-44-key-agreement",
            KeyUsagePurpose::KeyAgreement,
            "An ML-DSA-44 EE asserting keyAgreement, which RFC 9881 §5 forbids an ML-DSA key: invalid (pedantic).",
        ),
    ] {
        let usages = vec![KeyUsagePurpose::DigitalSignature, usage];
        let alg = &rcgen::PKCS_ML_DSA_44;
        let (root, ee) = root_and_ee(alg, alg, ee(NAME, now, usages), now)?;
        made.push(Made {
            id,
            description,
            valid: false,
            pedantic: true,
            root,
            intermediates: vec![],
            ee,
        });
    }
    made.push(mixed_levels(now)?);
    for (id, root_alg, ee_alg, description) in [
        (
            "ecdsa-root-ml-dsa-ee",
            &rcgen::PKCS_ECDSA_P256_SHA256,
            &rcgen::PKCS_ML_DSA_44,
            "A P-256 root signing an ML-DSA-44 EE (RFC 5280 §4.1.1.2: the issuer's algorithm signs): valid.",
        ),
        (
            "ml-dsa-root-ecdsa-ee",
            &rcgen::PKCS_ML_DSA_65,
            &rcgen::PKCS_ECDSA_P256_SHA256,
            "An ML-DSA-65 root signing a P-256 EE (RFC 5280 §4.1.1.2): valid.",
        ),
    ] {
        let (root, ee) = root_and_ee(root_alg, ee_alg, ee(NAME, now, sig()), now)?;
        made.push(Made {
            id,
            description,
            valid: true,
            pedantic: false,
            root,
            intermediates: vec![],
            ee,
        });
    }
    let alg = &rcgen::PKCS_ML_DSA_44;
    let (root, wrong) = root_and_ee(alg, alg, ee("other.example.com", now, sig()), now)?;
    made.push(Made {
        id: "ml-dsa-44-wrong-name",
        description: "An ML-DSA-44 EE for other.example.com, expected example.com (RFC 6125 §6): invalid.",
        valid: false,
        pedantic: false,
        root,
        intermediates: vec![],
        ee: wrong,
    });
    let mut old = ee(NAME, now, sig());
    (old.not_before, old.not_after) = (now - Duration::days(120), now - Duration::days(30));
    let (root, expired) = root_and_ee(alg, alg, old, now)?;
    made.push(Made {
        id: "ml-dsa-44-expired",
        description: "An ML-DSA-44 EE whose notAfter has passed (RFC 5280 §6.1.3 (a)(2)): invalid.",
        valid: false,
        pedantic: false,
        root,
        intermediates: vec![],
        ee: expired,
    });
    Ok(json!({
        "version": 1,
        "testcases": made.iter().map(|m| m.json(now)).collect::<Vec<_>>(),
    }))
}

/// The EE names the root (and its key identifier) as issuer; an impostor key with the
/// root's name signed it.
fn bad_signature(now: OffsetDateTime) -> Result<Made, rcgen::Error> {
    let alg = &rcgen::PKCS_ML_DSA_44;
    let root_key = KeyPair::generate_for(alg)?;
    let root_params = ca("certbench ML-DSA test root", now);
    let root = root_params.self_signed(&root_key)?;
    // authorityKeyIdentifier { keyIdentifier [0] } of the real root's key.
    let id = root_params.key_identifier(&root_key);
    let mut aki = vec![0x30, id.len() as u8 + 2, 0x80, id.len() as u8];
    aki.extend(id);
    let impostor_key = KeyPair::generate_for(alg)?;
    let impostor = ca("certbench ML-DSA test root", now);
    let mut p = ee(NAME, now, vec![KeyUsagePurpose::DigitalSignature]);
    p.use_authority_key_identifier_extension = false;
    p.custom_extensions
        .push(CustomExtension::from_oid_content(&[2, 5, 29, 35], aki));
    let ee_key = KeyPair::generate_for(alg)?;
    let ee = p.signed_by(&ee_key, &Issuer::new(impostor, &impostor_key))?;
    Ok(Made {
        id: "ml-dsa-44-bad-signature",
        description: "The EE names the trusted root and its key identifier as issuer, but an impostor ML-DSA-44 key signed it (RFC 5280 §6.1.3 (a)(1)): invalid.",
        valid: false,
        pedantic: false,
        root: root.der().to_vec(),
        intermediates: vec![],
        ee: ee.der().to_vec(),
    })
}

/// ML-DSA-65 root → ML-DSA-65 intermediate → ML-DSA-44 EE.
fn mixed_levels(now: OffsetDateTime) -> Result<Made, rcgen::Error> {
    let (high, low) = (&rcgen::PKCS_ML_DSA_65, &rcgen::PKCS_ML_DSA_44);
    let root_key = KeyPair::generate_for(high)?;
    let root_params = ca("certbench ML-DSA test root", now);
    let root = root_params.self_signed(&root_key)?;
    let inter_key = KeyPair::generate_for(high)?;
    let mut inter_params = ca("certbench ML-DSA test intermediate", now);
    inter_params.use_authority_key_identifier_extension = true;
    let inter = inter_params.signed_by(&inter_key, &Issuer::new(root_params, &root_key))?;
    let ee_key = KeyPair::generate_for(low)?;
    let leaf = ee(NAME, now, vec![KeyUsagePurpose::DigitalSignature])
        .signed_by(&ee_key, &Issuer::new(inter_params, &inter_key))?;
    Ok(Made {
        id: "mixed-levels",
        description: "An ML-DSA-44 EE under an ML-DSA-65 intermediate under an ML-DSA-65 root (--pq's mixed profile; nothing ties a certificate's level to its issuer's): valid.",
        valid: true,
        pedantic: false,
        root: root.der().to_vec(),
        intermediates: vec![inter.der().to_vec()],
        ee: leaf.der().to_vec(),
    })
}
