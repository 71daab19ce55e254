//! certbench's analysis side: the statistics over samples, the tables built from them, their
//! exporters and the report. The sample schema they read is `certbench-schema`, the crate at
//! the bottom that the measuring side (and a Servo build) links; this crate is the top, and
//! nothing measures here.
//!
//! Data flows one way: samples → [`stats::Summary`] per (method, site, stage) →
//! [`table::SeedTable`] → an exporter in [`export`].

pub mod ab;
pub mod answer;
pub mod bulk;
pub mod capture;
pub mod comparison;
pub mod describe;
pub mod export;
pub mod handshake;
pub mod icount;
pub mod input;
pub mod limbo;
pub mod page;
pub mod pq;
pub mod revocation;
pub mod revocation_scale;
pub mod servo_report;
pub mod startup;
pub mod stats;
pub mod table;
#[cfg(test)]
mod test_sample;
pub mod units;
pub mod verify;

pub use stats::Summary;
pub use table::{SeedTable, build_seed_tables};
