//! What the links count, per flow ([`FlowCounts`]): a TCP connection through [`super::Link`],
//! or a client's source address through [`super::udp::UdpLink`]. Counts, never wall time: the
//! same exchange through the same link gives the same counts on an idle machine and on a
//! loaded one.
//!
//! **Rounds, counted causally.** Every datagram (a TCP segment, over the TCP link) is labelled
//! with a round when the link receives it from its sender:
//! - client → server: 1 + the highest round among server → client datagrams already
//!   *delivered* to the client (1 if none), i.e. what the client could have seen;
//! - server → client: the highest round among client → server datagrams already delivered to
//!   the server (0 if none).
//!
//! A datagram counts as delivered from the instant before the link hands it to the socket
//! towards its receiver (uncounted if the socket refuses it), so a reply can never be
//! labelled with less than what caused it, and whatever a receiver has read is counted. So a
//! handshake whose server flight leaves in one go ends with [`FlowCounts::server_round`] 1 once
//! the client has it all, and one held back until the client's next flight (QUIC's
//! amplification limit) has the rest in round 2.
//!
//! The registries ([`super::udp::flow_of`], [`super::tcp_flow_of`]) map a client's address as
//! the link saw it (`127.0.0.1:port`; `0.0.0.0:port` is read as that) to its running counts, so that a transport that knows
//! only its own local address can read them; a link removes its flows when it is dropped.

use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use super::datagram::{DatagramPath, DirectionCounts};

/// What a link counted of one flow.
///
/// Invariants: `round_bytes` and `round_datagrams` are indexed by round (index 0: what the
/// server sent before anything reached it), have the same length, and sum to
/// `server_to_client.delivered_bytes` and `.delivered`; `server_round` is the highest index
/// with a datagram in it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowCounts {
    /// The flow's index in its link, in the order the link first saw each client (0, 1, …).
    pub flow: u64,
    /// Client → server.
    pub client_to_server: DirectionCounts,
    /// Server → client.
    pub server_to_client: DirectionCounts,
    /// The highest round delivered to the client ([module docs](self)).
    pub server_round: u32,
    /// The highest round delivered to the server.
    pub client_round: u32,
    /// Server → client bytes delivered per round: the bytes per window of the exchange.
    pub round_bytes: Vec<u64>,
    /// Server → client datagrams delivered per round.
    pub round_datagrams: Vec<u64>,
    /// The TCP link only (empty over the datagram link, which has no congestion window): per
    /// round, how many congestion windows the server's flight of that round took, 1 + the
    /// times its segments waited for an acknowledgement of an earlier window. Round 1 is the
    /// server's first flight: `1 + extra_round_trips(bytes, window)` in the analysis crate's
    /// model.
    pub round_windows: Vec<u32>,
}

/// A flow's counts as the link keeps them while it runs.
#[derive(Debug, Default)]
pub(crate) struct Flow {
    pub(crate) counts: FlowCounts,
    /// Per server → client round, the first and last window generation of its segments.
    windows: Vec<Option<(u32, u32)>>,
    /// The datagram link's schedules, client → server and server → client.
    pub(crate) paths: Option<(DatagramPath, DatagramPath)>,
}

impl Flow {
    pub(crate) fn new(flow: u64) -> Flow {
        let mut f = Flow::default();
        f.counts.flow = flow;
        f
    }

    /// The counts of the direction towards the client (`to_client`) or the server.
    pub(crate) fn direction(&mut self, to_client: bool) -> &mut DirectionCounts {
        match to_client {
            true => &mut self.counts.server_to_client,
            false => &mut self.counts.client_to_server,
        }
    }

    /// The round of a client → server datagram received now.
    pub(crate) fn round_to_server(&self) -> u32 {
        self.counts.server_round + 1
    }

    /// The round of a server → client datagram received now.
    pub(crate) fn round_to_client(&self) -> u32 {
        self.counts.client_round
    }

    /// A datagram of `round` and `bytes` is being handed to its receiver: counted as delivered
    /// before the socket takes it, so that what the receiver answers is labelled after it and
    /// whatever the receiver has seen is counted.
    pub(crate) fn delivered(&mut self, to_client: bool, round: u32, bytes: usize) {
        self.add(to_client, round, bytes, true);
    }

    /// The socket refused the datagram [`Flow::delivered`] counted: uncounted (its round
    /// stays raised: the receiver may have had earlier ones of it).
    pub(crate) fn refused(&mut self, to_client: bool, round: u32, bytes: usize) {
        self.add(to_client, round, bytes, false);
    }

    fn add(&mut self, to_client: bool, round: u32, bytes: usize, more: bool) {
        let c = &mut self.counts;
        let (d, max) = match to_client {
            true => (&mut c.server_to_client, &mut c.server_round),
            false => (&mut c.client_to_server, &mut c.client_round),
        };
        let (n, bytes) = (1u64, bytes as u64);
        let step = |v: &mut u64, by: u64| *v = if more { *v + by } else { v.saturating_sub(by) };
        step(&mut d.delivered, n);
        step(&mut d.delivered_bytes, bytes);
        *max = (*max).max(round);
        if to_client {
            let r = round as usize;
            if c.round_bytes.len() <= r {
                c.round_bytes.resize(r + 1, 0);
                c.round_datagrams.resize(r + 1, 0);
            }
            step(&mut c.round_bytes[r], bytes);
            step(&mut c.round_datagrams[r], n);
        }
    }

    /// A server → client segment of `round` left in window generation `generation` (the TCP
    /// link's [`super::path::Path`]).
    pub(crate) fn window(&mut self, round: u32, generation: u32) {
        let r = round as usize;
        if self.windows.len() <= r {
            self.windows.resize(r + 1, None);
        }
        let span = self.windows[r].get_or_insert((generation, generation));
        *span = (span.0.min(generation), span.1.max(generation));
        self.counts.round_windows = (self.windows.iter())
            .map(|w| w.map_or(0, |(lo, hi)| hi - lo + 1))
            .collect();
    }
}

/// A flow shared between a link's threads.
pub(crate) type Shared = Arc<Mutex<Flow>>;

/// Locks a flow, whether or not a thread panicked holding it (counts stay readable).
pub(crate) fn lock(flow: &Shared) -> MutexGuard<'_, Flow> {
    flow.lock().unwrap_or_else(|e| e.into_inner())
}

/// Running flows by client address: one registry per protocol (a UDP and a TCP client may
/// share an address).
pub(crate) struct Registry(Mutex<Option<HashMap<SocketAddr, Shared>>>);

impl Registry {
    pub(crate) const fn new() -> Registry {
        Registry(Mutex::new(None))
    }

    fn map(&self) -> MutexGuard<'_, Option<HashMap<SocketAddr, Shared>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn insert(&self, client: SocketAddr, flow: &Shared) {
        self.map()
            .get_or_insert_default()
            .insert(client, flow.clone());
    }

    /// Removes `client`'s entry if it is still `flow` (a later flow may reuse the address).
    pub(crate) fn remove(&self, client: SocketAddr, flow: &Shared) {
        if let Some(map) = self.map().as_mut()
            && map.get(&client).is_some_and(|f| Arc::ptr_eq(f, flow))
        {
            map.remove(&client);
        }
    }

    /// The counts of `client`'s flow; an unspecified address (`0.0.0.0:port`, a socket's
    /// local address when bound to any) is read as loopback's, as the link saw it.
    pub(crate) fn get(&self, mut client: SocketAddr) -> Option<FlowCounts> {
        if client.ip().is_unspecified() {
            client.set_ip(match client {
                SocketAddr::V4(_) => Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => Ipv6Addr::LOCALHOST.into(),
            });
        }
        let flow = self.map().as_ref()?.get(&client)?.clone();
        Some(lock(&flow).counts.clone())
    }
}

/// A link's flows, in the order it saw them.
#[derive(Default)]
pub(crate) struct Flows(Mutex<Vec<(SocketAddr, Shared)>>);

impl Flows {
    /// Adds a flow (its index: how many came before) and registers it in `registry`.
    pub(crate) fn add(&self, client: SocketAddr, registry: &Registry) -> Shared {
        let mut flows = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let flow = Arc::new(Mutex::new(Flow::new(flows.len() as u64)));
        registry.insert(client, &flow);
        flows.push((client, flow.clone()));
        flow
    }

    pub(crate) fn all(&self) -> Vec<(SocketAddr, Shared)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Each flow's counts, in order.
    pub(crate) fn counts(&self) -> Vec<(SocketAddr, FlowCounts)> {
        (self.all().into_iter())
            .map(|(a, f)| (a, lock(&f).counts.clone()))
            .collect()
    }

    /// The counts of the flow from `client` (the latest, if the address was reused).
    pub(crate) fn of(&self, client: SocketAddr) -> Option<FlowCounts> {
        let flows = self.all();
        let (_, f) = flows.iter().rev().find(|(a, _)| *a == client)?;
        Some(lock(f).counts.clone())
    }

    /// Removes every flow from `registry` (the link stops).
    pub(crate) fn unregister(&self, registry: &Registry) {
        for (client, flow) in self.all() {
            registry.remove(client, &flow);
        }
    }
}
