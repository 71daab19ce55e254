//! `certbench handshake --revocation`: revocation data made for the run's certificate, as
//! `--ct` makes its logs ([`super::ct`]), into a folder of its own (removed with the run) in
//! the layout [`DataFiles::in_dir`] reads:
//! - `crlset`: Chrome's CRLSet enrolling the run's CAs, at Chrome's real size
//!   ([`crlset::Scale::CHROME`]);
//! - `crlite.filter` and `upki/`: a clubcard CRLite filter enrolling the leaf's issuer (its
//!   coverage: the run's two logs), beside [`crlite::Scale::SMALL`]'s 10 M synthetic
//!   certificates: not the published 900 M (`bundle::Scale::Full`'s, ~3 minutes to build),
//!   which a handshake run, whose CA is fresh each time, cannot cache;
//! - `crls/*.crl`: a CRL per CA of the chain, signed by it, of [`CRL_SERIALS`] synthetic
//!   serials;
//! - and an OCSP response for the leaf, signed by its issuer, which the server staples
//!   ([`RunData::staple`]).
//!
//! None of the run's certificates is revoked: every handshake must succeed, its check `good`.
//! At `bundle::Scale::Test` the CRLSet holds the run's CAs alone and the filter is
//! [`crlite::Scale::TINY`] (for tests). Made by [`crate::revocation::generate`], at its
//! scale table's `fresh_filter` size.
//!
//! [`crlset::Scale::CHROME`]: crate::revocation::crlset::Scale::CHROME

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use certbench_core::revocation::{DataFiles, Mechanism, RevocationData};
use certbench_core::stages::Recorder;
use certbench_core::timed::MethodVerifier;
use certbench_schema::Stage;
use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};

use super::error::HandshakeError;
use crate::certs::ocsp;
use crate::certs::test::SERVER_NAME;
use crate::certs::test::{Ca, Signed};
use crate::revocation::generate::{self, Spec, WriteError};
use crate::revocation::issuers::{self, Leaf};
use crate::revocation::{bundle, crlite};

/// Serials in each CA's CRL (rustls-webpki PR #108's smallest scale).
pub const CRL_SERIALS: usize = 2_000;
/// Days the CRLSet, the CRLs and the OCSP response are valid from now.
const VALID_DAYS: u64 = 7;

/// The revocation data of one certificate of a run (see the module docs).
pub struct RunData {
    /// The mechanism `--revocation` names for Servo's rustls methods (the browsers' methods
    /// check with their own).
    pub rustls: Mechanism,
    /// The data, loaded once per run ([`RunData::preload`]).
    pub data: Arc<RevocationData>,
    /// The OCSP response the server staples (DER).
    pub staple: Vec<u8>,
    /// How long making it took.
    pub took: Duration,
    /// The scale it was made at.
    pub scale: bundle::Scale,
    dir: PathBuf,
    loads: Mutex<BTreeMap<Mechanism, u64>>,
}

impl Drop for RunData {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Why the data cannot be made.
fn gen_error(what: &str) -> impl Fn(String) -> HandshakeError + '_ {
    move |e| HandshakeError::Setup(format!("revocation data for the run ({what}): {e}"))
}

/// Makes the data of `signed`'s chain at `scale`, the rustls methods checking with `rustls`.
pub fn make(
    signed: &Signed,
    rustls: Mechanism,
    scale: bundle::Scale,
) -> Result<RunData, HandshakeError> {
    let started = Instant::now();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let until = now + VALID_DAYS * 86_400;
    static RUN: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "certbench-handshake-revocation-{}-{}",
        std::process::id(),
        RUN.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let io = gen_error("writing it");
    std::fs::create_dir_all(dir.join("crls")).map_err(|e| io(e.to_string()))?;
    // From here the folder is removed with `RunData`, whatever fails.
    let mut run = RunData {
        rustls,
        data: Arc::new(RevocationData::new(DataFiles::default())),
        staple: Vec::new(),
        took: Duration::ZERO,
        scale,
        dir,
        loads: Mutex::new(BTreeMap::new()),
    };
    write_files(&run.dir, signed, now, until, scale)?;
    let leaf = &signed.cert.chain[0];
    let issuer = &signed.cas[0];
    run.staple = ocsp::response(
        &issuer.der,
        &issuer.key,
        leaf,
        ocsp::OcspStatus::Good,
        now - 3600,
        Some(until),
    )
    .map_err(|e| gen_error("OCSP response")(e.to_string()))?;
    let origin = match scale {
        bundle::Scale::Full | bundle::Scale::Medium => "the handshake run",
        bundle::Scale::Test => "the handshake run, test scale",
    };
    run.data = Arc::new(RevocationData::new(DataFiles::in_dir(&run.dir, origin)));
    run.took = started.elapsed();
    Ok(run)
}

/// The issuers of the chain as the generators take them: the leaf's issuer with the leaf
/// (its serial and SCTs) and, with an intermediate, the root with the intermediate.
fn chain_issuers(signed: &Signed) -> Result<Vec<crate::revocation::Issuer>, HandshakeError> {
    let cas: Vec<&[u8]> = signed.cas.iter().map(|c| c.der.as_ref()).collect();
    let mut leaves = vec![Leaf {
        host: SERVER_NAME,
        leaf: signed.cert.chain[0].as_ref(),
        candidates: cas.clone(),
    }];
    for (i, ca) in cas.iter().enumerate().take(cas.len() - 1) {
        leaves.push(Leaf {
            host: "the run's intermediate",
            leaf: ca,
            candidates: cas[i + 1..].to_vec(),
        });
    }
    issuers::issuers(&leaves).map_err(|e| gen_error("the chain")(e.to_string()))
}

/// Writes `crlset`, `crlite.filter`, `upki/` and `crls/*.crl` into `dir`.
fn write_files(
    dir: &std::path::Path,
    signed: &Signed,
    now: u64,
    until: u64,
    scale: bundle::Scale,
) -> Result<(), HandshakeError> {
    let issuers = chain_issuers(signed)?;
    let sizes = scale.sizes();
    // CRLite enrolls the leaf's issuer (it checks end-entity certificates only), covering
    // the run's logs from a day before the leaf's SCTs to now.
    let leaf_issuer: Vec<_> = (issuers.iter())
        .filter(|i| i.issued.iter().any(|c| !c.scts.is_empty()))
        .cloned()
        .collect();
    let spec = Spec {
        crlset: (&issuers, sizes.crlset, until),
        filter: (&leaf_issuer, sizes.fresh_filter),
        made_at: now,
    };
    generate::write(dir, spec).map_err(|e| match e {
        WriteError::CrlSet(e) => gen_error("CRLSet")(e.to_string()),
        WriteError::Filter(e) => gen_error("CRLite filter")(e.to_string()),
        WriteError::Upki(e) => gen_error("upki store")(e.to_string()),
        WriteError::Io { file, source, .. } => gen_error(file)(source.to_string()),
    })?;
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(dir.join(name), bytes).map_err(|e| gen_error(name)(e.to_string()))
    };
    for (i, ca) in signed.cas.iter().enumerate() {
        write(&format!("crls/{i}.crl"), &ca_crl(ca, i as u64, now, until)?)?;
    }
    Ok(())
}

/// The CRL of `ca`: [`CRL_SERIALS`] synthetic serials from `seed`, none of the run's.
fn ca_crl(ca: &Ca, seed: u64, now: u64, until: u64) -> Result<Vec<u8>, HandshakeError> {
    generate::crl(&ca.signer(), CRL_SERIALS, seed, &[], now, until)
        .map_err(|e| gen_error("CRL")(e.to_string()))
}

impl RunData {
    /// Loads `mechanism`'s data, once per run, before any timed handshake: the time the one
    /// load took (`revocation-load`), the same for every configuration checking with it;
    /// `None` for `ocsp`, which has nothing to load (the response comes with each handshake).
    pub fn preload(&self, mechanism: Mechanism) -> Option<Duration> {
        let mut loads = self.loads.lock().unwrap_or_else(|e| e.into_inner());
        let ns = *loads.entry(mechanism).or_insert_with(|| {
            let mut rec = Recorder::new();
            self.data.preload(mechanism, &mut rec);
            rec.get(Stage::RevocationLoad).unwrap_or(0)
        });
        (mechanism != Mechanism::Ocsp).then(|| Duration::from_nanos(ns))
    }

    /// How a run's configuration names `mechanism` with this data: the mechanism and its
    /// data's size (for `ocsp`, the stapled response's).
    pub fn label(&self, mechanism: Mechanism) -> String {
        match mechanism {
            Mechanism::Ocsp => format!("ocsp: a {}-byte response stapled", self.staple.len()),
            m => self.data.label(m),
        }
    }

    /// One line for the run's notes: what was made, at which scale, in how long.
    pub fn describe(&self) -> String {
        let sizes = self.scale.sizes();
        let (crlset_scale, crlite_scale) = (sizes.crlset, sizes.fresh_filter);
        let files = self.data.files();
        let set = match crlset_scale.parents {
            0 => "the run's CAs alone",
            _ => "Chrome's size",
        };
        format!(
            "revocation data for the run's certificate made in {:.1} s: a CRLSet of {} bytes ({set}), a CRLite filter of {} bytes ({} scale: {} synthetic certificates beside the run's, not the published {}, which takes minutes to build), {} CRL(s) of {CRL_SERIALS} serials, a {}-byte OCSP response; none of the run's certificates revoked",
            self.took.as_secs_f64(),
            files.bytes(Mechanism::CrlSet),
            files.bytes(Mechanism::Crlite),
            crlite_scale.name,
            crlite_scale.certificates(),
            crlite::PUBLISHED.0,
            files.crls.len(),
            self.staple.len(),
        )
    }
}

/// What a configuration's verifications found, counted over every one of them.
#[derive(Debug, Default)]
pub struct Counts {
    /// Verifications whose revocation stage ran.
    pub checks: AtomicU64,
    /// Of those, the checks that found the path `good`.
    pub good: AtomicU64,
    /// Bytes of data the last check read (for `ocsp`, the stapled response).
    pub data_bytes: AtomicU64,
    /// Bytes the mechanism keeps in memory between checks.
    pub resident_bytes: AtomicU64,
}

/// A certbench method inside the rustls client ([`MethodVerifier`]), counting what its
/// revocation checks found into [`Counts`]: the same call rustls makes, with the recorder the
/// method's stages go to read afterwards.
#[derive(Debug)]
pub struct Counted {
    /// The method.
    pub inner: MethodVerifier,
    /// Where its checks are counted.
    pub counts: Arc<Counts>,
}

impl ServerCertVerifier for Counted {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let mut rec = Recorder::new();
        let certs = (end_entity, intermediates);
        let verdict = (self.inner).verify_stapled(certs, server_name, ocsp_response, now, &mut rec);
        if let Some(o) = rec.revocation() {
            self.counts.checks.fetch_add(1, Ordering::Relaxed);
            if o.status == certbench_schema::Status::Good {
                self.counts.good.fetch_add(1, Ordering::Relaxed);
            }
            (self.counts.data_bytes).store(o.data_bytes, Ordering::Relaxed);
            (self.counts.resident_bytes).store(o.resident_bytes, Ordering::Relaxed);
        }
        verdict
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}
