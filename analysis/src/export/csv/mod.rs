//! CSV: one writer per result kind, one record per row of its figures, figures in their base
//! unit (nanoseconds, bytes, MB/s) with no unit in the cell.

pub(crate) mod ab;
pub(crate) mod bulk;
pub(crate) mod handshake;
pub(crate) mod page;
pub(crate) mod report;
pub(crate) mod servo;
