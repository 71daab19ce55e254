//! Markdown: one writer per result kind, each turning that kind's figures into text, on the
//! one table of [`table`].

pub(crate) mod ab;
pub(crate) mod answer;
pub(crate) mod answer_list;
pub(crate) mod bulk;
pub(crate) mod capture;
pub(crate) mod comparison;
pub(crate) mod handshake;
pub(crate) mod icount;
pub(crate) mod limbo;
pub(crate) mod onwire;
pub(crate) mod page;
pub(crate) mod pq;
pub(crate) mod report;
pub(crate) mod revocation;
pub(crate) mod revocation_scale;
pub(crate) mod servo;
pub(crate) mod startup;
pub mod table;
pub(crate) mod verify;
