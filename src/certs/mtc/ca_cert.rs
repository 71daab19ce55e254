//! The MTC CA as a relying party is configured with it (draft-ietf-plants-merkle-tree-certs-07
//! §5.5, §7.1): an unsigned certificate (RFC 9925: `id-alg-unsigned`, an empty signature)
//! whose subject is the CA ID, whose key is the CA cosigner's (ML-DSA-44), with the critical
//! `id-pe-mtcCertificationAuthority-SHA256` extension (the cosigner's algorithm, the serials
//! not revoked), basic constraints and keyCertSign as §5.5 requires, and, as certbench's own
//! out-of-band channel, the CA's other cosigner (a mirror's, whose cosignature Chrome's rule
//! requires beside the CA's) and the trusted subtrees (landmarks) the client holds.
//!
//! Invariant: it is read back by `certbench_core::mtc::trust::CaTrust::from_ca_certificate`
//! (tested through every verdict test), and it is among the roots only of runs with `mtc`.

use der::asn1::{ObjectIdentifier, OctetString};
use der::{Decode, Encode};
use rustls_pki_types::CertificateDer;
use x509_cert::ext::Extension;
use x509_cert::spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfoOwned};
use x509_cert::time::{Time, Validity};

use super::encode::{V3, extensions_der, signed, tbs_der};
use certbench_core::mtc::cert::ca_id_name;
use certbench_core::mtc::trust::{
    TrustedSubtree, encode_cosigners, encode_trusted_subtrees, uint_contents,
};

/// The CA ID: 32473.1 (RFC 5612's documentation enterprise number, the draft's own example),
/// binary.
pub const CA_ID: &[u8] = &[0x81, 0xfd, 0x59, 0x01];

/// `SEQUENCE { id-ml-dsa-44 }`, then the serials of log 1: `[1 << 48, (2 << 48) - 1]`.
fn mtc_ca_extension() -> Vec<u8> {
    let mut body = Vec::new();
    let mut alg = Vec::new();
    certbench_core::der::push_tlv(&mut alg, 0x06, certbench_core::mtc::oid::ML_DSA_44);
    certbench_core::der::push_tlv(&mut body, 0x30, &alg);
    for n in [1u64 << 48, (2u64 << 48) - 1] {
        certbench_core::der::push_tlv(&mut body, 0x02, &uint_contents(n));
    }
    let mut out = Vec::new();
    certbench_core::der::push_tlv(&mut out, 0x30, &body);
    out
}

fn ext(oid: &str, critical: bool, value: Vec<u8>) -> Result<Extension, der::Error> {
    Ok(Extension {
        extn_id: ObjectIdentifier::new_unwrap(oid),
        critical,
        extn_value: OctetString::new(value)?,
    })
}

/// The mirror cosigner's ID: 32473.2 (RFC 5612's documentation arc, as the CA's), binary.
pub const MIRROR_ID: &[u8] = &[0x81, 0xfd, 0x59, 0x02];

/// The CA certificate for a client holding `subtrees` (none: a client that takes standalone
/// certificates only), its cosigner set the CA's own (`cosigner_spki`) and the mirror's
/// (`mirror_spki`, [`MIRROR_ID`]).
pub fn ca_certificate(
    cosigner_spki: &[u8],
    mirror_spki: &[u8],
    subtrees: &[TrustedSubtree],
) -> Result<CertificateDer<'static>, der::Error> {
    let name = ca_id_name(CA_ID);
    let mut extensions = vec![
        // basicConstraints critical cA TRUE; keyUsage critical keyCertSign.
        ext("2.5.29.19", true, vec![0x30, 0x03, 0x01, 0x01, 0xff])?,
        ext("2.5.29.15", true, vec![0x03, 0x02, 0x02, 0x04])?,
        ext("1.3.6.1.5.5.7.1.38", true, mtc_ca_extension())?,
    ];
    extensions.push(ext(
        "1.3.6.1.4.1.32473.99.2",
        false,
        encode_cosigners(&[(MIRROR_ID, mirror_spki)]),
    )?);
    if !subtrees.is_empty() {
        extensions.push(ext(
            "1.3.6.1.4.1.32473.99.1",
            false,
            encode_trusted_subtrees(subtrees),
        )?);
    }
    let unsigned = AlgorithmIdentifierOwned {
        oid: ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.6.36"),
        parameters: None,
    }
    .to_der()?;
    let validity = Validity {
        not_before: Time::GeneralTime(der::asn1::GeneralizedTime::from_unix_duration(
            std::time::Duration::from_secs(946_684_800), // 2000-01-01
        )?),
        not_after: Time::GeneralTime(der::asn1::GeneralizedTime::from_unix_duration(
            std::time::Duration::from_secs(4_102_444_800), // 2100-01-01
        )?),
    };
    let tbs = tbs_der(&[
        V3,
        &[0x02, 0x01, 0x01],
        &unsigned,
        &name,
        &validity.to_der()?,
        &name,
        &SubjectPublicKeyInfoOwned::from_der(cosigner_spki)?.to_der()?,
        &extensions_der(&extensions)?,
    ]);
    Ok(CertificateDer::from(signed(&tbs, &unsigned, &[])))
}
