//! Measurement loops. Each produces [`certbench_analysis::Sample`]s and nothing else; tables
//! are the analysis crate's job.

pub mod driver;
pub mod floor;
pub mod icount;
pub mod verify;
