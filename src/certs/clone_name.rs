//! How a clone is named, and how its issuer is found by name: a clone keeps every attribute
//! of the real certificate's subject, and a CA's common name gets a suffix
//! ([`CA_SUFFIX`], or a twin's [`ca_suffix`]) so that a clone never shares a name with the real
//! CA it copies, nor with another profile's twin of it (a verifier that finds issuers by name
//! would otherwise go to the wrong key). A v1 certificate (an old root) counts as a CA.
//!
//! Invariant: a clone's issuer name is its issuer clone's subject byte for byte, since both
//! are made from the same real name by [`clone_name`] with the same suffix.

use rcgen::{CertificateParams, DistinguishedName, DnType, DnValue};
use x509_parser::prelude::{AttributeTypeAndValue, X509Certificate, X509Name};

use crate::pq::Profile;
use crate::pq::scenario::{ChainShape, Scenario, Scts, TwinSet};

/// Suffix appended to the common name of every cloned CA (of today's key types).
pub const CA_SUFFIX: &str = " (certbench mirror)";

/// The suffix of a clone's CA names under `profile` (its twins as served with classical
/// SCTs): [`CA_SUFFIX`], or for a twin ` (certbench mldsa44 twin SC)` ([`set_suffix`]), so
/// that no two profiles' CAs share a name either (a verifier that looks an issuer up by name
/// alone would pick another profile's key).
pub fn ca_suffix(profile: Profile) -> String {
    set_suffix(TwinSet::new(profile, Scenario::AS_SERVED))
}

/// The suffix of `set`'s CA names: [`CA_SUFFIX`] for today's chains; for a twin set
/// ` (certbench mldsa44 twin SC)`, the profile and a code of its scenario of fixed width (the
/// chain `S`erved or `T`rimmed, the SCTs `C`lassical or `P`q), so that no two sets' CAs share a
/// name (a `verify --pq` run trusts every set's roots at once, and a verifier that finds
/// issuers by name would try another set's key) and every scenario's names have the same
/// length (no scenario's bytes differ by its name).
pub fn set_suffix(set: TwinSet) -> String {
    let Some(s) = set.scenario.filter(|_| set.profile.is_pq()) else {
        return CA_SUFFIX.to_owned();
    };
    let chain = match s.chain {
        ChainShape::Served => 'S',
        ChainShape::Trimmed => 'T',
    };
    let scts = match s.scts {
        Scts::Classical => 'C',
        Scts::Pq => 'P',
    };
    format!(" (certbench {} twin {chain}{scts})", set.profile)
}

/// An attribute's type as the arcs of its OID (empty when they do not fit `u64`), as rcgen's
/// `DnType::from_oid` takes it.
pub(super) fn attr_oid(attr: &AttributeTypeAndValue<'_>) -> Vec<u64> {
    attr.attr_type()
        .iter()
        .map(|arcs| arcs.collect())
        .unwrap_or_default()
}

/// `name` as a clone's name: every attribute kept, `suffix` appended to the common name (or
/// a common name made of the suffix when there is none).
pub fn clone_name(name: &X509Name<'_>, suffix: &str) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    let mut has_cn = false;
    for rdn in name.iter_rdn() {
        for attr in rdn.iter() {
            let oid = attr_oid(attr);
            let ty = DnType::from_oid(&oid);
            let mut value = attr.as_str().unwrap_or("").to_owned();
            if ty == DnType::CommonName {
                has_cn = true;
                value.push_str(suffix);
            }
            dn.push(ty, DnValue::Utf8String(value));
        }
    }
    if !has_cn && !suffix.is_empty() {
        dn.push(DnType::CommonName, suffix.trim_start());
    }
    dn
}

/// The subject of `x509` for its clone: `suffix` (the set's, [`set_suffix`]) on the CN of a
/// CA (a v1 certificate is one: see the module's doc).
pub fn subject(x509: &X509Certificate<'_>, suffix: &str) -> DistinguishedName {
    let suffix = if is_ca(x509) || is_v1(x509) {
        suffix
    } else {
        ""
    };
    clone_name(x509.subject(), suffix)
}

/// Whether `x509` is a v1 certificate (an old root, cloned as a v3 CA).
pub fn is_v1(x509: &X509Certificate<'_>) -> bool {
    x509.version() == x509_parser::x509::X509Version::V1
}

/// Whether `x509` is a CA (basicConstraints cA = true).
pub fn is_ca(x509: &X509Certificate<'_>) -> bool {
    matches!(x509.basic_constraints(), Ok(Some(bc)) if bc.value.ca)
}

/// The chain position of the certificate that issued `parsed[i]`, by name; the root (last)
/// is preferred over a sent certificate with the same name.
pub fn issuer_of(parsed: &[X509Certificate<'_>], i: usize) -> Option<usize> {
    let want = parsed[i].issuer().as_raw();
    let root_i = parsed.len() - 1;
    if parsed[root_i].subject().as_raw() == want && i != root_i {
        return Some(root_i);
    }
    (1..root_i).find(|&j| j != i && parsed[j].subject().as_raw() == want)
}

/// The issuer side of a clone: its (suffixed) name and key identifier method.
pub fn issuer_params(x: &X509Certificate<'_>, suffix: &str) -> CertificateParams {
    let mut p = CertificateParams::default();
    p.distinguished_name = subject(x, suffix);
    p
}

/// The issuer name of `x`, suffixed (`suffix`) as a clone CA's would be.
pub fn issuer_name(x: &X509Certificate<'_>, suffix: &str) -> DistinguishedName {
    clone_name(x.issuer(), suffix)
}
