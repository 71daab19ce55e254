//! The browsers' native verifiers (Chrome's BoringSSL libpki, Firefox's mozilla::pkix): every
//! `unsafe` call into them, each with its SAFETY argument, and the one [`Verifier`] both use.
//!
//! `core/build.rs` builds each into a shared object that exports one symbol,
//! `certbench_verifier_v1_table`, and hides the rest (BoringSSL's libcrypto would clash with
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
use std::net::IpAddr;
use std::sync::OnceLock;

use certbench_analysis::Stage;
use rustls_pki_types::CertificateDer;

use crate::chain::Chain;
use crate::error::Error;
use crate::stages::Recorder;
use crate::verifier::{Capabilities, Library, PeerName, Rejection, Target, Verifier};

/// The ABI version this module speaks (`CERTBENCH_VERIFIER_ABI`).
const ABI: u32 = 1;

/// One borrowed DER certificate (`certbench_der`).
#[repr(C)]
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
}

/// `certbench_verifier_v1`, field for field.
#[repr(C)]
struct Table {
    abi: u32,
    library: *const c_char,
    version: *const c_char,
    policy: *const c_char,
    store_new:
        unsafe extern "C" fn(*const Der, usize, *mut usize, *mut c_char, usize) -> *mut c_void,
    store_free: unsafe extern "C" fn(*mut c_void),
    chain_new: unsafe extern "C" fn(*const Der, usize, *mut c_char, usize) -> *mut c_void,
    chain_free: unsafe extern "C" fn(*mut c_void),
    verify: unsafe extern "C" fn(*const c_void, *mut c_void, i64, *mut c_char, usize) -> c_int,
    check_name:
        unsafe extern "C" fn(*mut c_void, c_int, *const u8, usize, *mut c_char, usize) -> c_int,
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
        why: String,
        /// What to do about it.
        how: &'static str,
    },
}

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

/// A loaded native verifier: its table, valid for the rest of the process.
pub struct Loaded {
    table: &'static Table,
    library: &'static str,
    version: &'static str,
    policy: &'static str,
}

impl Build {
    /// The loaded verifier, loading it on first use.
    pub fn load(
        &'static self,
        cell: &'static OnceLock<Result<Loaded, String>>,
    ) -> Result<&'static Loaded, NativeError> {
        cell.get_or_init(|| self.open())
            .as_ref()
            .map_err(|why| NativeError::Unavailable {
                method: self.method,
                why: why.clone(),
                how: self.how,
            })
    }

    fn open(&self) -> Result<Loaded, String> {
        let path = match std::env::var(self.env) {
            Ok(p) if !p.is_empty() => p,
            _ if !self.path.is_empty() => self.path.to_owned(),
            _ => return Err(format!("it was not built ({})", self.missing)),
        };
        let c_path = CString::new(path.clone()).map_err(|_| format!("{path}: NUL in path"))?;
        // SAFETY: `c_path` is a NUL-terminated path. Loading runs the object's initialisers:
        // it is one certbench built (build.rs) or the user named, with every symbol but the
        // table hidden and bound to itself (-Bsymbolic), so it changes no symbol of this
        // process (RTLD_LOCAL).
        let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(format!("cannot load {path}: {}", dl_error()));
        }
        // SAFETY: `handle` is a live handle (never closed) and the name is NUL-terminated.
        let sym = unsafe { libc::dlsym(handle, c"certbench_verifier_v1_table".as_ptr()) };
        if sym.is_null() {
            return Err(format!(
                "{path} has no certbench_verifier_v1_table: {}",
                dl_error()
            ));
        }
        // SAFETY: the symbol is the function `const certbench_verifier_v1 *(void)` of the
        // header this module mirrors.
        let get: unsafe extern "C" fn() -> *const Table = unsafe { std::mem::transmute(sym) };
        // SAFETY: it takes nothing and returns a pointer to a static table (or NULL).
        let table = unsafe { get() };
        // SAFETY: a non-NULL result points at a static `certbench_verifier_v1`, which lives as
        // long as the object, which is never unloaded.
        let table: &'static Table = unsafe { table.as_ref() }
            .ok_or_else(|| format!("{path}: the verifier's table is NULL"))?;
        if table.abi != ABI {
            return Err(format!("{path}: ABI {} where {ABI} is expected", table.abi));
        }
        Ok(Loaded {
            table,
            library: static_str(table.library),
            version: static_str(table.version),
            policy: static_str(table.policy),
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

impl Drop for Store {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from this table's `store_new` and is freed once, here.
        unsafe { (self.loaded.table.store_free)(self.ptr) }
    }
}

/// A chain parsed by a native verifier, freed on drop; one thread uses it.
struct ParsedChain {
    ptr: *mut c_void,
    loaded: &'static Loaded,
}

impl Drop for ParsedChain {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from this table's `chain_new` and is freed once, here.
        unsafe { (self.loaded.table.chain_free)(self.ptr) }
    }
}

impl Loaded {
    /// Builds a store from DER roots.
    pub fn store(&'static self, roots: &[CertificateDer<'static>]) -> Result<Store, String> {
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
            return Err(reason.text("the store could not be built"));
        }
        Ok(Store {
            ptr,
            loaded: self,
            used,
        })
    }

    fn chain(&'static self, chain: &Chain) -> Result<ParsedChain, Rejection> {
        let mut ders = Vec::with_capacity(chain.len());
        ders.push(Der::of(&chain.leaf));
        ders.extend(chain.intermediates.iter().map(|c| Der::of(c)));
        let mut reason = Reason::new();
        // SAFETY: as for `store`: descriptors of live slices, a writable buffer of 512 bytes.
        let ptr = unsafe { (self.table.chain_new)(ders.as_ptr(), ders.len(), reason.ptr(), 512) };
        if ptr.is_null() {
            return Err(Rejection::new(format!(
                "bad chain: {}",
                reason.text("not parsed")
            )));
        }
        Ok(ParsedChain { ptr, loaded: self })
    }

    /// The library's name and version, and its policy in one line.
    pub fn library(&self) -> (&'static str, &'static str, &'static str) {
        (self.library, self.version, self.policy)
    }
}

/// A native verifier as a [`Verifier`]: `chain-creation` is the library's parse of the chain
/// as sent, `verify` its path building and verification for TLS server authentication at the
/// target's time, and `verify-hostname` its own name check.
pub struct NativeVerifier {
    build: &'static Build,
    cell: &'static OnceLock<Result<Loaded, String>>,
    capabilities: Capabilities,
}

impl NativeVerifier {
    /// The verifier of `build`, loaded into `cell` on first use, able to check `capabilities`.
    pub const fn new(
        build: &'static Build,
        cell: &'static OnceLock<Result<Loaded, String>>,
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
            Ok(l) => l.policy.to_owned(),
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
                name: l.library,
                version: l.version.to_owned(),
                limbo_harness: None,
            },
            Err(_) => Library {
                name: self.build.library,
                version: "not built".to_owned(),
                limbo_harness: None,
            },
        }
    }

    fn build_roots(&self, roots: &[CertificateDer<'static>]) -> Result<Store, Error> {
        let loaded = self.loaded()?;
        loaded.store(roots).map_err(|message| Error::Roots {
            origin: self.build.method.to_owned(),
            message,
        })
    }

    fn verify(
        &self,
        roots: &Store,
        chain: &Chain,
        target: Target<'_>,
        rec: &mut Recorder,
    ) -> Result<(), Rejection> {
        let loaded = roots.loaded;
        let time = i64::try_from(target.time_or_now())
            .map_err(|_| Rejection::new("validation time out of range"))?;
        let span = rec.start();
        let parsed = loaded.chain(chain);
        rec.stop(Stage::ChainCreation, span);
        let parsed = parsed?;

        let mut reason = Reason::new();
        let span = rec.start();
        // SAFETY: `roots.ptr` is a live store of this table (shareable, see `Store`), `parsed`
        // a live chain of it used by this thread only, the buffer writable for 512 bytes.
        let ok = unsafe { (loaded.table.verify)(roots.ptr, parsed.ptr, time, reason.ptr(), 512) };
        rec.stop(Stage::Verify, span);
        if ok != 1 {
            return Err(Rejection::new(reason.text("rejected (no reason given)")));
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
        let mut reason = Reason::new();
        let span = rec.start();
        // SAFETY: as for `verify`; `name` is readable for `name.len()` bytes.
        let ok = unsafe {
            (loaded.table.check_name)(
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
            return Err(Rejection::new(
                reason.text("name mismatch (no reason given)"),
            ));
        }
        Ok(())
    }
}
