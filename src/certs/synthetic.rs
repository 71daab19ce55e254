//! The mirror's synthetic and fault hosts' certificates, under one synthetic root (RSA-2048,
//! or for a twin the profile's ML-DSA keys; never cached apart from the mirror's set).
//!
//! `cnn.com`, which has no corpus chain, gets a typical shape: an RSA-2048 leaf for `cnn.com`
//! and `*.cnn.com` ← RSA-2048 intermediate ← RSA-2048 root, a 90-day leaf with two SCTs from
//! the mirror's logs of two operators. The fault hosts with certificates:
//! [`EXPIRED_HOST`] (leaf expired ten days ago), [`NOT_YET_VALID_HOST`] (leaf valid from ten
//! years on), [`WRONG_HOST`] (leaf for `other-host.mirror.test` only), [`SELF_SIGNED_HOST`] (a
//! self-signed leaf), [`UNTRUSTED_HOST`] (under a root that is not in the mirror's trust
//! bundle), [`OUT_OF_ORDER_HOST`] (two intermediates sent root side first: valid, as path
//! building does not depend on the order), [`NO_HTTP_HOST`] (valid; the server closes after
//! the handshake) and [`LOAD_WILDCARD`] (every `<name>.load.mirror.test`). The faults that
//! happen on the connection itself are the mirror's (`crate::mirror::faults`).
//!
//! Each intermediate signs its leaf's staple and its CRL ([`super::mirror_revocation`];
//! today's keys only). Invariant: the same code makes the same shapes, names and validity
//! every time; only keys, signatures and times differ, so a cache made by an older generator
//! is told apart by the mirror's generator version alone.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    SanType,
};
use rustls_pki_types::CertificateDer;

use super::ca::{self, Signs};
use super::ct::{self, CtLogs};
use super::host::{HostCert, MakeError, gen_err, revocation_err};
use super::key;
use super::mirror_revocation::{CaLeaves, Crls, ca_crl, staple};
use crate::pq::Profile;

/// Host of the fault that serves an expired leaf.
pub const EXPIRED_HOST: &str = "expired.mirror.test";
/// Host of the fault that serves a leaf for another name.
pub const WRONG_HOST: &str = "wrong-host.mirror.test";
/// Host of the fault that serves a chain under an untrusted root.
pub const UNTRUSTED_HOST: &str = "untrusted.mirror.test";
/// Host of the fault that serves a leaf whose validity starts in ten years.
pub const NOT_YET_VALID_HOST: &str = "not-yet-valid.mirror.test";
/// Host of the fault that serves a self-signed leaf.
pub const SELF_SIGNED_HOST: &str = "self-signed.mirror.test";
/// Host that sends its two intermediates in the wrong order (still valid).
pub const OUT_OF_ORDER_HOST: &str = "out-of-order.mirror.test";
/// A wildcard host: every `<name>.load.mirror.test` is served (for load runs with many sites).
pub const LOAD_WILDCARD: &str = "*.load.mirror.test";

/// Host that handshakes, then closes without an HTTP response (`crate::mirror::faults`).
pub const NO_HTTP_HOST: &str = "no-http.mirror.test";

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The synthetic and fault hosts' certificates: their root (to be trusted), what each host
/// serves, and their CAs' CRLs.
pub struct Synthetic {
    /// The synthetic root, which the mirror's clients trust.
    pub root: CertificateDer<'static>,
    /// Host → what it serves.
    pub hosts: BTreeMap<String, HostCert>,
    /// Each intermediate's CRL by file name (none for twins).
    pub crls: Crls,
}

/// A synthetic host's chain, and its intermediate's CRL (`None` for a twin).
type Signed = (HostCert, Option<(String, Vec<u8>)>);

/// A CA's parameters: `name`, CA with the usual key usages, valid ±10 years around now.
///
/// A twin's CA is named for its profile (`certbench mirror CA (mldsa44 twin)` for
/// `certbench mirror RSA CA`), so that no two profiles' CAs share a name.
fn ca_params(name: &str, now: time::OffsetDateTime, profile: Profile) -> CertificateParams {
    let name = match profile {
        Profile::Classical => name.to_owned(),
        pq => format!("{} ({pq} twin)", name.replace("RSA ", "")),
    };
    let mut subject = ca::common_name(name);
    subject.push(DnType::OrganizationName, "certbench mirror");
    let day = time::Duration::days(1);
    ca::params(
        subject,
        Signs::AlsoResponses,
        now - day * 3650,
        now + day * 3650,
    )
}

/// RSA-2048 leaf ← RSA-2048 intermediate under `root` (the profile's keys for a twin), for
/// `names`, valid from `from` for `days` days; with the intermediate's staple for the leaf
/// and its CRL ([`super::mirror_revocation`]; today's keys only).
fn leaf_chain(
    (root, profile): (&Issuer<'_, &KeyPair>, Profile),
    inter_name: &str,
    names: &[&str],
    from: time::OffsetDateTime,
    days: i64,
    host: &str,
    scts: &[ct::SctSpec<'_>],
) -> Result<Signed, MakeError> {
    let err = gen_err(host);
    let inter_key = key::synthetic_key(profile, true).map_err(&err)?;
    let mut ip = ca_params(inter_name, from, profile);
    ip.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ip.use_authority_key_identifier_extension = true;
    let inter = ip.signed_by(&inter_key, root).map_err(&err)?;
    let inter_issuer = Issuer::new(ip, &inter_key);

    let leaf_key = key::synthetic_key(profile, false).map_err(&err)?;
    let mut lp = CertificateParams::new(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        .map_err(&err)?;
    lp.distinguished_name.push(DnType::CommonName, names[0]);
    lp.subject_alt_names = names
        .iter()
        .map(|n| SanType::DnsName((*n).try_into().expect("valid DNS name")))
        .collect();
    lp.is_ca = IsCa::ExplicitNoCa;
    lp.key_usages = key::leaf_key_usages(profile);
    lp.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    lp.use_authority_key_identifier_extension = true;
    lp.not_before = from;
    lp.not_after = from + time::Duration::days(days);
    let leaf = if scts.is_empty() {
        lp.signed_by(&leaf_key, &inter_issuer).map_err(&err)?
    } else {
        ct::issue_with_scts(&lp, &leaf_key, &inter_issuer, scts).map_err(MakeError::Ct)?
    };
    let (mut ocsp, mut crl) = (None, None);
    if profile == Profile::Classical {
        let now = now() as u64;
        let revocation_err = revocation_err(host);
        ocsp = staple(inter.der(), &inter_key, leaf.der(), host, now).map_err(&revocation_err)?;
        let mut leaves = CaLeaves::default();
        leaves.add(leaf.der(), host);
        crl = Some(ca_crl(inter.der(), &inter_issuer, &leaves, now).map_err(revocation_err)?);
    }
    let host_cert = HostCert {
        chain: vec![leaf.der().clone(), inter.der().clone()],
        key: leaf_key.serialize_der(),
        source: "synthetic".to_owned(),
        ocsp,
        standalone: None,
    };
    Ok((host_cert, crl))
}

/// A self-signed RSA-2048 (or the profile's) leaf for [`SELF_SIGNED_HOST`] (not a CA), alone.
fn self_signed(now: time::OffsetDateTime, profile: Profile) -> Result<HostCert, MakeError> {
    let err = gen_err(SELF_SIGNED_HOST);
    let key = key::synthetic_key(profile, false).map_err(&err)?;
    let mut p = CertificateParams::new(vec![SELF_SIGNED_HOST.to_owned()]).map_err(&err)?;
    p.distinguished_name
        .push(DnType::CommonName, SELF_SIGNED_HOST);
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    p.not_before = now - time::Duration::days(1);
    p.not_after = now + time::Duration::days(90);
    let cert = p.self_signed(&key).map_err(&err)?;
    Ok(HostCert {
        chain: vec![cert.der().clone()],
        key: key.serialize_der(),
        source: "synthetic".to_owned(),
        ocsp: None,
        standalone: None,
    })
}

/// Root → intermediate A → intermediate B → leaf for [`OUT_OF_ORDER_HOST`], sent as leaf, A,
/// B (B, the leaf's issuer, should come first).
fn out_of_order(
    (root, profile): (&Issuer<'_, &KeyPair>, Profile),
    now: time::OffsetDateTime,
) -> Result<HostCert, MakeError> {
    let host = OUT_OF_ORDER_HOST;
    let err = gen_err(host);
    let a_key = key::synthetic_key(profile, true).map_err(&err)?;
    let mut ap = ca_params("certbench mirror RSA CA A (out of order)", now, profile);
    ap.is_ca = IsCa::Ca(BasicConstraints::Constrained(1));
    ap.use_authority_key_identifier_extension = true;
    let a = ap.signed_by(&a_key, root).map_err(&err)?;
    let a_issuer = Issuer::new(ap, &a_key);
    let b_key = key::synthetic_key(profile, true).map_err(&err)?;
    let mut bp = ca_params("certbench mirror RSA CA B (out of order)", now, profile);
    bp.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    bp.use_authority_key_identifier_extension = true;
    let b = bp.signed_by(&b_key, &a_issuer).map_err(&err)?;
    let b_issuer = Issuer::new(bp, &b_key);
    let leaf_key = key::synthetic_key(profile, false).map_err(&err)?;
    let mut lp = CertificateParams::new(vec![host.to_owned()]).map_err(&err)?;
    lp.distinguished_name.push(DnType::CommonName, host);
    lp.is_ca = IsCa::ExplicitNoCa;
    lp.key_usages = key::leaf_key_usages(profile);
    lp.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    lp.use_authority_key_identifier_extension = true;
    lp.not_before = now - time::Duration::days(1);
    lp.not_after = now + time::Duration::days(90);
    let leaf = lp.signed_by(&leaf_key, &b_issuer).map_err(&err)?;
    Ok(HostCert {
        chain: vec![leaf.der().clone(), a.der().clone(), b.der().clone()],
        key: leaf_key.serialize_der(),
        source: "synthetic".to_owned(),
        ocsp: None,
        standalone: None,
    })
}

/// SCTs for a synthetic site's leaf issued at `from`, as a real 90-day leaf has them: 2, from
/// the mirror's first two logs of distinct operators (none when the mirror has no two such
/// logs, or for a post-quantum twin: its SCTs are a later question).
fn synthetic_scts(logs: &CtLogs, profile: Profile, from: i64) -> Vec<ct::SctSpec<'_>> {
    let Some(first) = logs.logs().first() else {
        return Vec::new();
    };
    let Some(second) = logs.logs().iter().find(|l| l.operator != first.operator) else {
        return Vec::new();
    };
    if profile != Profile::Classical {
        return Vec::new();
    }
    let at = u64::try_from(from).unwrap_or(0) * 1000;
    [first, second]
        .into_iter()
        .map(|log| ct::SctSpec {
            log,
            timestamp_ms: at,
            extensions: Vec::new(),
            corrupt_signature: false,
        })
        .collect()
}

/// A fault host whose leaf and intermediate the synthetic root signs, with no SCTs.
struct FaultLeaf {
    host: &'static str,
    /// Its intermediate's name (for a twin, named for the profile: [`ca_params`]).
    inter_name: &'static str,
    /// The leaf's names (the first its common name).
    names: &'static [&'static str],
    /// The leaf's first day, in days from now (90 days of validity from there).
    from_days: i64,
}

/// The fault hosts [`leaf_chain`] makes under the synthetic root (see the module docs).
const FAULT_LEAVES: [FaultLeaf; 5] = [
    FaultLeaf {
        host: EXPIRED_HOST,
        inter_name: "certbench mirror RSA CA (expired)",
        names: &[EXPIRED_HOST],
        from_days: -100,
    },
    FaultLeaf {
        host: WRONG_HOST,
        inter_name: "certbench mirror RSA CA (wrong host)",
        names: &["other-host.mirror.test"],
        from_days: -1,
    },
    FaultLeaf {
        host: NOT_YET_VALID_HOST,
        inter_name: "certbench mirror RSA CA (not yet valid)",
        names: &[NOT_YET_VALID_HOST],
        from_days: 3650,
    },
    FaultLeaf {
        host: NO_HTTP_HOST,
        inter_name: "certbench mirror RSA CA (no HTTP)",
        names: &[NO_HTTP_HOST],
        from_days: -1,
    },
    FaultLeaf {
        host: LOAD_WILDCARD,
        inter_name: "certbench mirror RSA CA (load)",
        names: &[LOAD_WILDCARD],
        from_days: -1,
    },
];

/// `cnn.com`'s chain under `root`: a 30-day-old 90-day leaf for `cnn.com` and `*.cnn.com`,
/// with SCTs from `logs` ([`synthetic_scts`]).
fn cnn(
    root: (&Issuer<'_, &KeyPair>, Profile),
    now_secs: i64,
    logs: &CtLogs,
) -> Result<Signed, MakeError> {
    let now = time::OffsetDateTime::from_unix_timestamp(now_secs).expect("now is a valid time");
    leaf_chain(
        root,
        "certbench mirror RSA CA",
        &["cnn.com", "*.cnn.com"],
        now - time::Duration::days(30),
        90,
        "cnn.com",
        &synthetic_scts(logs, root.1, now_secs - 30 * 86_400),
    )
}

/// One of [`FAULT_LEAVES`]' chains under `root`.
fn fault_leaf(
    root: (&Issuer<'_, &KeyPair>, Profile),
    now: time::OffsetDateTime,
    fault: &FaultLeaf,
) -> Result<Signed, MakeError> {
    leaf_chain(
        root,
        fault.inter_name,
        fault.names,
        now + time::Duration::days(fault.from_days),
        90,
        fault.host,
        &[],
    )
}

/// [`UNTRUSTED_HOST`]'s chain: leaf ← intermediate under a root of its own, which no client
/// trusts (the root itself is never served).
fn untrusted(now: time::OffsetDateTime, profile: Profile) -> Result<Signed, MakeError> {
    let err = gen_err(UNTRUSTED_HOST);
    let untrusted_key = key::synthetic_key(profile, true).map_err(&err)?;
    let untrusted_params = ca_params("certbench mirror untrusted root", now, profile);
    let untrusted_issuer = Issuer::new(untrusted_params, &untrusted_key);
    leaf_chain(
        (&untrusted_issuer, profile),
        "certbench mirror RSA CA (untrusted)",
        &[UNTRUSTED_HOST],
        now - time::Duration::days(1),
        90,
        UNTRUSTED_HOST,
        &[],
    )
}

/// Every synthetic and fault host's chain (see the module docs), made at `now_secs` with
/// `profile`'s keys, the synthetic sites' leaves with SCTs from `logs`.
pub fn synthetic_hosts(
    now_secs: i64,
    profile: Profile,
    logs: &CtLogs,
) -> Result<Synthetic, MakeError> {
    let now = time::OffsetDateTime::from_unix_timestamp(now_secs).expect("now is a valid time");
    let err = gen_err("synthetic root");
    let root_key = key::synthetic_key(profile, true).map_err(&err)?;
    let root_params = ca_params("certbench mirror synthetic root", now, profile);
    let root = root_params.self_signed(&root_key).map_err(&err)?;
    let root_issuer = Issuer::new(root_params, &root_key);
    let root_issuer = (&root_issuer, profile);

    let mut hosts = BTreeMap::new();
    let mut crls = Crls::new();
    let mut put = |host: &str, (cert, crl): Signed| {
        hosts.insert(host.to_owned(), cert);
        crls.extend(crl);
    };
    put("cnn.com", cnn(root_issuer, now_secs, logs)?);
    for fault in &FAULT_LEAVES {
        put(fault.host, fault_leaf(root_issuer, now, fault)?);
    }
    put(SELF_SIGNED_HOST, (self_signed(now, profile)?, None));
    put(OUT_OF_ORDER_HOST, (out_of_order(root_issuer, now)?, None));
    put(UNTRUSTED_HOST, untrusted(now, profile)?);
    Ok(Synthetic {
        root: root.der().clone(),
        hosts,
        crls,
    })
}
