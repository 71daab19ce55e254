//! The CT calls of a [`Loaded`] verifier: its log set ([`Loaded::ct_logs`]), the CT check
//! of a verified chain ([`Loaded::verify_ct`]) and the SCTs it found valid
//! ([`Loaded::verified_scts`]).

use std::ffi::{CString, c_int};

use certbench_schema::{CtOutcome, Stage};

use crate::ct::{CtLogs, LogState};
use crate::stages::Recorder;

use super::error::Refusal;
use super::handles::{NativeCtLogs, ParsedChain};
use super::load::Loaded;
use super::table::{CT_LOG_ADMISSIBLE, CT_LOG_RETIRED, CtCounts, CtLogDesc, Reason, VerifiedSct};

impl Loaded {
    /// This library's set of `logs` (made once per [`CtLogs`] and library, untimed, as a
    /// browser parses its log list once).
    pub fn ct_logs(&'static self, logs: &CtLogs) -> Result<std::sync::Arc<NativeCtLogs>, Refusal> {
        let key = self as *const Loaded as usize;
        logs.prepared(key, |logs| {
            let strings: Vec<(CString, CString)> = logs
                .logs()
                .iter()
                .map(|l| {
                    let c = |s: &str| CString::new(s.replace('\0', "")).unwrap_or_default();
                    (c(&l.operator), c(&l.description))
                })
                .collect();
            let descs: Vec<CtLogDesc> = logs
                .logs()
                .iter()
                .zip(&strings)
                .map(|(l, (op, desc))| {
                    let (state, retired_at) = match l.state {
                        LogState::Admissible => (CT_LOG_ADMISSIBLE, 0),
                        LogState::Retired { at } => {
                            (CT_LOG_RETIRED, i64::try_from(at).unwrap_or(i64::MAX))
                        }
                    };
                    CtLogDesc {
                        log_id: l.id.as_ptr(),
                        key: l.key.as_ptr(),
                        key_len: l.key.len(),
                        operator_name: op.as_ptr(),
                        description: desc.as_ptr(),
                        state,
                        retired_at,
                    }
                })
                .collect();
            let mut reason = Reason::new();
            // SAFETY: `descs` holds `descs.len()` descriptors whose pointers (ids, keys, the
            // NUL-terminated strings of `strings`) live for the call; the buffer is writable
            // for 512 bytes; the library copies what it keeps.
            let ptr = unsafe {
                (self.table.ct_logs_new)(
                    descs.as_ptr(),
                    descs.len(),
                    c_int::from(logs.cache_signatures),
                    reason.ptr(),
                    512,
                )
            };
            if ptr.is_null() {
                return Err(Refusal(reason.text("the CT logs could not be loaded")));
            }
            Ok(NativeCtLogs { ptr, loaded: self })
        })
    }

    /// The browser's CT check of the path `verify` last accepted for `parsed` (timed as `ct`),
    /// its counts noted in `rec`; a refusal is the browser's reason (its policy not met).
    pub fn verify_ct(
        &self,
        logs: &NativeCtLogs,
        parsed: &ParsedChain,
        time: i64,
        rec: &mut Recorder,
    ) -> Result<(), Refusal> {
        let mut counts = CtCounts::default();
        let span = rec.start();
        // SAFETY: `logs.ptr` is a live log set of this table (shareable), `parsed` a live chain
        // of it used by this thread only, which `verify` accepted; `counts` is writable; no
        // TLS SCT list is passed (NULL, 0).
        let ok = unsafe {
            (self.table.verify_ct)(logs.ptr, parsed.ptr, std::ptr::null(), 0, time, &mut counts)
        };
        rec.stop(Stage::Ct, span);
        rec.note_ct(CtOutcome {
            scts: counts.scts,
            checked: counts.checked,
            valid: counts.valid,
            unknown_log: counts.unknown_log,
            invalid: counts.invalid,
            compliant: ok == 1,
        });
        if ok != 1 {
            let mut reason = Reason::new();
            // SAFETY: as for `verify`'s explain.
            unsafe { (self.table.explain)(parsed.ptr, reason.ptr(), 512) };
            return Err(Refusal(reason.text("CT policy not met (no reason given)")));
        }
        Ok(())
    }

    /// The SCTs the last [`Loaded::verify_ct`] of `parsed` found valid, as Gecko hands them to
    /// its CRLite query; `None` when the library keeps no such list (Chrome's) or no CT check
    /// ran since the last verification. Untimed: it copies a few bytes per SCT.
    pub fn verified_scts(&self, parsed: &ParsedChain) -> Option<Vec<VerifiedSct>> {
        let mut first = [VerifiedSct::default(); 16];
        // SAFETY: `parsed` is a live chain of this table used by this thread only; `first` is
        // writable for its length; the call writes nothing when the list is longer (or there
        // is none) and never throws (the header's contract).
        let n = unsafe { (self.table.verified_scts)(parsed.ptr, first.as_mut_ptr(), first.len()) };
        let n = usize::try_from(n).ok()?;
        if n <= first.len() {
            return Some(first[..n].to_vec());
        }
        let mut more = vec![VerifiedSct::default(); n];
        // SAFETY: as above, `more` writable for `n` entries, the length the first call gave
        // for this chain (unchanged in between: no other call on it).
        let again =
            unsafe { (self.table.verified_scts)(parsed.ptr, more.as_mut_ptr(), more.len()) };
        (usize::try_from(again) == Ok(n)).then_some(more)
    }
}
