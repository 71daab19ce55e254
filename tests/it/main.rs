//! certbench's integration tests, one binary (each test binary links the whole crate, so one
//! binary instead of twenty saves most of the build): one module per concern. The pool's
//! allocation and thread counts have their own binary (`tests/pool.rs`), since they count
//! what the whole process does.

mod common;

mod cli;
mod driver_cli;
mod driver_mirror;
mod faults;
mod fuzz_harness;
mod handshake;
mod handshake_counts;
mod hostile;
mod icount;
mod interrupt;
mod limbo;
mod load;
mod mirror_certs;
mod parallel_equiv;
mod rejections;
mod report;
mod servo_api;
mod sites;
mod timed_verifier;
mod verdicts;
