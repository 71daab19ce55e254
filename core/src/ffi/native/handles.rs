//! What a native verifier hands back, owned on the Rust side and freed on drop: a trust store
//! ([`Store`], shared between threads), a parsed chain ([`ParsedChain`], one thread) and a CT
//! log set ([`NativeCtLogs`], shared).
//!
//! Invariant: each pointer came from its table's constructor and is freed once, by drop,
//! through the same table.

use std::ffi::c_void;

use super::load::Loaded;

/// A trust store built by a native verifier, freed on drop.
pub struct Store {
    pub(super) ptr: *mut c_void,
    pub(super) loaded: &'static Loaded,
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
    pub(super) ptr: *mut c_void,
    pub(super) loaded: &'static Loaded,
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
    pub(super) ptr: *mut c_void,
    pub(super) loaded: &'static Loaded,
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
