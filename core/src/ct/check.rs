//! What `--ct` adds to the rustls methods: SCT verification as a rustls user adds it today.
//!
//! rustls parses no SCT and verifies none (it dropped its `sct` crate support in 0.20), and the
//! crates that did (`sct`, `ct-logs`) are unmaintained; so certbench's own code, on rustls'
//! crypto provider: each SCT's signature is checked with the provider's
//! `SignatureVerificationAlgorithm` for the log key's algorithm and the SCT's (the same calls
//! webpki makes for a certificate signature), over the entry RFC 6962 §3.2 defines, then
//! Chrome's policy ([`super::policy::chrome`]) decides: "CT as Chrome checks it".
//!
//! The precertificate entry needs the issuer's key: the method's verified path is not exposed
//! by every method, so the issuer is the sent certificate (else the trust anchor) whose subject
//! is the leaf's issuer, as RFC 6962 §3.2 defines it; a wrong pick fails the signature, so it
//! can only reject (fail closed).

use certbench_schema::{CtOutcome, Stage};
use rustls_pki_types::{
    AlgorithmIdentifier, CertificateDer, SignatureVerificationAlgorithm, TrustAnchor, alg_id,
};

use super::digest::sha256;
use super::list::{CtLog, CtLogs};
use super::policy::{self, Compliance, Origin, ValidSct};
use super::sct::{self, Entry, Sct};
use crate::chain::Chain;
use crate::der::{self, Spki};
use crate::stages::Recorder;
use crate::verifier::{Rejection, Target};

/// Signature algorithms, as rustls' provider lists them.
pub type Algorithms = &'static [&'static dyn SignatureVerificationAlgorithm];

/// The outcome of one chain's CT check.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The counts and the verdict, for the sample.
    pub outcome: CtOutcome,
    /// Chrome's compliance value.
    pub compliance: Compliance,
}

/// The SCT's signature algorithm as an X.509 AlgorithmIdentifier: TLS hash 4 = SHA-256 with
/// signature 3 = ECDSA or 1 = RSA PKCS#1 v1.5 (all RFC 6962 allows), and (0x09, 0x04), TLS's
/// SignatureScheme code point for ML-DSA-44, which certbench's ML-DSA logs write (the twins'
/// `pq-scts` scenario; no real log signs so). Anything else verifies nothing (an invalid SCT).
fn signature_alg_id(sct: &Sct<'_>) -> Option<AlgorithmIdentifier> {
    match (sct.hash, sct.signature_alg) {
        (4, 3) => Some(alg_id::ECDSA_SHA256),
        (4, 1) => Some(alg_id::RSA_PKCS1_SHA256),
        (0x09, 0x04) => Some(alg_id::ML_DSA_44),
        _ => None,
    }
}

/// Whether `sct` from `log` verifies over `signed` with one of `algs`.
pub fn verify_signature(algs: Algorithms, log: &CtLog, sct: &Sct<'_>, signed: &[u8]) -> bool {
    let Some(sig_alg) = signature_alg_id(sct) else {
        return false;
    };
    let Ok(spki) = spki_of(&log.key) else {
        return false;
    };
    algs.iter()
        .filter(|a| a.signature_alg_id() == sig_alg && a.public_key_alg_id().as_ref() == spki.alg)
        .any(|a| a.verify_signature(spki.key, signed, sct.signature).is_ok())
}

fn spki_of(der: &[u8]) -> Result<Spki<'_>, der::DerError> {
    // A SubjectPublicKeyInfo SEQUENCE: strip its header.
    let body = der::sequence_contents(der)?;
    Spki::from_contents(body)
}

/// The SHA-256 of the key of `leaf`'s issuer: the first of `sent` (DER certificates) whose
/// subject is the leaf's issuer, else the first such of `anchors` (webpki trust anchors);
/// `None` if there is none.
pub fn issuer_key_hash(
    leaf: &[u8],
    sent: &[CertificateDer<'_>],
    anchors: &[TrustAnchor<'_>],
) -> Option<[u8; 32]> {
    let issuer = der::issuer(leaf)?;
    for c in sent {
        if let Ok(parts) = der::SignedParts::parse(c)
            && parts.subject == issuer
        {
            return der::spki_tlv(c).map(sha256);
        }
    }
    let anchor = anchors.iter().find(|a| a.subject.as_ref() == issuer)?;
    // A trust anchor keeps the SubjectPublicKeyInfo's contents: hash it with its header.
    let contents = anchor.subject_public_key_info.as_ref();
    let mut spki = Vec::with_capacity(contents.len() + 4);
    der::push_tlv(&mut spki, 0x30, contents);
    Some(sha256(&spki))
}

/// The `ct` stage of a rustls method, after its path verified: nothing without `target.ct`;
/// otherwise [`check`] with the issuer found by [`issuer_key_hash`], timed as `ct`, its
/// counts noted in `rec`. A certificate that does not comply is rejected as Chrome rejects it.
pub fn rustls_stage(
    algs: Algorithms,
    chain: &Chain,
    anchors: &[TrustAnchor<'_>],
    target: &Target<'_>,
    runner: &dyn Runner,
    rec: &mut Recorder,
) -> Result<(), Rejection> {
    let Some(logs) = target.ct else {
        return Ok(());
    };
    let span = rec.start();
    let hash = issuer_key_hash(&chain.leaf, &chain.intermediates, anchors);
    let checked = check(
        algs,
        logs,
        &chain.leaf,
        hash,
        None,
        target.time_or_now(),
        runner,
    );
    rec.stop(Stage::Ct, span);
    rec.note_ct(checked.outcome);
    if checked.outcome.compliant {
        Ok(())
    } else {
        Err(Rejection::new(format!(
            "ERR_CERTIFICATE_TRANSPARENCY_REQUIRED ({}; {} SCTs: {} valid, {} from unknown logs, {} invalid)",
            checked.compliance.name(),
            checked.outcome.scts,
            checked.outcome.valid,
            checked.outcome.unknown_log,
            checked.outcome.invalid
        )))
    }
}

/// One SCT's check: its log in `logs`, its signature over its entry.
#[derive(Clone, Copy, Debug)]
pub enum SctStatus<'l> {
    /// From a known log, its signature good.
    Valid(ValidSct<'l>),
    /// From a log not in the set.
    UnknownLog,
    /// A bad signature, an unusable algorithm, or bytes that are not an SCT; `checked`: a
    /// signature verification was run.
    Invalid {
        /// Whether a signature verification was run.
        checked: bool,
    },
}

/// Checks one encoded SCT of `origin` against `logs` over `entry`.
/// An SCT from after `time_ms` is invalid (Chromium's `SCT_STATUS_INVALID_TIMESTAMP`), with
/// no signature checked.
pub fn check_one<'l>(
    algs: Algorithms,
    logs: &'l CtLogs,
    encoded: &[u8],
    entry: Option<Entry<'_>>,
    origin: Origin,
    time_ms: u64,
    buf: &mut Vec<u8>,
) -> SctStatus<'l> {
    let Ok(sct) = sct::decode(encoded) else {
        return SctStatus::Invalid { checked: false };
    };
    let Some(log) = logs.get(&sct.log_id) else {
        return SctStatus::UnknownLog;
    };
    if sct.timestamp_ms > time_ms {
        return SctStatus::Invalid { checked: false };
    }
    let Some(entry) = entry else {
        // No issuer to rebuild the precertificate entry with.
        return SctStatus::Invalid { checked: false };
    };
    sct::signed_data(&sct, entry, buf);
    if verify_signature(algs, log, &sct, buf) {
        SctStatus::Valid(ValidSct {
            log,
            timestamp_ms: sct.timestamp_ms,
            origin,
        })
    } else {
        SctStatus::Invalid { checked: true }
    }
}

/// How the SCT checks of one chain are run: one after the other, or spread over threads.
pub trait Runner {
    /// Calls `f(i)` for every `i` in `0..n` and returns when all are done.
    fn for_each(&self, n: usize, f: &(dyn Fn(usize) + Sync));
}

/// The checks one after the other, on the calling thread.
pub struct Serial;

impl Runner for Serial {
    fn for_each(&self, n: usize, f: &(dyn Fn(usize) + Sync)) {
        (0..n).for_each(f);
    }
}

impl Runner for crate::pool::SignaturePool {
    fn for_each(&self, n: usize, f: &(dyn Fn(usize) + Sync)) {
        let items: arrayvec::ArrayVec<usize, 16> = (0..n.min(16)).collect();
        crate::pool::SignaturePool::for_each(self, &items, |&i| f(i));
        (16..n).for_each(f);
    }
}

/// Every SCT of `leaf` (embedded, and `delivered`: a TLS extension's list) checked against
/// `logs` at `time` (Unix seconds), the checks run by `runner`, then Chrome's policy.
/// `issuer_key_hash`: see [`issuer_key_hash`].
pub fn check<'l>(
    algs: Algorithms,
    logs: &'l CtLogs,
    leaf: &[u8],
    issuer_key_hash: Option<[u8; 32]>,
    delivered: Option<&[u8]>,
    time: u64,
    runner: &dyn Runner,
) -> Checked {
    let embedded = der::embedded_scts(leaf);
    let mut items: Vec<(&[u8], Option<Entry<'_>>, Origin)> = Vec::new();
    if let Ok(Some(e)) = &embedded {
        let entry = issuer_key_hash.as_ref().map(|h| Entry::Precert {
            issuer_key_hash: h,
            tbs: &e.precert_tbs,
        });
        // A list that does not parse as a whole counts as one invalid SCT.
        match sct::split_list(e.list) {
            Ok(list) => items.extend(list.into_iter().map(|s| (s, entry, Origin::Embedded))),
            Err(_) => items.push((&[][..], None, Origin::Embedded)),
        }
    }
    if let Some(list) = delivered {
        let entry = Some(Entry::X509 { cert: leaf });
        match sct::split_list(list) {
            Ok(list) => items.extend(list.into_iter().map(|s| (s, entry, Origin::Delivered))),
            Err(_) => items.push((&[][..], None, Origin::Delivered)),
        }
    }
    let time_ms = time.saturating_mul(1000);
    let results: Vec<std::sync::OnceLock<SctStatus<'l>>> =
        items.iter().map(|_| std::sync::OnceLock::new()).collect();
    runner.for_each(items.len(), &|i| {
        let (encoded, entry, origin) = items[i];
        let mut buf = Vec::with_capacity(leaf.len() + 64);
        let status = check_one(algs, logs, encoded, entry, origin, time_ms, &mut buf);
        let _ = results[i].set(status);
    });
    let mut outcome = CtOutcome::default();
    let mut valid = Vec::with_capacity(items.len());
    for r in &results {
        outcome.scts += 1;
        // A slot the runner left empty is a failed check (fail closed).
        match r
            .get()
            .copied()
            .unwrap_or(SctStatus::Invalid { checked: false })
        {
            SctStatus::Valid(v) => {
                outcome.checked += 1;
                outcome.valid += 1;
                valid.push(v);
            }
            SctStatus::UnknownLog => outcome.unknown_log += 1,
            SctStatus::Invalid { checked } => {
                outcome.checked += u32::from(checked);
                outcome.invalid += 1;
            }
        }
    }
    let compliance = match der::validity(leaf) {
        Some((nb, na)) => policy::chrome(nb, na, &valid, time),
        None => Compliance::NotEnoughScts,
    };
    outcome.compliant = compliance == Compliance::Complies;
    Checked {
        outcome,
        compliance,
    }
}
