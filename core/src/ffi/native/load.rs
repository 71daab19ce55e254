//! Finding, loading and starting a native verifier's shared object: [`Build`] (what the build
//! left), [`Loaded`] (the started library's table, for the rest of the process).
//!
//! Invariant: a shared object is opened once per process (`dlopen(RTLD_NOW | RTLD_LOCAL)`),
//! never unloaded, and used only after its table's ABI matched and its `init` succeeded.

use std::ffi::{CStr, CString, c_char};
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::error::{LoadError, NativeError};
use super::table::{ABI, Reason, Table};

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
    pub(super) table: &'static Table,
    pub(super) library: &'static str,
    pub(super) version: &'static str,
    pub(super) policy: &'static str,
    /// What the library's start-up (`init`) took, once in this process.
    pub(super) start_up_ns: u64,
    /// Whether a sample has reported `start_up_ns` (`library-init`).
    pub(super) start_up_reported: AtomicBool,
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
