//! What `cargo bench` and `certbench icount` measure beyond the tool's own loops: the crypto
//! floor of a chain, and instruction counts under callgrind.

pub mod floor;
pub mod icount;
