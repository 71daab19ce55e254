//! The mirror's certificate set as made (never read from a cache): every corpus host's chain
//! cloned, or twinned under a post-quantum profile ([`super::clone`]), each leaf's staple and
//! each issuing CA's CRL while the CA clone's key exists ([`super::mirror_revocation`]), and
//! the synthetic and fault hosts ([`super::synthetic`]).
//!
//! Hosts: every host of the corpus, its first chain in manifest order (a chain without a root
//! is skipped); the clones' roots once each, then the synthetic root. The mirror
//! (`crate::mirror`) caches the result and serves it.
//!
//! Under `mtc` ([`make_mtc`]), each host's leaf is the ML-DSA-44 twin's leaf issued again by
//! certbench's Merkle Tree CA ([`super::mtc`]), all in one batch: the landmark-relative
//! certificate, served alone (no intermediate); the hosts whose fault is their issuer
//! (self-signed, untrusted, out of order) keep their ML-DSA-44 chains.

use std::collections::BTreeMap;

use rustls_pki_types::CertificateDer;

use super::clone::Cloner;
use super::ct::{CtLogs, LogAlgorithm};
use super::host::{HostCert, MakeError, revocation_err};
use super::mirror_revocation as revocation;
use super::synthetic::synthetic_hosts;
use super::trim::trimmed;
use crate::pq::Profile;
use crate::pq::scenario::{ChainShape, Scenario, Scts, TwinSet};
use certbench_core::corpus::Corpus;

/// What the mirror serves, as made.
pub struct Made {
    /// Host → what it serves.
    pub hosts: BTreeMap<String, HostCert>,
    /// Roots to trust (the clones of the corpus roots and the synthetic root; never the
    /// untrusted fault's root).
    pub roots: Vec<CertificateDer<'static>>,
    /// Each issuing CA's CRL (DER) by file name; none for twins.
    pub crls: revocation::Crls,
    /// The CT logs whose SCTs the clones' leaves carry (with their private keys).
    pub ct_logs: CtLogs,
}

/// Every host's certificates in `set` (its profile's keys, its scenario's SCTs and chains),
/// made at `now` (Unix seconds; slow: fresh keys). The synthetic hosts are the profile's
/// whatever the scenario.
pub fn make(corpus: &Corpus, set: TwinSet, now: i64) -> Result<Made, MakeError> {
    let (profile, scenario) = (set.profile, set.scenario_or_today());
    if profile == Profile::Mtc {
        return make_mtc(corpus, now);
    }
    let algorithm = match scenario.scts {
        Scts::Classical => LogAlgorithm::EcdsaP256,
        Scts::Pq => LogAlgorithm::MlDsa44,
    };
    let ct_logs = CtLogs::for_corpus(corpus, algorithm).map_err(MakeError::Ct)?;
    let mut cloner = Cloner::for_set(set, ct_logs);
    let mut hosts = BTreeMap::new();
    let mut roots: Vec<CertificateDer<'static>> = Vec::new();
    // Per issuing CA (its clone's DER): the chain it was met in, and what its CRL lists.
    let mut cas: BTreeMap<Vec<u8>, (usize, revocation::CaLeaves)> = BTreeMap::new();
    for (i, c) in corpus.chains.iter().enumerate() {
        if hosts.contains_key(&c.host) || c.roots.is_empty() {
            continue;
        }
        let sent: Vec<CertificateDer<'static>> = c.chain.iter().cloned().collect();
        let (sent, root) = match scenario.chain {
            ChainShape::Served => (sent, c.roots[0].clone()),
            ChainShape::Trimmed => trimmed(&sent, &c.roots[0]),
        };
        let shift = now - c.validation_time as i64;
        let cloned =
            cloner
                .clone_chain(&sent, &root, shift)
                .map_err(|source| MakeError::Clone {
                    host: c.host.clone(),
                    source,
                })?;
        if !roots.iter().any(|r| r.as_ref() == cloned.root.as_ref()) {
            roots.push(cloned.root.clone());
        }
        // The staple, while the issuer's key exists (classical chains only: see
        // [`super::mirror_revocation`]).
        let mut ocsp = None;
        if profile == Profile::Classical
            && let Some((issuer_der, issuer)) = cloner.leaf_issuer(&sent, &root)
        {
            let leaf = cloned.sent[0].as_ref();
            ocsp = revocation::staple(&issuer_der, issuer.key(), leaf, &c.host, now as u64)
                .map_err(revocation_err(&c.host))?;
            let ca = cas
                .entry(issuer_der.to_vec())
                .or_insert((i, Default::default()));
            ca.1.add(leaf, &c.host);
        }
        hosts.insert(
            c.host.clone(),
            HostCert {
                chain: cloned.sent,
                key: cloned.leaf_key,
                source: c.id.clone(),
                ocsp,
                standalone: None,
            },
        );
    }
    let mut crls = revocation::Crls::new();
    for (issuer_der, (i, leaves)) in &cas {
        let c = &corpus.chains[*i];
        let sent: Vec<CertificateDer<'static>> = c.chain.iter().cloned().collect();
        let Some((_, issuer)) = cloner.leaf_issuer(&sent, &c.roots[0]) else {
            continue;
        };
        let (name, der) = revocation::ca_crl(issuer_der, &issuer, leaves, now as u64)
            .map_err(revocation_err(&c.host))?;
        crls.insert(name, der);
    }
    let ct_logs = cloner.into_ct_logs();
    let synthetic = synthetic_hosts(now, profile, &ct_logs)?;
    roots.push(synthetic.root);
    hosts.extend(synthetic.hosts);
    crls.extend(synthetic.crls);
    Ok(Made {
        hosts,
        roots,
        crls,
        ct_logs,
    })
}

/// Hosts whose fault is their issuer: no MTC of certbench's CA could show it.
const ISSUER_FAULTS: [&str; 3] = [
    super::synthetic::SELF_SIGNED_HOST,
    super::synthetic::UNTRUSTED_HOST,
    super::synthetic::OUT_OF_ORDER_HOST,
];

/// The `mtc` set: the ML-DSA-44 twins' leaves (their names and validity, shifted to now)
/// issued again as Merkle Tree Certificates in one batch, each served alone; the roots are
/// the twins' (for the hosts left as chains) and the MTC CA's certificate with its landmark.
pub fn make_mtc(corpus: &Corpus, now: i64) -> Result<Made, MakeError> {
    let mut made = make(
        corpus,
        TwinSet::new(Profile::MlDsa44, Scenario::AS_SERVED),
        now,
    )?;
    let hosts: Vec<String> = (made.hosts.keys())
        .filter(|h| !ISSUER_FAULTS.contains(&h.as_str()))
        .cloned()
        .collect();
    let templates: Vec<&[u8]> = hosts
        .iter()
        .map(|h| made.hosts[h].chain[0].as_ref())
        .collect();
    let batch = super::mtc::issue::issue(&templates).map_err(|e| MakeError::Mtc(e.to_string()))?;
    for (host, issued) in hosts.iter().zip(batch.leaves) {
        let served = made.hosts.get_mut(host).expect("a host of the set");
        served.chain = vec![issued.landmark_relative];
        served.standalone = Some(vec![issued.standalone]);
        served.key = issued.key_pkcs8;
        served.ocsp = None;
    }
    made.roots.push(batch.ca_certificate);
    Ok(made)
}
