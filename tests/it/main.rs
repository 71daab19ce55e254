//! certbench's integration tests, one binary (each test binary links the whole crate, so one
//! binary instead of twenty saves most of the build): one module per concern. Tests that
//! count what the whole process does (allocations, threads, open files, memory) have their
//! own binary, `tests/process`, where they run one at a time.

mod common;

mod architecture;
mod browsers;
mod bulk;
mod capture;
mod cli;
mod compression;
mod ct;
mod ct_verdicts;
mod docs;
mod driver_cli;
mod driver_mirror;
mod ev;
mod faults;
mod fuzz_harness;
mod gnutls;
mod handshake;
mod hostile;
mod icount;
mod interrupt;
mod limbo;
mod link;
mod mirror_certs;
mod mtc;
mod page;
mod parallel_equiv;
mod pq;
mod pq_scenarios;
mod quic;
mod quic_limit;
mod records;
mod rejections;
mod report;
mod revocation;
mod revocation_driver;
mod revocation_scale;
mod servo_api;
mod servo_child;
mod servo_workflow;
mod sites;
mod timed_verifier;
mod verdicts;
mod wire;
