//! certbench's analysis side: the sample schema (the contract between whatever measures and
//! whatever reports), the statistics over samples, and the tables built from them.
//!
//! Data flows one way: samples → [`stats::Summary`] per (method, site, stage) →
//! [`table::SeedTable`] → an exporter in [`export`]. Nothing in this crate measures.

pub mod compare;
pub mod export;
pub mod handshake;
pub mod limbo;
pub mod schema;
pub mod stats;
pub mod table;
pub mod units;

pub use schema::{ErrorKind, Sample, SampleMeta, Source, Stage, Verdict};
pub use stats::Summary;
pub use table::{SeedTable, build_seed_tables};
