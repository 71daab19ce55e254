//! The DER an MTC issuer writes by hand: a TBSCertificate from its fields' DER, its
//! extensions, and a certificate from a TBSCertificate, an algorithm and a signature value.
//! x509-cert's types stand for everything else, but not for a name whose attribute value is a
//! RELATIVE-OID (the CA ID of §5.1, which `der` 0.7 does not read), so no `Name` is built for
//! an MTC's issuer or its CA certificate's subject.
//!
//! Invariant: each function writes DER (definite, minimal lengths, through
//! `certbench_core::der::push_tlv`) and takes its fields already DER.

use der::Encode;
use x509_cert::ext::Extension;

/// The DER of a TBSCertificate from its fields' DER, in order (the issuer written as it is:
/// x509-cert does not read a RELATIVE-OID attribute value, so no `Name` stands for it).
pub fn tbs_der(fields: &[&[u8]]) -> Vec<u8> {
    let body: Vec<u8> = fields.concat();
    let mut out = Vec::with_capacity(body.len() + 4);
    certbench_core::der::push_tlv(&mut out, 0x30, &body);
    out
}

/// `[3] EXPLICIT SEQUENCE OF Extension`, or nothing for none.
pub fn extensions_der(extensions: &[Extension]) -> Result<Vec<u8>, der::Error> {
    if extensions.is_empty() {
        return Ok(Vec::new());
    }
    let mut list = Vec::new();
    for e in extensions {
        list.extend(e.to_der()?);
    }
    let (mut seq, mut out) = (Vec::new(), Vec::new());
    certbench_core::der::push_tlv(&mut seq, 0x30, &list);
    certbench_core::der::push_tlv(&mut out, 0xa3, &seq);
    Ok(out)
}

/// `[0] EXPLICIT INTEGER 2`: version 3.
pub const V3: &[u8] = &[0xa0, 0x03, 0x02, 0x01, 0x02];

/// `SEQUENCE { tbs, alg, BIT STRING value }`.
pub fn signed(tbs: &[u8], alg: &[u8], value: &[u8]) -> Vec<u8> {
    let mut bits = vec![0u8];
    bits.extend_from_slice(value);
    let mut body = Vec::with_capacity(tbs.len() + alg.len() + bits.len() + 8);
    body.extend_from_slice(tbs);
    body.extend_from_slice(alg);
    certbench_core::der::push_tlv(&mut body, 0x03, &bits);
    let mut out = Vec::with_capacity(body.len() + 4);
    certbench_core::der::push_tlv(&mut out, 0x30, &body);
    out
}
