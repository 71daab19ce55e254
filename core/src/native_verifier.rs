//! [`NativeVerifier`], the one [`Verifier`] of both browsers' native verifiers (`chrome`,
//! `firefox`): the calls into their shared objects (and every `unsafe` with them) are
//! [`crate::ffi::native`]; this module turns a [`Target`] into those calls and their refusals
//! into [`Rejection`]s.
//!
//! Invariant: a chain is accepted only when the library returned 1 from both its verification
//! and (with a peer name) its name check; a library that cannot be loaded is a
//! [`NativeError`] for that method only (its roots cannot be built, so it verifies nothing).

use std::ffi::c_int;
use std::net::IpAddr;
use std::sync::OnceLock;

use certbench_schema::Stage;
use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::error::Error;
use crate::ffi::native::{Build, LoadError, Loaded, NativeError, Store};
use crate::revocation::crlset::CrlSet;
use crate::revocation::{Loaded as Data, Mechanism, PathParts, RevocationError, no_data};
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, PeerName, Rejection, Target, Verifier};

/// A native verifier as a [`Verifier`]: `library-init` its start-up (once per process),
/// `chain-creation` the library's parse of the chain as sent, `ev-attempt` the browser's EV
/// attempt for a leaf with an EV policy, `verify` its (DV) path building and verification for
/// TLS server authentication at the target's time, `revocation` (with the target's revocation
/// data) the browser's revocation check of the path it built, `ct` (with the target's CT logs)
/// the browser's Certificate Transparency check of that path, and `verify-hostname` its own
/// name check.
pub struct NativeVerifier {
    build: &'static Build,
    cell: &'static OnceLock<Result<Loaded, LoadError>>,
    capabilities: Capabilities,
}

impl NativeVerifier {
    /// The verifier of `build`, loaded into `cell` on first use, able to check `capabilities`.
    pub const fn new(
        build: &'static Build,
        cell: &'static OnceLock<Result<Loaded, LoadError>>,
        capabilities: Capabilities,
    ) -> NativeVerifier {
        NativeVerifier {
            build,
            cell,
            capabilities,
        }
    }

    /// The loaded library, or why it cannot be used.
    pub fn loaded(&self) -> Result<&'static Loaded, NativeError> {
        self.build.load(self.cell)
    }

    /// The verification policy, as samples record it (or why the method is unavailable).
    pub fn policy(&self) -> String {
        match self.loaded() {
            Ok(l) => l.library().2.to_owned(),
            Err(e) => e.to_string(),
        }
    }
}

impl Verifier for NativeVerifier {
    type Roots = Store;

    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }

    fn library(&self) -> Library {
        match self.loaded() {
            Ok(l) => Library {
                name: l.library().0,
                version: l.library().1.to_owned(),
                limbo_harness: None,
            },
            Err(_) => Library {
                name: self.build.library,
                version: "not built".to_owned(),
                limbo_harness: None,
            },
        }
    }

    fn start_up(&self) {
        // Loading runs the library's start-up once (see `Loaded`); a failure is reported by
        // `build_roots`.
        let _ = self.loaded();
    }

    fn take_start_up_ns(&self) -> Option<u64> {
        self.loaded().ok()?.take_start_up_ns()
    }

    fn prepare_ct(&self, logs: &crate::ct::CtLogs) {
        // A failure is reported by `verify` (as a rejection), which asks again.
        if let Ok(loaded) = self.loaded() {
            let _ = loaded.ct_logs(logs);
        }
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<Store, Error> {
        let loaded = self.loaded()?;
        loaded.store(roots).map_err(|refusal| Error::Roots {
            origin: self.build.method.to_owned(),
            message: refusal.0,
        })
    }

    fn verify(
        &self,
        roots: &Store,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        let loaded = roots.loaded();
        let time = i64::try_from(target.time_or_now())
            .map_err(|_| Rejection::new("validation time out of range"))?;
        let span = rec.start();
        let parsed = loaded.chain(&chain.leaf, &chain.intermediates);
        rec.stop(Stage::ChainCreation, span);
        let parsed = parsed.map_err(|r| Rejection::new(format!("bad chain: {r}")))?;

        // The browser's log set, made once per list before any timed stage.
        let ct = match target.ct {
            Some(logs) => Some(
                loaded
                    .ct_logs(logs)
                    .map_err(|r| Rejection::new(format!("CT logs: {}", r.0)))?,
            ),
            None => None,
        };
        loaded
            .verify(roots, &parsed, time, rec)
            .map_err(|r| Rejection::new(r.0))?;
        // CT before revocation, in both browsers: Chrome verifies the SCTs in
        // `CheckPathAfterVerificationImpl` before the CRLSet; current Gecko verifies them inside
        // `CheckRevocationByCRLite` and hands CRLite only the valid ones (`mCTVerifyResult`),
        // then applies the CT policy to that result after path building. So the `ct` stage
        // runs first, a revoked chain has its SCTs checked too, and its verdict waits until
        // revocation has spoken: a revoked chain is rejected as revoked.
        let ct_verdict = ct
            .as_ref()
            .map(|ct| loaded.verify_ct(ct, &parsed, time, rec));
        let verified: Option<Vec<([u8; 32], u64)>> = ct.as_ref().map(|_| {
            loaded
                .verified_scts(&parsed)
                .unwrap_or_default()
                .into_iter()
                .map(|s| (s.log_id, s.timestamp))
                .collect()
        });
        // Revocation, as the browser checks it on the path its builder accepted (Chrome: the
        // CRLSet in `CheckPathAfterVerification`; Firefox: CRLite in `CheckRevocation`).
        if let Some((mechanism, data)) = target.revocation {
            let path = loaded
                .verified_path(&parsed)
                .map_err(|r| Rejection::new(format!("the verified path: {}", r.0)))?;
            let parts = PathParts::from_native(path).map_err(|e| Rejection::new(e.to_string()))?;
            let path = parts.view();
            let now = target.time_or_now();
            data.run(mechanism, None, rec, |data| match (mechanism, data) {
                (Mechanism::CrlSet, Some(Data::CrlSet(set))) => set.check_path(&path, now),
                // No CRLSet downloaded: Chrome checks against its built-in (empty) one.
                (Mechanism::CrlSet, None) => CrlSet::builtin().check_path(&path, now),
                // Gecko's CRLite counts only the SCTs its CT verification found valid; without
                // CT logs no SCT is verified, and the leaf is not covered.
                (Mechanism::Crlite, Some(Data::Crlite(filter))) => {
                    filter.check_gecko_verified(&path, now, verified.as_deref().unwrap_or(&[]))
                }
                (_, None) => no_data(),
                (other, Some(_)) => Err(RevocationError::Invalid {
                    mechanism: other,
                    detail: "not this browser's mechanism".into(),
                }),
            })?;
        }
        if let Some(verdict) = ct_verdict {
            verdict.map_err(|r| Rejection::new(r.0))?;
        }

        let Some(peer) = target.peer else {
            return Ok(());
        };
        let ip;
        let (kind, name): (c_int, &[u8]) = match peer {
            PeerName::Dns(host) => (0, host.as_bytes()),
            PeerName::Ip(IpAddr::V4(a)) => {
                ip = a.octets().to_vec();
                (1, &ip)
            }
            PeerName::Ip(IpAddr::V6(a)) => {
                ip = a.octets().to_vec();
                (1, &ip)
            }
            PeerName::Email(_) => {
                return Err(Rejection::new("cannot check e-mail (RFC 822) peer names"));
            }
        };
        loaded
            .check_name(&parsed, kind, name, rec)
            .map_err(|r| Rejection::new(r.0))?;
        Ok(())
    }
}
