//! Tests that measure the whole process — allocations, threads, open file descriptors,
//! resident memory — and so run one at a time (each holds [`ONE_AT_A_TIME`]) in a binary of
//! their own, apart from `tests/it`, whose tests run side by side; and the binary run on bad
//! input (`bad_input`), its exit codes and messages.

use std::sync::{Mutex, MutexGuard};

#[path = "../it/common.rs"]
mod common;

mod bad_input;
mod handshake_counts;
mod load;
mod pool;

/// Held by each test for its whole run: what it counts is the process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Takes [`ONE_AT_A_TIME`] (a test that failed while holding it does not stop the others).
fn alone() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}
