//! Which CRL speaks for a certificate: webpki's `CertRevocationList::authoritative` and
//! `IssuingDistributionPoint::authoritative_for` ([`authoritative`]), reading the CRL's
//! issuing distribution point and the certificate's CRL distribution points.
//!
//! Invariant: a distribution point with `reasons` or `cRLIssuer` never matches, as in webpki.

use super::entry::Crl;
use super::fields::{CertFields, Reader, SEQUENCE, tlv_contents};

/// webpki's `CertRevocationList::authoritative` and `IssuingDistributionPoint::authoritative_for`
/// (see the module docs, step 2).
pub(crate) fn authoritative(crl: &Crl, cert: &CertFields<'_>, depth: usize) -> bool {
    if crl.list.issuer() != cert.issuer {
        return false;
    }
    let Some(idp) = crl.list.issuing_distribution_point() else {
        return true;
    };
    // webpki parses the IDP on each lookup too (it was validated at load).
    let Ok(idp) = Idp::parse(idp) else {
        return false;
    };
    let end_entity = depth == 0;
    if idp.only_ca && end_entity || idp.only_user && !end_entity {
        return false;
    }
    let Some(dps) = cert.crl_dps else {
        return true;
    };
    let Ok(mut dps) = Reader::new(dps).expect(SEQUENCE).map(Reader::new) else {
        return false;
    };
    while let Ok(dp) = dps.expect(SEQUENCE) {
        let mut dp = Reader::new(dp);
        let mut full_name = None;
        let mut skip = false;
        while let Ok((tag, value, _)) = dp.next() {
            match tag {
                DP_NAME => full_name = full_name_of(value),
                DP_REASONS | DP_CRL_ISSUER => skip = true,
                _ => {}
            }
        }
        let Some(names) = full_name.filter(|_| !skip) else {
            continue;
        };
        let mut names = Reader::new(names);
        while let Ok((tag, uri, _)) = names.next() {
            if tag != GN_URI {
                continue;
            }
            let Some(idp_names) = idp.full_name else {
                return false;
            };
            let mut idp_names = Reader::new(idp_names);
            while let Ok((tag, idp_uri, _)) = idp_names.next() {
                if tag == GN_URI && idp_uri == uri {
                    return true;
                }
            }
        }
    }
    false
}

/// The GeneralNames of a DistributionPointName's `fullName [0]`, if that is its form.
fn full_name_of(dp_name: &[u8]) -> Option<&[u8]> {
    let mut r = Reader::new(dp_name);
    match r.next() {
        Ok((FULL_NAME, names, _)) => Some(names),
        _ => None,
    }
}

/// What `authoritative_for` reads of an IssuingDistributionPoint.
struct Idp<'a> {
    full_name: Option<&'a [u8]>,
    only_user: bool,
    only_ca: bool,
}

impl<'a> Idp<'a> {
    fn parse(der: &'a [u8]) -> Result<Idp<'a>, &'static str> {
        let mut r = Reader::new(tlv_contents(der, SEQUENCE)?);
        let mut idp = Idp {
            full_name: None,
            only_user: false,
            only_ca: false,
        };
        while r.peek().is_some() {
            let (tag, value, _) = r.next()?;
            match tag {
                DP_NAME => idp.full_name = full_name_of(value),
                0x81 => idp.only_user = value == [0xff],
                0x82 => idp.only_ca = value == [0xff],
                _ => {}
            }
        }
        Ok(idp)
    }
}

/// DistributionPoint's `distributionPoint [0]`, and DistributionPointName's `fullName [0]`.
const DP_NAME: u8 = 0xa0;
const FULL_NAME: u8 = 0xa0;
const DP_REASONS: u8 = 0x81;
const DP_CRL_ISSUER: u8 = 0xa2;
/// GeneralName's `uniformResourceIdentifier [6] IA5String`.
const GN_URI: u8 = 0x86;
