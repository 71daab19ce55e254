//! A relying party's verification of a Merkle Tree Certificate (draft-ietf-plants-merkle-
//! tree-certs-07 §7.2), then the X.509 checks the draft keeps ("The relying party MUST
//! continue to perform other checks, such as checking expiry"): validity at the verification
//! time, an end-entity for TLS servers (no CA basic constraints; an EKU, if any, with
//! serverAuth); the name is checked apart (rustls-webpki's name matching, in the method).
//!
//! A standalone certificate is accepted as Chrome accepts one from its MTC test root store
//! (draft -05's issuance logs, Chrome 152): at least [`CHROME_MIN_COSIGNATURES`] valid
//! cosignatures over the subtree, from distinct cosigners of the CA's set (the CA's own and
//! its mirrors', [`super::trust::CaTrust::cosigner_set`]), each key ML-DSA-44. Signatures by cosigners
//! outside the set are ignored (the draft: a relying party ignores cosigners it does not
//! know).
//!
//! Invariant: `Ok` only when the entry's inclusion proof hashes to a subtree the relying party
//! holds, or to one that enough of the CA's cosigners signed; every other outcome is an
//! [`MtcError`].

use rustls::crypto::WebPkiSupportedAlgorithms;

use super::MtcError;
use super::cert::{MtcCert, cosigned_message};
use super::tree::evaluate_inclusion;
use super::trust::MtcTrust;
use crate::der::{Der, SEQUENCE, Spki};

/// Chrome's rule for a standalone certificate: this many valid cosignatures from distinct
/// cosigners of the CA's set (the CA's and a mirror's).
pub const CHROME_MIN_COSIGNATURES: usize = 2;

/// What authenticated the subtree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Authenticated {
    /// A trusted subtree (landmark) the relying party holds: a landmark-relative certificate.
    Landmark,
    /// Enough of the CA's cosigners' signatures in the certificate: a standalone certificate.
    Cosigned,
}

/// §7.2 steps 3-12 on a parsed certificate: the serial not revoked, the proof evaluated, the
/// subtree trusted or signed by the CA's cosigner (verified with `algs`).
pub fn verify_proof(
    trust: &MtcTrust,
    cert: &MtcCert<'_>,
    algs: &WebPkiSupportedAlgorithms,
) -> Result<Authenticated, MtcError> {
    let ca = trust.ca(cert.ca_id).ok_or_else(|| {
        MtcError::UnknownCa(
            String::from_utf8_lossy(&super::cert::note_name(cert.ca_id)).into_owned(),
        )
    })?;
    let serial = (u64::from(cert.log_number) << 48) | cert.index;
    if serial < ca.min_serial || serial > ca.max_serial {
        return Err(MtcError::Revoked);
    }
    let p = &cert.proof;
    let hash = evaluate_inclusion(&p.inclusion, cert.index, &cert.entry_hash, p.start, p.end)?;
    let held = ca
        .subtrees
        .iter()
        .find(|t| t.log_number == cert.log_number && t.start == p.start && t.end == p.end);
    if let Some(t) = held {
        // A held subtree decides (§7.2 step 11): no fall back to signatures.
        return match t.hash == hash {
            true => Ok(Authenticated::Landmark),
            false => Err(MtcError::SubtreeMismatch {
                start: p.start,
                end: p.end,
            }),
        };
    }
    // Step 12, under Chrome's rule: cosignatures of the CA's set, each checked (the IDs are
    // distinct and ordered: the proof's reader refuses them otherwise).
    let mut valid = 0;
    for sig in &p.signatures {
        let Some((id, spki)) = ca.cosigner_set().find(|(id, _)| *id == sig.cosigner_id) else {
            continue;
        };
        let message = cosigned_message(id, &ca.ca_id, cert.log_number, p.start, p.end, &hash);
        match cosigner_verifies(spki, &message, sig.signature, algs)? {
            true => valid += 1,
            false => return Err(MtcError::BadCosignature),
        }
    }
    match valid {
        0 => Err(MtcError::Untrusted {
            start: p.start,
            end: p.end,
        }),
        n if n < CHROME_MIN_COSIGNATURES => Err(MtcError::TooFewCosignatures {
            valid: n,
            required: CHROME_MIN_COSIGNATURES,
        }),
        _ => Ok(Authenticated::Cosigned),
    }
}

/// Whether `signature` over `message` verifies under a cosigner's key (subjectPublicKeyInfo
/// contents `spki`), which must be ML-DSA-44 (Chrome's rule; its algorithm identifier is the
/// signature's too).
fn cosigner_verifies(
    spki: &[u8],
    message: &[u8],
    signature: &[u8],
    algs: &WebPkiSupportedAlgorithms,
) -> Result<bool, MtcError> {
    let Ok(spki) = Spki::from_contents(spki) else {
        return Ok(false);
    };
    if crate::der::Der::new(spki.alg).expect(crate::der::OID).ok() != Some(super::oid::ML_DSA_44) {
        return Err(MtcError::CosignerNotMlDsa44);
    }
    Ok(algs
        .all
        .iter()
        .filter(|a| {
            a.public_key_alg_id().as_ref() == spki.alg && a.signature_alg_id().as_ref() == spki.alg
        })
        .any(|a| a.verify_signature(spki.key, message, signature).is_ok()))
}

/// The X.509 checks that follow: valid at `time`, and an end-entity certificate for a TLS
/// server.
pub fn check_end_entity(der: &[u8], time: u64) -> Result<(), MtcError> {
    let (not_before, not_after) =
        crate::der::validity(der).ok_or(MtcError::Malformed("validity"))?;
    if time < not_before || time > not_after {
        return Err(MtcError::Expired {
            time,
            not_before,
            not_after,
        });
    }
    for (id, value) in extensions(der)? {
        match id {
            // basicConstraints: cA TRUE is a CA, not a server.
            [0x55, 0x1d, 0x13] => {
                let mut bc = Der::new(crate::der::sequence_contents(value)?);
                if bc.peek() == Some(crate::der::BOOLEAN)
                    && bc.expect(crate::der::BOOLEAN)? == [0xff]
                {
                    return Err(MtcError::X509("a CA certificate as the server's".into()));
                }
            }
            // extKeyUsage: must allow id-kp-serverAuth.
            [0x55, 0x1d, 0x25] => {
                let mut ekus = Der::new(crate::der::sequence_contents(value)?);
                let mut server = false;
                while ekus.peek().is_some() {
                    server |= ekus.expect(crate::der::OID)? == SERVER_AUTH;
                }
                if !server {
                    return Err(MtcError::X509("EKU does not allow serverAuth".into()));
                }
            }
            // The others (names, key usage, policies, ...): a critical one unknown to
            // rustls-webpki fails its parse of the certificate, before the name check.
            _ => {}
        }
    }
    Ok(())
}

/// `id-kp-serverAuth` (1.3.6.1.5.5.7.3.1).
const SERVER_AUTH: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];

/// An extension's OID (DER contents) and value.
type Ext<'a> = (&'a [u8], &'a [u8]);

/// The extensions of a certificate.
fn extensions(der: &[u8]) -> Result<Vec<Ext<'_>>, MtcError> {
    let mut outer = Der::new(crate::der::sequence_contents(der)?);
    let mut r = Der::new(outer.expect(SEQUENCE)?);
    let mut out = Vec::new();
    while r.peek().is_some() {
        let (tag, contents, _) = r.next()?;
        if tag != crate::der::EXTENSIONS {
            continue;
        }
        let mut exts = Der::new(Der::new(contents).expect(SEQUENCE)?);
        while exts.peek().is_some() {
            let mut ext = Der::new(exts.expect(SEQUENCE)?);
            let id = ext.expect(crate::der::OID)?;
            if ext.peek() == Some(crate::der::BOOLEAN) {
                ext.expect(crate::der::BOOLEAN)?;
            }
            out.push((id, ext.expect(crate::der::OCTET_STRING)?));
        }
    }
    Ok(out)
}
