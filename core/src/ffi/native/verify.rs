//! The verification calls of a [`Loaded`] verifier: a store of roots, a parsed chain, the
//! verification with its EV answer, the verified path, the name check, and the library's
//! identity and start-up time.
//!
//! Invariant: a verdict is an accept only when the library returned one; every refusal is
//! the library's reason (or a fallback saying none was given).

use std::ffi::c_int;
use std::sync::atomic::Ordering;

use certbench_schema::{EvOutcome, Stage};
use rustls_pki_types::CertificateDer;

use crate::stages::Recorder;

use super::error::Refusal;
use super::handles::{ParsedChain, Store};
use super::load::Loaded;
use super::table::{Der, EV_GRANTED, EV_NOT_CANDIDATE, PATH_FIRST_TRY, Reason};

/// The refusal of [`Loaded::verified_path`] without an accepted path.
fn no_path() -> Refusal {
    Refusal("no verified path: the last verification of this chain did not accept".into())
}

impl Loaded {
    /// Builds a store from DER roots.
    pub fn store(&'static self, roots: &[CertificateDer<'static>]) -> Result<Store, Refusal> {
        let ders: Vec<Der> = roots.iter().map(|r| Der::of(r)).collect();
        let mut used = 0usize;
        let mut reason = Reason::new();
        // SAFETY: `ders` holds `ders.len()` descriptors of slices alive for the call, `used`
        // and the reason buffer are writable (its length passed); the table's contract says
        // what comes back: a new store or NULL.
        let ptr = unsafe {
            (self.table.store_new)(ders.as_ptr(), ders.len(), &mut used, reason.ptr(), 512)
        };
        if ptr.is_null() {
            return Err(Refusal(reason.text("the store could not be built")));
        }
        Ok(Store {
            ptr,
            loaded: self,
            used,
        })
    }

    /// Parses a chain as sent (`leaf`, then `intermediates`); a refusal is the library's
    /// reason it could not.
    pub fn chain(
        &'static self,
        leaf: &[u8],
        intermediates: &[CertificateDer<'static>],
    ) -> Result<ParsedChain, Refusal> {
        let mut ders = Vec::with_capacity(1 + intermediates.len());
        ders.push(Der::of(leaf));
        ders.extend(intermediates.iter().map(|c| Der::of(c)));
        let mut reason = Reason::new();
        // SAFETY: as for `store`: descriptors of live slices, a writable buffer of 512 bytes.
        let ptr = unsafe { (self.table.chain_new)(ders.as_ptr(), ders.len(), reason.ptr(), 512) };
        if ptr.is_null() {
            return Err(Refusal(reason.text("not parsed")));
        }
        Ok(ParsedChain { ptr, loaded: self })
    }

    /// The path the last [`Loaded::verify`] of `parsed` built and accepted, as the browser
    /// hands it to its revocation check: the end-entity certificate first, each certificate
    /// issued by the next, the trust anchor's certificate last (Chrome: the path builder's best
    /// valid path; Firefox: the chain mozilla::pkix gave the trust domain's IsChainValid). A
    /// refusal when `verify` did not accept (or was not called). The DER is the shim's, valid
    /// as long as `parsed` (the header's contract: kept until `chain_free`, whatever is called
    /// on the chain meanwhile, the store freed or not). Untimed: it copies pointers.
    pub fn verified_path<'c>(&self, parsed: &'c ParsedChain) -> Result<Vec<&'c [u8]>, Refusal> {
        let mut first = [Der::EMPTY; PATH_FIRST_TRY];
        // SAFETY: `parsed` is a live chain of this table used by this thread only; `first` is
        // writable for PATH_FIRST_TRY descriptors; the call writes nothing when the path is
        // longer (or there is none) and never throws (the header's contract).
        let n = unsafe { (self.table.verified_path)(parsed.ptr, first.as_mut_ptr(), first.len()) };
        let n = usize::try_from(n).map_err(|_| no_path())?;
        if n == 0 {
            return Err(no_path());
        }
        let ders: Vec<Der> = if n <= first.len() {
            first[..n].to_vec()
        } else {
            let mut more = vec![Der::EMPTY; n];
            // SAFETY: as above, `more` writable for `n` descriptors, the length the first call
            // gave for this chain (unchanged in between: no other call on it).
            let again =
                unsafe { (self.table.verified_path)(parsed.ptr, more.as_mut_ptr(), more.len()) };
            if usize::try_from(again) != Ok(n) {
                return Err(Refusal(format!(
                    "the verified path changed length between two reads ({n}, then {again})"
                )));
            }
            more
        };
        ders.iter()
            .map(|d| {
                if d.der.is_null() || d.len == 0 {
                    return Err(Refusal(
                        "the verifier returned an empty certificate in its path".into(),
                    ));
                }
                // SAFETY: the shim wrote a descriptor of `d.len` readable bytes that it keeps,
                // unchanged, until `chain_free` on `parsed` (the header's contract), which only
                // `ParsedChain`'s drop calls: the slice cannot outlive `parsed` ('c).
                Ok(unsafe { std::slice::from_raw_parts(d.der, d.len) })
            })
            .collect()
    }

    /// The library's start-up time (`library-init`), the first time a sample asks in this
    /// process; `None` after.
    pub fn take_start_up_ns(&self) -> Option<u64> {
        (!self.start_up_reported.swap(true, Ordering::Relaxed)).then_some(self.start_up_ns)
    }

    /// The library's name and version, and its policy in one line.
    pub fn library(&self) -> (&'static str, &'static str, &'static str) {
        (self.library, self.version, self.policy)
    }

    /// The browser's EV attempt on `parsed` against `roots` at `time`, then (unless it found
    /// an EV path) its DV verification: `ev-attempt` and `verify`, the EV outcome noted in
    /// `rec`. For a leaf with no EV policy the check's time is counted in `verify` (the
    /// browser's verification makes it before its DV attempt). A rejection's reason is
    /// rendered after the timed spans.
    pub fn verify(
        &self,
        roots: &Store,
        parsed: &ParsedChain,
        time: i64,
        rec: &mut Recorder,
    ) -> Result<(), Refusal> {
        let span = rec.start();
        // SAFETY: `roots.ptr` is a live store of this table (shareable, see `Store`), `parsed`
        // a live chain of it used by this thread only.
        let ev = unsafe { (self.table.verify_ev)(roots.ptr, parsed.ptr, time) };
        let ev_ns = span.elapsed_ns();
        if ev == EV_GRANTED {
            rec.add(Stage::EvAttempt, ev_ns);
            rec.note_ev(EvOutcome::Granted);
            return Ok(());
        }
        let span = rec.start();
        // SAFETY: as above.
        let ok = unsafe { (self.table.verify)(roots.ptr, parsed.ptr, time) };
        let verify_ns = span.elapsed_ns();
        if ev == EV_NOT_CANDIDATE {
            rec.add(Stage::Verify, ev_ns + verify_ns);
        } else {
            // Any other value is the fallback (fail closed: only EV_GRANTED grants).
            rec.add(Stage::EvAttempt, ev_ns);
            rec.add(Stage::Verify, verify_ns);
            rec.note_ev(EvOutcome::Fallback);
        }
        if ok != 1 {
            let mut reason = Reason::new();
            // SAFETY: `parsed` is a live chain of this table, used by this thread only; the
            // buffer is writable for 512 bytes.
            unsafe { (self.table.explain)(parsed.ptr, reason.ptr(), 512) };
            return Err(Refusal(reason.text("rejected (no reason given)")));
        }
        Ok(())
    }

    /// The library's check of `parsed`'s end-entity certificate against a name: `kind` 0 a
    /// DNS name (`name` its bytes), 1 an IP address (`name` its octets); timed as
    /// `verify-hostname`.
    pub fn check_name(
        &self,
        parsed: &ParsedChain,
        kind: c_int,
        name: &[u8],
        rec: &mut Recorder,
    ) -> Result<(), Refusal> {
        let mut reason = Reason::new();
        let span = rec.start();
        // SAFETY: as for `verify`; `name` is readable for `name.len()` bytes.
        let ok = unsafe {
            (self.table.check_name)(
                parsed.ptr,
                kind,
                name.as_ptr(),
                name.len(),
                reason.ptr(),
                512,
            )
        };
        rec.stop(Stage::VerifyHostname, span);
        if ok != 1 {
            return Err(Refusal(reason.text("name mismatch (no reason given)")));
        }
        Ok(())
    }
}
