//! The C table of `core/native/certbench_verifier.h` as Rust sees it: the ABI version, the
//! `#[repr(C)]` structs (`certbench_der`, `certbench_ct_log`, `certbench_ct_counts`,
//! `certbench_verifier_v4`, `certbench_verified_sct`) and the reason buffer a call writes into.
//!
//! Invariant: every type here has the layout of its C counterpart in the header; changing one
//! without the other is an ABI break, which [`ABI`] guards.

use std::ffi::{CStr, c_char, c_int, c_void};

/// The ABI version this module speaks (`CERTBENCH_VERIFIER_ABI`).
pub const ABI: u32 = 5;

/// `enum certbench_ev`.
pub(super) const EV_NOT_CANDIDATE: c_int = -1;
pub(super) const EV_GRANTED: c_int = 1;

/// One borrowed DER certificate (`certbench_der`).
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Der {
    pub(super) der: *const u8,
    pub(super) len: usize,
}

impl Der {
    pub(super) fn of(der: &[u8]) -> Der {
        Der {
            der: der.as_ptr(),
            len: der.len(),
        }
    }

    pub(super) const EMPTY: Der = Der {
        der: std::ptr::null(),
        len: 0,
    };
}

/// The most certificates of a verified path read without a second call (mozilla::pkix builds
/// at most 8, BoringSSL's path builder a few more at most in practice); a longer path is read
/// with a second call sized by the first.
pub(super) const PATH_FIRST_TRY: usize = 16;

/// `certbench_ct_log`: one log, borrowed for `ct_logs_new`.
#[repr(C)]
pub(super) struct CtLogDesc {
    pub(super) log_id: *const u8,
    pub(super) key: *const u8,
    pub(super) key_len: usize,
    pub(super) operator_name: *const c_char,
    pub(super) description: *const c_char,
    pub(super) state: c_int,
    pub(super) retired_at: i64,
}

/// `certbench_ct_counts`.
#[repr(C)]
#[derive(Default)]
pub(super) struct CtCounts {
    pub(super) scts: u32,
    pub(super) checked: u32,
    pub(super) valid: u32,
    pub(super) unknown_log: u32,
    pub(super) invalid: u32,
}

/// `enum certbench_ct_log_state`.
pub(super) const CT_LOG_ADMISSIBLE: c_int = 0;
pub(super) const CT_LOG_RETIRED: c_int = 1;

/// `certbench_verifier_v4`, field for field.
#[repr(C)]
pub(super) struct Table {
    pub(super) abi: u32,
    pub(super) library: *const c_char,
    pub(super) version: *const c_char,
    pub(super) policy: *const c_char,
    pub(super) init: unsafe extern "C" fn(*mut c_char, usize) -> c_int,
    pub(super) store_new:
        unsafe extern "C" fn(*const Der, usize, *mut usize, *mut c_char, usize) -> *mut c_void,
    pub(super) store_free: unsafe extern "C" fn(*mut c_void),
    pub(super) chain_new:
        unsafe extern "C" fn(*const Der, usize, *mut c_char, usize) -> *mut c_void,
    pub(super) chain_free: unsafe extern "C" fn(*mut c_void),
    pub(super) verify_ev: unsafe extern "C" fn(*const c_void, *mut c_void, i64) -> c_int,
    pub(super) verify: unsafe extern "C" fn(*const c_void, *mut c_void, i64) -> c_int,
    pub(super) explain: unsafe extern "C" fn(*mut c_void, *mut c_char, usize),
    pub(super) check_name:
        unsafe extern "C" fn(*mut c_void, c_int, *const u8, usize, *mut c_char, usize) -> c_int,
    pub(super) ct_logs_new:
        unsafe extern "C" fn(*const CtLogDesc, usize, c_int, *mut c_char, usize) -> *mut c_void,
    pub(super) ct_logs_free: unsafe extern "C" fn(*mut c_void),
    pub(super) verify_ct: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        *const u8,
        usize,
        i64,
        *mut CtCounts,
    ) -> c_int,
    pub(super) verified_path: unsafe extern "C" fn(*mut c_void, *mut Der, usize) -> c_int,
    pub(super) verified_scts: unsafe extern "C" fn(*mut c_void, *mut VerifiedSct, usize) -> c_int,
}

/// `certbench_verified_sct`: one SCT the last `verify_ct` found valid.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifiedSct {
    /// The log's id (SHA-256 of its key).
    pub log_id: [u8; 32],
    /// The SCT's timestamp, milliseconds since the Unix epoch.
    pub timestamp: u64,
}

// SAFETY: the table is a static object of a shared object never unloaded, never written after
// it is returned; its pointers are to static strings and to functions whose contract allows
// calls from any thread (the stores they take are shareable, see `Store`).
unsafe impl Sync for Table {}
unsafe impl Send for Table {}

/// A reason buffer the library writes into.
pub(super) struct Reason([u8; 512]);

impl Reason {
    pub(super) fn new() -> Reason {
        Reason([0; 512])
    }
    pub(super) fn ptr(&mut self) -> *mut c_char {
        self.0.as_mut_ptr().cast()
    }
    pub(super) fn text(&self, fallback: &str) -> String {
        let text = CStr::from_bytes_until_nul(&self.0)
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        if text.is_empty() {
            fallback.to_owned()
        } else {
            text
        }
    }
}
