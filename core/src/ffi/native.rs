//! The browsers' native verifiers (Chrome's BoringSSL libpki, Firefox's mozilla::pkix): every
//! `unsafe` call into them, each with its SAFETY argument. The one [`Verifier`] both methods
//! use over these calls is [`crate::native_verifier::NativeVerifier`].
//!
//! [`Verifier`]: crate::verifier::Verifier
//!
//! `core/build.rs` builds each into a shared object that exports one symbol,
//! `certbench_verifier_v4_table`, and hides the rest (BoringSSL's libcrypto would clash with
//! the system OpenSSL's otherwise); its path is baked in at build time
//! (`CERTBENCH_<NAME>_SO`, overridable at run time by the environment variable of the same
//! name). It is loaded once per process with `dlopen(RTLD_NOW | RTLD_LOCAL)` and never
//! unloaded, and called only through the table of `core/native/certbench_verifier.h`, whose
//! contract is: no C++ exception crosses a call; a refusal or a failure is a reason in a
//! buffer; a verdict is an accept only when the library accepted; a store is never changed
//! after it is built (so it is shared between threads). A shared object that is missing (its
//! build needs tools or a source a machine may lack) is an [`NativeError::Unavailable`] that
//! says what to do, for that method only.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use certbench_schema::{CtOutcome, EvOutcome, Stage};
use rustls_pki_types::CertificateDer;

use crate::ct::{CtLogs, LogState};
use crate::stages::Recorder;

/// The ABI version this module speaks (`CERTBENCH_VERIFIER_ABI`).
const ABI: u32 = 5;

/// `enum certbench_ev`.
const EV_NOT_CANDIDATE: c_int = -1;
const EV_GRANTED: c_int = 1;

/// One borrowed DER certificate (`certbench_der`).
#[repr(C)]
#[derive(Clone, Copy)]
struct Der {
    der: *const u8,
    len: usize,
}

impl Der {
    fn of(der: &[u8]) -> Der {
        Der {
            der: der.as_ptr(),
            len: der.len(),
        }
    }

    const EMPTY: Der = Der {
        der: std::ptr::null(),
        len: 0,
    };
}

/// The most certificates of a verified path read without a second call (mozilla::pkix builds
/// at most 8, BoringSSL's path builder a few more at most in practice); a longer path is read
/// with a second call sized by the first.
const PATH_FIRST_TRY: usize = 16;

/// `certbench_ct_log`: one log, borrowed for `ct_logs_new`.
#[repr(C)]
struct CtLogDesc {
    log_id: *const u8,
    key: *const u8,
    key_len: usize,
    operator_name: *const c_char,
    description: *const c_char,
    state: c_int,
    retired_at: i64,
}

/// `certbench_ct_counts`.
#[repr(C)]
#[derive(Default)]
struct CtCounts {
    scts: u32,
    checked: u32,
    valid: u32,
    unknown_log: u32,
    invalid: u32,
}

/// `enum certbench_ct_log_state`.
const CT_LOG_ADMISSIBLE: c_int = 0;
const CT_LOG_RETIRED: c_int = 1;

/// `certbench_verifier_v4`, field for field.
#[repr(C)]
struct Table {
    abi: u32,
    library: *const c_char,
    version: *const c_char,
    policy: *const c_char,
    init: unsafe extern "C" fn(*mut c_char, usize) -> c_int,
    store_new:
        unsafe extern "C" fn(*const Der, usize, *mut usize, *mut c_char, usize) -> *mut c_void,
    store_free: unsafe extern "C" fn(*mut c_void),
    chain_new: unsafe extern "C" fn(*const Der, usize, *mut c_char, usize) -> *mut c_void,
    chain_free: unsafe extern "C" fn(*mut c_void),
    verify_ev: unsafe extern "C" fn(*const c_void, *mut c_void, i64) -> c_int,
    verify: unsafe extern "C" fn(*const c_void, *mut c_void, i64) -> c_int,
    explain: unsafe extern "C" fn(*mut c_void, *mut c_char, usize),
    check_name:
        unsafe extern "C" fn(*mut c_void, c_int, *const u8, usize, *mut c_char, usize) -> c_int,
    ct_logs_new:
        unsafe extern "C" fn(*const CtLogDesc, usize, c_int, *mut c_char, usize) -> *mut c_void,
    ct_logs_free: unsafe extern "C" fn(*mut c_void),
    verify_ct: unsafe extern "C" fn(
        *const c_void,
        *mut c_void,
        *const u8,
        usize,
        i64,
        *mut CtCounts,
    ) -> c_int,
    verified_path: unsafe extern "C" fn(*mut c_void, *mut Der, usize) -> c_int,
    verified_scts: unsafe extern "C" fn(*mut c_void, *mut VerifiedSct, usize) -> c_int,
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

/// Why a native verifier cannot be used in this process.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NativeError {
    /// It was not built, or its shared object cannot be loaded.
    #[error("method `{method}` is not available: {why}; {how}")]
    Unavailable {
        /// The method.
        method: &'static str,
        /// Why.
        why: LoadError,
        /// What to do about it.
        how: &'static str,
    },
}

/// Why a native verifier's shared object could not be loaded (the `why` of
/// [`NativeError::Unavailable`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The build left it out.
    #[error("it was not built ({missing})")]
    NotBuilt {
        /// Why the build left it out.
        missing: &'static str,
    },
    /// The path (from the environment) holds a NUL.
    #[error("{path}: NUL in path")]
    NulInPath {
        /// The path.
        path: String,
    },
    /// `dlopen` failed.
    #[error("cannot load {path}: {reason}")]
    Open {
        /// The shared object.
        path: String,
        /// dlerror's message.
        reason: String,
    },
    /// The shared object does not export the table's function.
    #[error("{path} has no certbench_verifier_v4_table: {reason}")]
    NoTable {
        /// The shared object.
        path: String,
        /// dlerror's message.
        reason: String,
    },
    /// The table's function returned NULL.
    #[error("{path}: the verifier's table is NULL")]
    NullTable {
        /// The shared object.
        path: String,
    },
    /// The library's start-up (`init`) failed.
    #[error("{path}: the library did not start: {reason}")]
    Init {
        /// The shared object.
        path: String,
        /// The library's reason.
        reason: String,
    },
    /// The table speaks another ABI version.
    #[error("{path}: ABI {found} where {ABI} is expected")]
    Abi {
        /// The shared object.
        path: String,
        /// The table's ABI version.
        found: u32,
    },
}

/// A native library's refusal or failure, in its own words (the reason buffer it wrote, or a
/// fallback when it wrote none).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

/// A native verifier as the build left it: which method, where its shared object is, why it
/// was not built, and how to get it.
#[derive(Debug)]
pub struct Build {
    /// The method's name.
    pub method: &'static str,
    /// The environment variable that overrides `path` at run time (`CERTBENCH_CHROME_SO`).
    pub env: &'static str,
    /// The shared object's path as built (empty: not built).
    pub path: &'static str,
    /// Why the build left it out (empty when built).
    pub missing: &'static str,
    /// What a user does to get it.
    pub how: &'static str,
    /// The library's name when it cannot be loaded (for result files).
    pub library: &'static str,
}

/// A loaded and started native verifier: its table, valid for the rest of the process.
pub struct Loaded {
    table: &'static Table,
    library: &'static str,
    version: &'static str,
    policy: &'static str,
    /// What the library's start-up (`init`) took, once in this process.
    start_up_ns: u64,
    /// Whether a sample has reported `start_up_ns` (`library-init`).
    start_up_reported: AtomicBool,
}

impl Build {
    /// The loaded verifier, loading it on first use.
    pub fn load(
        &'static self,
        cell: &'static OnceLock<Result<Loaded, LoadError>>,
    ) -> Result<&'static Loaded, NativeError> {
        cell.get_or_init(|| self.open())
            .as_ref()
            .map_err(|why| NativeError::Unavailable {
                method: self.method,
                why: why.clone(),
                how: self.how,
            })
    }

    fn open(&self) -> Result<Loaded, LoadError> {
        let path = match std::env::var(self.env) {
            Ok(p) if !p.is_empty() => p,
            _ if !self.path.is_empty() => self.path.to_owned(),
            _ => {
                return Err(LoadError::NotBuilt {
                    missing: self.missing,
                });
            }
        };
        let c_path =
            CString::new(path.clone()).map_err(|_| LoadError::NulInPath { path: path.clone() })?;
        // SAFETY: `c_path` is a NUL-terminated path. Loading runs the object's initialisers:
        // it is one certbench built (build.rs) or the user named, with every symbol but the
        // table hidden and bound to itself (-Bsymbolic), so it changes no symbol of this
        // process (RTLD_LOCAL).
        let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(LoadError::Open {
                path,
                reason: dl_error(),
            });
        }
        // SAFETY: `handle` is a live handle (never closed) and the name is NUL-terminated.
        let sym = unsafe { libc::dlsym(handle, c"certbench_verifier_v4_table".as_ptr()) };
        if sym.is_null() {
            return Err(LoadError::NoTable {
                path,
                reason: dl_error(),
            });
        }
        // SAFETY: the symbol is the function `const certbench_verifier_v4 *(void)` of the
        // header this module mirrors.
        let get: unsafe extern "C" fn() -> *const Table = unsafe { std::mem::transmute(sym) };
        // SAFETY: it takes nothing and returns a pointer to a static table (or NULL).
        let table = unsafe { get() };
        // SAFETY: a non-NULL result points at a static `certbench_verifier_v4`, which lives as
        // long as the object, which is never unloaded.
        let table: &'static Table =
            unsafe { table.as_ref() }.ok_or_else(|| LoadError::NullTable { path: path.clone() })?;
        if table.abi != ABI {
            return Err(LoadError::Abi {
                path,
                found: table.abi,
            });
        }
        // The library's start-up, once per process (this runs once per method, in the
        // OnceLock of `load`), timed on its own.
        let mut reason = Reason::new();
        let started = Instant::now();
        // SAFETY: the table's `init` with a writable reason buffer of 512 bytes; idempotent.
        let ok = unsafe { (table.init)(reason.ptr(), 512) };
        let start_up_ns = started.elapsed().as_nanos() as u64;
        if ok != 1 {
            return Err(LoadError::Init {
                path,
                reason: reason.text("(no reason given)"),
            });
        }
        Ok(Loaded {
            table,
            library: static_str(table.library),
            version: static_str(table.version),
            policy: static_str(table.policy),
            start_up_ns,
            start_up_reported: AtomicBool::new(false),
        })
    }
}

/// The refusal of [`Loaded::verified_path`] without an accepted path.
fn no_path() -> Refusal {
    Refusal("no verified path: the last verification of this chain did not accept".into())
}

/// dlerror's message, or a placeholder.
fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next dl call on
    // this thread; it is copied at once.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "(no reason given)".to_owned()
    } else {
        // SAFETY: non-NULL: a NUL-terminated string, see above.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// A static C string of the table as `&'static str` (lossy: invalid UTF-8 becomes `?`).
fn static_str(p: *const c_char) -> &'static str {
    if p.is_null() {
        return "";
    }
    // SAFETY: the header makes these static NUL-terminated strings of an object never unloaded.
    let c: &'static CStr = unsafe { CStr::from_ptr(p) };
    c.to_str().unwrap_or("?")
}

/// A reason buffer the library writes into.
struct Reason([u8; 512]);

impl Reason {
    fn new() -> Reason {
        Reason([0; 512])
    }
    fn ptr(&mut self) -> *mut c_char {
        self.0.as_mut_ptr().cast()
    }
    fn text(&self, fallback: &str) -> String {
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

/// A trust store built by a native verifier, freed on drop.
pub struct Store {
    ptr: *mut c_void,
    loaded: &'static Loaded,
    /// How many of the roots the library kept.
    pub used: usize,
}

// SAFETY: the header's contract: a store is never changed after `store_new` returns, and
// `verify` may be called on one store from several threads at once; it is freed once, by drop.
unsafe impl Send for Store {}
unsafe impl Sync for Store {}

impl Store {
    /// The verifier that built it.
    pub fn loaded(&self) -> &'static Loaded {
        self.loaded
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from this table's `store_new` and is freed once, here.
        unsafe { (self.loaded.table.store_free)(self.ptr) }
    }
}

/// A chain parsed by a native verifier, freed on drop; one thread uses it.
pub struct ParsedChain {
    ptr: *mut c_void,
    loaded: &'static Loaded,
}

impl Drop for ParsedChain {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from this table's `chain_new` and is freed once, here.
        unsafe { (self.loaded.table.chain_free)(self.ptr) }
    }
}

/// A CT log set made by a native verifier from a [`CtLogs`] (its keys parsed once), freed on
/// drop.
pub struct NativeCtLogs {
    ptr: *mut c_void,
    loaded: &'static Loaded,
}

// SAFETY: the header's contract: a log set is shared like a store (read-only after
// `ct_logs_new`, its signature cache internally locked); it is freed once, by drop.
unsafe impl Send for NativeCtLogs {}
unsafe impl Sync for NativeCtLogs {}

impl Drop for NativeCtLogs {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from this table's `ct_logs_new` and is freed once, here.
        unsafe { (self.loaded.table.ct_logs_free)(self.ptr) }
    }
}

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
