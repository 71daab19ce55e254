//! The `der` readers against hand-made DER and the bundled corpus.

use super::*;

#[test]
fn validity_reads_both_time_forms() {
    assert_eq!(time(0x17, b"700101000000Z"), Some(0));
    assert_eq!(time(0x17, b"491231235959Z"), Some(2_524_607_999));
    assert_eq!(time(0x18, b"20000229120000Z"), Some(951_825_600));
    assert_eq!(time(0x17, b"700101000000"), None, "no Z");
    assert_eq!(time(0x17, b"701301000000Z"), None, "month 13");
}

#[cfg(feature = "corpus")]
#[test]
fn every_corpus_leaf_is_valid_at_its_validation_time() {
    let corpus = crate::corpus::Corpus::bundled().unwrap();
    for c in &corpus.chains {
        let (nb, na) = validity(&c.chain.leaf).unwrap();
        assert!(
            nb <= c.validation_time && c.validation_time <= na,
            "{}",
            c.id
        );
    }
}
use crate::chain::{load_chain_dir, read_pem_certs};
use std::path::Path;

fn corpus_dir(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/real-chains")
        .join(name)
}

#[test]
fn signed_parts_link_leaf_to_its_issuer() {
    let chain = load_chain_dir(&corpus_dir("reddit.com__rustls-bench")).unwrap();
    let leaf = SignedParts::parse(&chain.leaf).unwrap();
    let inter = SignedParts::parse(&chain.intermediates[0]).unwrap();
    assert_eq!(leaf.issuer, inter.subject);
    assert_eq!(leaf.tbs[0], 0x30, "tbs is a whole SEQUENCE TLV");
    // sha256WithRSAEncryption OID with NULL parameters.
    assert_eq!(
        leaf.sig_alg,
        &[
            0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00
        ]
    );
    assert_eq!(chain.key_types(), vec!["RSA-2048", "RSA-2048"]);
    assert_eq!(leaf.signature.len(), 256);
    assert_eq!(signer(&chain.leaf), Some(Signer::Rsa { bits: 2048 }));
    // github.com: leaf ← a P-256 intermediate; that intermediate ← a P-384 root.
    let gh = load_chain_dir(&corpus_dir("github.com__rustls-bench")).unwrap();
    let signers: Vec<_> = gh.iter().map(|c| signer(c)).collect();
    assert_eq!(signers[0], Some(Signer::EcdsaP256));
    assert!(signers.contains(&Some(Signer::EcdsaP384)), "{signers:?}");
    assert_eq!(signer(b"junk"), None);
}

#[test]
fn der_lengths_are_strict() {
    let read = |b: &[u8]| {
        Der::new(b)
            .next()
            .map(|(t, c, all)| (t, c.len(), all.len()))
    };
    assert_eq!(read(&[0x30, 0x01, 0xff]), Ok((0x30, 1, 3)));
    let mut long = vec![0x04, 0x81, 0x80];
    long.extend([0u8; 0x80]);
    assert_eq!(read(&long), Ok((0x04, 0x80, 0x83)));
    let mut two = vec![0x04, 0x82, 0x01, 0x00];
    two.extend([0u8; 0x100]);
    assert_eq!(read(&two), Ok((0x04, 0x100, 0x104)));
    // Long form below 128, a leading zero octet, indefinite, more than four octets.
    assert_eq!(
        read(&[0x04, 0x81, 0x05, 0, 0, 0, 0, 0]),
        Err(DerError::BadLength)
    );
    assert_eq!(read(&[0x04, 0x82, 0x00, 0x80]), Err(DerError::BadLength));
    assert_eq!(read(&[0x30, 0x80, 0, 0]), Err(DerError::BadLength));
    assert_eq!(read(&[0x04, 0x85, 1, 0, 0, 0, 0]), Err(DerError::BadLength));
    assert_eq!(read(&[0x30, 0x03, 0x01]), Err(DerError::Truncated));
    assert_eq!(read(&[0x04, 0x82, 0x01]), Err(DerError::Truncated));
    assert_eq!(read(&[0x30]), Err(DerError::Truncated));
    assert_eq!(read(&[0x1f, 0x01, 0x00]), Err(DerError::HighTag));
    let mut d = Der::new(&[0x02, 0x01, 0x05, 0x05, 0x00]);
    assert_eq!(
        d.expect(SEQUENCE),
        Err(DerError::UnexpectedTag {
            expected: SEQUENCE,
            found: INTEGER
        })
    );
    let mut d = Der::new(&[0x02, 0x01, 0x05, 0x05, 0x00]);
    assert_eq!(d.expect(INTEGER), Ok(&[5u8][..]));
    assert_eq!(
        Der::new(&[0x02, 0x01, 0x05, 0x05]).finish(),
        Err(DerError::TrailingData)
    );
    // A whole certificate with a byte appended, or cut short.
    let chain = load_chain_dir(&corpus_dir("reddit.com__rustls-bench")).unwrap();
    let mut extra = chain.leaf.to_vec();
    extra.push(0);
    assert_eq!(
        SignedParts::parse(&extra).err(),
        Some(DerError::TrailingData)
    );
    let cut = &chain.leaf[..chain.leaf.len() - 1];
    assert_eq!(SignedParts::parse(cut).err(), Some(DerError::Truncated));
}

/// The DER reading of key types agrees with OpenSSL's on every corpus certificate.
#[test]
#[cfg(feature = "openssl")]
fn key_types_agree_with_openssl() {
    use openssl::nid::Nid;
    use openssl::pkey::Id;
    fn by_openssl(der: &[u8]) -> String {
        let key = openssl::x509::X509::from_der(der)
            .unwrap()
            .public_key()
            .unwrap();
        match key.id() {
            Id::RSA => format!("RSA-{}", key.bits()),
            Id::EC => match key.ec_key().unwrap().group().curve_name() {
                Some(Nid::X9_62_PRIME256V1) => "ECDSA-P256".into(),
                Some(Nid::SECP384R1) => "ECDSA-P384".into(),
                Some(Nid::SECP521R1) => "ECDSA-P521".into(),
                _ => "ECDSA-unknown".into(),
            },
            Id::ED25519 => "Ed25519".into(),
            _ => "unknown".into(),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/real-chains");
    let mut seen = std::collections::BTreeSet::new();
    let mut n = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        for file in ["leaf.pem", "intermediates.pem", "root.pem", "chain.pem"] {
            let Ok(certs) = read_pem_certs(&dir.join(file)) else {
                continue;
            };
            for c in certs {
                let kt = key_type(&c);
                assert_eq!(kt, by_openssl(&c), "{}/{file}", dir.display());
                seen.insert(kt);
                n += 1;
            }
        }
    }
    assert!(n > 80, "{n} certificates");
    assert!(seen.len() >= 4, "{seen:?}");
    assert_eq!(key_type(b"junk"), "unknown");
}
