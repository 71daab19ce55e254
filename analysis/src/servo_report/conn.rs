//! One Servo sample taken into a group ([`Taken`]), and the connections of a group's
//! processes ([`Conn`]) with what was verified in each: what the figures of `mod.rs` and
//! `first.rs` are both made from.
//!
//! Invariant: a connection is counted only when it was recorded as up (a `connection`
//! time); a verification belongs to the connection whose id it carries, in its process.

use std::collections::BTreeMap;

use certbench_schema::servo::{ServoEvent, ServoMeta};
use certbench_schema::{Sample, Stage};

/// A sample of a group, with its Servo facts.
pub(super) struct Taken<'a> {
    pub(super) sample: &'a Sample,
    pub(super) meta: &'a ServoMeta,
}

/// One connection of one process, with what was verified in it.
#[derive(Default)]
pub(super) struct Conn {
    /// `connection`: all of it; `connect` (DNS, TCP, proxy) and `handshake` (TLS) when split.
    pub(super) connection: Option<u64>,
    pub(super) connect: Option<u64>,
    pub(super) handshake: Option<u64>,
    pub(super) resumed: bool,
    pub(super) verified: Vec<u64>,
    pub(super) page: Option<u64>,
    pub(super) origin: String,
    pub(super) first: bool,
}

/// Connections per (pid, connection id), with the verifications naming them.
pub(super) fn connections(taken: &[Taken]) -> BTreeMap<(u32, u64), Conn> {
    let mut conns: BTreeMap<(u32, u64), Conn> = BTreeMap::new();
    for t in taken {
        let Some(id) = t.meta.connection else {
            continue;
        };
        let c = conns.entry((t.meta.pid, id)).or_default();
        match t.meta.event {
            ServoEvent::Connection => {
                c.connection = t.sample.stage(Stage::Connection);
                c.connect = t.sample.stage(Stage::Connect);
                c.handshake = t.sample.stage(Stage::Handshake);
                c.resumed = t.sample.meta.resumed == Some(true);
                c.page = t.meta.page;
                c.origin = t.sample.site_id();
                c.first = t.sample.warmup;
            }
            ServoEvent::Verification => {
                c.verified.extend(t.sample.stage(Stage::TotalVerification));
            }
            _ => {}
        }
    }
    // Only connections that were recorded as up (a connection time) are counted.
    conns.retain(|_, c| c.connection.is_some());
    conns
}
