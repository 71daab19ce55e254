//! certbench's analysis side: the sample schema (the contract between whatever measures and
//! whatever reports), the statistics over samples, and the tables built from them.
//!
//! Data flows one way: samples → [`stats::Summary`] per (method, site, stage) →
//! [`table::SeedTable`] → an exporter in [`export`]. Nothing in this crate measures.

//!
//! Feature `report` (on by default): everything but [`schema`] and [`io`] (its files) —
//! statistics, tables, exporters, the labels of [`describe`], the summaries of `verify`
//! ([`verify`]) and `limbo` ([`limbo`]), what a result file holds ([`input`]), the HTML
//! report. Without it the crate is the schema alone, which is what `certbench-core` (and so
//! a Servo build) links.

#[cfg(feature = "report")]
pub mod ab;
#[cfg(feature = "report")]
pub mod answer;
#[cfg(feature = "report")]
pub mod bulk;
#[cfg(feature = "report")]
pub mod capture;
#[cfg(feature = "report")]
pub mod comparison;
#[cfg(feature = "report")]
pub mod describe;
#[cfg(feature = "report")]
pub mod export;
#[cfg(feature = "report")]
pub mod handshake;
#[cfg(feature = "report")]
pub mod icount;
#[cfg(feature = "report")]
pub mod input;
pub mod io;
#[cfg(feature = "report")]
pub mod limbo;
#[cfg(feature = "report")]
pub mod page;
#[cfg(feature = "report")]
pub mod pq;
#[cfg(feature = "report")]
pub mod revocation;
#[cfg(feature = "report")]
pub mod revocation_scale;
pub mod schema;
pub mod servo;
#[cfg(feature = "report")]
pub mod servo_report;
#[cfg(feature = "report")]
pub mod stats;
#[cfg(feature = "report")]
pub mod table;
#[cfg(feature = "report")]
pub mod units;
#[cfg(feature = "report")]
pub mod verify;

pub use schema::{ErrorKind, Sample, SampleMeta, Source, Stage, Verdict};
#[cfg(feature = "report")]
pub use stats::Summary;
#[cfg(feature = "report")]
pub use table::{SeedTable, build_seed_tables};
