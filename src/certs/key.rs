//! Keys and what they may sign: the key a certificate gets under a post-quantum [`Profile`]
//! for its role (leaf or CA), and the key usages an ML-DSA key may assert (RFC 9881 §5).
//!
//! The profiles themselves (their names, the ML-DSA sets a verifier needs) are the vocabulary
//! of [`crate::pq`]; which rcgen algorithm stands for each is here, with the certificates.

use rcgen::{KeyPair, KeyUsagePurpose, SignatureAlgorithm};

use crate::pq::Profile;

/// The ML-DSA algorithm of a certificate's new key under `profile` (`ca`: a CA's, else the
/// leaf's), or `None` for [`Profile::Classical`] (the certificate keeps its key type).
/// `mixed` puts the lower level on the leaf.
pub fn algorithm(profile: Profile, ca: bool) -> Option<&'static SignatureAlgorithm> {
    Some(match (profile, ca) {
        (Profile::Classical, _) => return None,
        (Profile::MlDsa44 | Profile::Mtc, _) | (Profile::Mixed, false) => &rcgen::PKCS_ML_DSA_44,
        (Profile::MlDsa65, _) | (Profile::Mixed, true) => &rcgen::PKCS_ML_DSA_65,
        (Profile::MlDsa87, _) => &rcgen::PKCS_ML_DSA_87,
    })
}

/// A synthetic certificate's key: RSA-2048, or the profile's ML-DSA key for the role (`ca`).
pub fn synthetic_key(profile: Profile, ca: bool) -> Result<KeyPair, rcgen::Error> {
    match algorithm(profile, ca) {
        Some(alg) => KeyPair::generate_for(alg),
        None => KeyPair::generate_rsa_for(&rcgen::PKCS_RSA_SHA256, rcgen::RsaKeySize::_2048),
    }
}

/// A synthetic leaf's key usages: an RSA key's digitalSignature and keyEncipherment, an
/// ML-DSA key's digitalSignature alone (RFC 9881 §5).
pub fn leaf_key_usages(profile: Profile) -> Vec<KeyUsagePurpose> {
    match profile {
        Profile::Classical => vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ],
        _ => vec![KeyUsagePurpose::DigitalSignature],
    }
}

/// keyUsage bits (as numbered in RFC 5280 §4.2.1.3) an ML-DSA key must not assert
/// (RFC 9881 §5): keyEncipherment (2), dataEncipherment (3), keyAgreement (4), encipherOnly
/// (7), decipherOnly (8).
const NOT_FOR_ML_DSA: [usize; 5] = [2, 3, 4, 7, 8];

/// The keyUsage extension's value (a DER BIT STRING) with the bits an ML-DSA key must not
/// assert cleared, and digitalSignature set if no bit is left; `value` itself when it is not
/// a BIT STRING this reads.
pub fn key_usage_for_ml_dsa(value: &[u8]) -> Vec<u8> {
    let [0x03, len, unused, bytes @ ..] = value else {
        return value.to_vec();
    };
    if usize::from(*len) != bytes.len() + 1 || bytes.len() > 2 || *unused > 7 {
        return value.to_vec();
    }
    let mut bits: Vec<usize> = (0..bytes.len() * 8)
        .filter(|&i| bytes[i / 8] & (0x80 >> (i % 8)) != 0 && !NOT_FOR_ML_DSA.contains(&i))
        .collect();
    if bits.is_empty() {
        bits.push(0); // digitalSignature
    }
    // DER: the named bits up to the last one set, no trailing zero bits.
    let last = *bits.iter().max().expect("one bit at least");
    let mut out = vec![0u8; last / 8 + 1];
    for i in bits {
        out[i / 8] |= 0x80 >> (i % 8);
    }
    let mut der = vec![0x03, out.len() as u8 + 1, (7 - last % 8) as u8];
    der.extend(out);
    der
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_puts_the_lower_level_on_the_leaf() {
        assert_eq!(algorithm(Profile::Classical, false), None);
        assert_eq!(
            algorithm(Profile::Mixed, false),
            Some(&rcgen::PKCS_ML_DSA_44)
        );
        assert_eq!(
            algorithm(Profile::Mixed, true),
            Some(&rcgen::PKCS_ML_DSA_65)
        );
        assert_eq!(
            algorithm(Profile::MlDsa87, true),
            Some(&rcgen::PKCS_ML_DSA_87)
        );
    }

    #[test]
    fn an_ml_dsa_key_usage_keeps_only_what_rfc_9881_allows() {
        // digitalSignature + keyEncipherment (a typical RSA leaf): digitalSignature only.
        assert_eq!(key_usage_for_ml_dsa(&[3, 2, 5, 0xa0]), [3, 2, 7, 0x80]);
        // keyCertSign + cRLSign (a CA): unchanged.
        assert_eq!(key_usage_for_ml_dsa(&[3, 2, 1, 0x06]), [3, 2, 1, 0x06]);
        // keyEncipherment alone: nothing left, so digitalSignature.
        assert_eq!(key_usage_for_ml_dsa(&[3, 2, 5, 0x20]), [3, 2, 7, 0x80]);
        // digitalSignature + decipherOnly (bit 8, a second octet): the second octet goes.
        assert_eq!(
            key_usage_for_ml_dsa(&[3, 3, 7, 0x80, 0x80]),
            [3, 2, 7, 0x80]
        );
        // Not a BIT STRING: as it was.
        assert_eq!(key_usage_for_ml_dsa(&[4, 1, 0]), [4, 1, 0]);
    }
}
