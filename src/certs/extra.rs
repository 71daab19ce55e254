//! Store scaling: extra certificates for `certbench verify --extra-roots N
//! --extra-intermediates M`, so that a trust store and a pool of untrusted intermediates can
//! be as large as a browser's (a system store holds ~150 roots; a client that keeps every
//! intermediate it has seen, as Firefox's preloaded intermediates do, holds thousands).
//!
//! What is made, all well-formed v3 CA certificates with fresh ECDSA P-256 keys, valid from
//! 2000 to 2049:
//! - **roots**: self-signed, each with a name of its own (`certbench extra root 00042`), so
//!   that path building must look past them; plus **decoys**: one per distinct trust anchor
//!   of the corpus whose name rcgen can write (at most a tenth of `N`), with that anchor's
//!   subject encoded byte for byte
//!   but another key, so that a verifier that finds issuers by name has two candidates and
//!   must reject the decoy by its signature (or its key identifier);
//! - **intermediates**, offered with every chain as untrusted candidates: each issued by one
//!   of the extra roots, with names of their own, plus decoys (at most a tenth of `M`) that
//!   carry the subject of a corpus leaf's issuer.
//!
//! Nothing here is timed: generation happens before the run, and building each method's
//! store from the larger root set is what `roots-creation` then measures.

use std::collections::HashSet;

use rcgen::string::{Ia5String, PrintableString};
use rcgen::{CertificateParams, DistinguishedName, DnType, DnValue, Issuer, KeyPair, SerialNumber};
use rustls_pki_types::CertificateDer;
use x509_parser::prelude::{FromDer, X509Certificate, X509Name};

use super::ca::{self, GenError, Signs};
use super::clone_name::attr_oid;
use certbench_core::corpus::Corpus;

/// Extra certificates for a store-scaling run.
#[derive(Clone, Debug, Default)]
pub struct Extra {
    /// Roots to add to the trust store (decoys included).
    pub roots: Vec<CertificateDer<'static>>,
    /// How many of `roots` are decoys of a corpus anchor.
    pub decoy_roots: usize,
    /// Intermediates to offer with every chain (decoys included).
    pub intermediates: Vec<CertificateDer<'static>>,
    /// How many of `intermediates` are decoys of a corpus leaf's issuer.
    pub decoy_intermediates: usize,
}

/// `name` encoded as the original encodes it (attribute types in order, the same string
/// types), as far as rcgen can: a name with two attributes of one type keeps only the last.
fn exact_name(name: &X509Name<'_>) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    for rdn in name.iter_rdn() {
        for attr in rdn.iter() {
            let oid = attr_oid(attr);
            let text = attr.as_str().unwrap_or("").to_owned();
            let tag = attr.attr_value().header.tag().0;
            let value = match tag {
                19 => PrintableString::try_from(text.clone())
                    .map(DnValue::PrintableString)
                    .unwrap_or(DnValue::Utf8String(text)),
                22 => Ia5String::try_from(text.clone())
                    .map(DnValue::Ia5String)
                    .unwrap_or(DnValue::Utf8String(text)),
                _ => DnValue::Utf8String(text),
            };
            dn.push(DnType::from_oid(&oid), value);
        }
    }
    dn
}

/// Whether [`exact_name`] reproduces `name` byte for byte: one attribute per RDN, no
/// attribute type twice, UTF8String, PrintableString or IA5String values.
fn reproducible(name: &X509Name<'_>) -> bool {
    let mut types = HashSet::new();
    name.iter_rdn().all(|rdn| {
        rdn.iter().count() == 1
            && rdn.iter().all(|a| {
                types.insert(a.attr_type().clone())
                    && [12, 19, 22].contains(&a.attr_value().header.tag().0)
                    && a.as_str().is_ok()
            })
    })
}

/// An extra CA's parameters: `name`, valid from 2000 to 2049, serial number `serial`.
fn ca_params(name: DistinguishedName, serial: u64) -> CertificateParams {
    let (from, to) = (
        rcgen::date_time_ymd(2000, 1, 1),
        rcgen::date_time_ymd(2049, 12, 31),
    );
    let mut p = ca::params(name, Signs::CertsAndCrls, from, to);
    p.serial_number = Some(SerialNumber::from(serial));
    p
}

fn named(label: &str, i: usize) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    dn.push(DnType::OrganizationName, "certbench store scaling");
    dn.push(
        DnType::CommonName,
        format!("certbench extra {label} {i:05}"),
    );
    dn
}

fn key() -> Result<KeyPair, rcgen::Error> {
    KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
}

/// The distinct names (those [`exact_name`] can reproduce) of what `pick` gives for each chain.
fn distinct_names<'a>(
    parsed: &'a [(X509Certificate<'a>, Option<X509Certificate<'a>>)],
    pick: impl Fn(&'a (X509Certificate<'a>, Option<X509Certificate<'a>>)) -> Option<&'a X509Name<'a>>,
) -> Vec<&'a X509Name<'a>> {
    let mut seen = HashSet::new();
    parsed
        .iter()
        .filter_map(pick)
        .filter(|n| reproducible(n) && seen.insert(n.as_raw()))
        .collect()
}

/// Makes `roots` extra roots and `intermediates` extra intermediates, with decoys of the
/// anchors and the leaves' issuers of `corpus`.
pub fn generate(corpus: &Corpus, roots: usize, intermediates: usize) -> Result<Extra, GenError> {
    // (leaf, anchor) of every chain, parsed.
    let parsed: Vec<(X509Certificate<'_>, Option<X509Certificate<'_>>)> = corpus
        .chains
        .iter()
        .filter_map(|c| {
            let leaf = X509Certificate::from_der(&c.chain.leaf).ok()?.1;
            let anchor = c
                .roots
                .first()
                .and_then(|r| X509Certificate::from_der(r).ok())
                .map(|(_, x)| x);
            Some((leaf, anchor))
        })
        .collect();
    let anchor_names = distinct_names(&parsed, |(_, a)| a.as_ref().map(|a| a.subject()));
    let issuer_names = distinct_names(&parsed, |(leaf, _)| Some(leaf.issuer()));

    let mut extra = Extra::default();
    let mut serial = 1u64;
    let mut issuers: Vec<Issuer<'static, KeyPair>> = Vec::new();
    let decoys = anchor_names.len().min(roots / 10);
    for i in 0..roots {
        let name = match anchor_names.get(i) {
            Some(real) if i < decoys => exact_name(real),
            _ => named("root", i),
        };
        let params = ca_params(name, serial);
        serial += 1;
        let key = key()?;
        extra.roots.push(params.self_signed(&key)?.der().clone());
        // A few roots issue the extra intermediates (rcgen needs the issuer's key).
        if issuers.len() < 16 {
            issuers.push(Issuer::new(params, key));
        }
    }
    extra.decoy_roots = decoys;
    if intermediates > 0 && issuers.is_empty() {
        let params = ca_params(named("intermediate issuer", 0), serial);
        serial += 1;
        issuers.push(Issuer::new(params, key()?));
    }
    let decoys = issuer_names.len().min(intermediates / 10);
    for i in 0..intermediates {
        let name = match issuer_names.get(i) {
            Some(real) if i < decoys => exact_name(real),
            _ => named("intermediate", i),
        };
        let params = ca_params(name, serial);
        serial += 1;
        let issuer = &issuers[i % issuers.len()];
        extra
            .intermediates
            .push(params.signed_by(&key()?, issuer)?.der().clone());
    }
    extra.decoy_intermediates = decoys;
    Ok(extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoys_carry_the_real_names_byte_for_byte_and_the_rest_are_distinct() {
        let corpus = Corpus::bundled().unwrap();
        let extra = generate(&corpus, 200, 60).unwrap();
        assert_eq!(extra.roots.len(), 200);
        assert_eq!(extra.intermediates.len(), 60);
        let subject = |der: &CertificateDer<'_>| {
            X509Certificate::from_der(der)
                .unwrap()
                .1
                .subject()
                .as_raw()
                .to_vec()
        };
        let anchors: HashSet<Vec<u8>> = corpus.roots().iter().map(subject).collect();
        let issuers: HashSet<Vec<u8>> = corpus
            .chains
            .iter()
            .map(|c| {
                let (_, leaf) = X509Certificate::from_der(&c.chain.leaf).unwrap();
                leaf.issuer().as_raw().to_vec()
            })
            .collect();
        // A decoy per distinct name rcgen can write, at most a tenth of the count asked for
        // (of the corpus's 12 anchors, VeriSign's has two OUs).
        assert!(extra.decoy_roots <= anchors.len().min(20) && extra.decoy_roots >= 10);
        assert_eq!(extra.decoy_intermediates, 6);
        // Every decoy's subject is some real anchor's (issuer's) encoding, byte for byte.
        for r in &extra.roots[..extra.decoy_roots] {
            assert!(anchors.contains(&subject(r)), "{:?}", subject(r));
        }
        for r in &extra.intermediates[..extra.decoy_intermediates] {
            assert!(issuers.contains(&subject(r)));
        }
        // The others have names of their own.
        let others: HashSet<Vec<u8>> = extra.roots[extra.decoy_roots..]
            .iter()
            .chain(&extra.intermediates[extra.decoy_intermediates..])
            .map(subject)
            .collect();
        assert_eq!(
            others.len(),
            200 + 60 - extra.decoy_roots - extra.decoy_intermediates
        );
        assert!(others.is_disjoint(&anchors) && others.is_disjoint(&issuers));
        // No extras asked: none made.
        let none = generate(&corpus, 0, 0).unwrap();
        assert!(none.roots.is_empty() && none.intermediates.is_empty());
    }
}
