//! The datagram link's schedule of one direction of one flow ([`DatagramPath`]): pure, the
//! instants given, the same datagrams in giving the same fates out; what
//! [`super::udp::UdpLink`]'s scheduler waits for.
//!
//! The model, per datagram, in this order:
//! 1. **MTU**: a payload over [`LinkSpec::max_payload`] (the path MTU less IPv4's and UDP's
//!    headers) is dropped, counted as too big ([`Fate::TooBig`]), and takes no time on the wire;
//! 2. **loss**: a datagram is lost ([`Fate::Lost`]) iff [`is_lost`] of (seed, flow index,
//!    direction, the datagram's index among those offered in that direction) says so: a
//!    function of those four only, never of timing, so the same run loses the same
//!    datagrams, whichever thread ran when. A lost datagram is dropped before the wire (a
//!    queue's drop) and takes no time on it;
//! 3. **bandwidth** (optional): the datagram waits for the wire (FIFO), leaves at
//!    max(received, wire free), and takes `bytes × 8 ÷ bandwidth` on it;
//! 4. **propagation**: it arrives RTT/2 after it finished leaving.
//!
//! No congestion window, no handshake, no reordering: QUIC runs its own window and
//! recovery. Arrivals never decrease in a direction.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::spec::LinkSpec;

/// One direction of a flow.
///
/// Invariants: `offered = delivered + lost + too_big + (in flight)`, the same for bytes
/// without the in-flight share; `lost_indices.len() == lost`, in increasing order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectionCounts {
    /// Datagrams (TCP: segments, each at most one MSS of one read) the sender handed the link.
    pub offered: u64,
    /// Their bytes (UDP payload; TCP payload).
    pub offered_bytes: u64,
    /// Datagrams the link handed the receiver's socket.
    pub delivered: u64,
    /// Their bytes.
    pub delivered_bytes: u64,
    /// Datagrams lost at random (`loss=P%`; the datagram link only).
    pub lost: u64,
    /// Datagrams dropped as larger than the path MTU allows (`mtu=N`; the datagram link only).
    pub too_big: u64,
    /// The index (0-based, among `offered`) of each datagram lost at random: the same seed
    /// loses the same indices.
    pub lost_indices: Vec<u64>,
    /// When the first datagram began to leave on the wire, ns after the link started (this
    /// and the next two: the datagram link only; the TCP link leaves them at 0).
    pub first_departure_ns: Option<u64>,
    /// When the wire is free after the last datagram left, ns after the link started.
    pub wire_free_ns: u64,
    /// The time the wire stood idle between the first departure and `wire_free_ns`, ns: the
    /// wire was busy for `wire_free_ns − first_departure_ns − idle_wire_ns`.
    pub idle_wire_ns: u64,
}

impl DirectionCounts {
    /// Nanoseconds the wire was busy carrying this direction's datagrams.
    pub fn busy_wire_ns(&self) -> u64 {
        let first = self.first_departure_ns.unwrap_or(self.wire_free_ns);
        (self.wire_free_ns - first).saturating_sub(self.idle_wire_ns)
    }
}

/// Which way a datagram goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Client → server.
    ToServer,
    /// Server → client.
    ToClient,
}

/// What becomes of a datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// It leaves on the wire at `leaves` and reaches the far end at `arrives`.
    Delivered {
        /// When its first bit leaves.
        leaves: Instant,
        /// When it reaches the receiver.
        arrives: Instant,
    },
    /// Lost at random.
    Lost,
    /// Larger than the path MTU allows.
    TooBig,
}

/// One direction of one flow.
///
/// Invariant: `wire_free` never decreases; a datagram delivered leaves at or after it.
#[derive(Debug)]
pub struct DatagramPath {
    spec: LinkSpec,
    flow: u64,
    direction: Direction,
    /// The instant the counts' nanoseconds are counted from (the link's start).
    origin: Instant,
    /// When the wire is free for the next datagram; `None` before the first.
    wire_free: Option<Instant>,
}

impl DatagramPath {
    /// The path of `direction` of the link's `flow`-th flow, its counts' instants in
    /// nanoseconds after `origin`.
    pub fn new(spec: LinkSpec, flow: u64, direction: Direction, origin: Instant) -> DatagramPath {
        DatagramPath {
            spec,
            flow,
            direction,
            origin,
            wire_free: None,
        }
    }

    /// A datagram of `len` bytes received from its sender at `now`: its fate, counted in
    /// `counts` (offered, lost, too big, the wire's times; delivery is counted by whoever
    /// delivers it).
    pub fn send(&mut self, now: Instant, len: usize, counts: &mut DirectionCounts) -> Fate {
        let index = counts.offered;
        counts.offered += 1;
        counts.offered_bytes += len as u64;
        if len > self.spec.max_payload() {
            counts.too_big += 1;
            return Fate::TooBig;
        }
        let seed = self.spec.loss_seed();
        if is_lost(seed, self.flow, self.direction, index, self.spec.loss_ppm) {
            counts.lost += 1;
            counts.lost_indices.push(index);
            return Fate::Lost;
        }
        let leaves = match self.wire_free {
            None => {
                counts.first_departure_ns = Some(self.ns(now));
                now
            }
            Some(free) if free >= now => free,
            Some(free) => {
                counts.idle_wire_ns += (now - free).as_nanos() as u64;
                now
            }
        };
        let free = leaves + self.spec.on_wire(len);
        self.wire_free = Some(free);
        counts.wire_free_ns = self.ns(free);
        Fate::Delivered {
            leaves,
            arrives: free + self.spec.rtt / 2,
        }
    }

    fn ns(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.origin).as_nanos() as u64
    }
}

/// Whether the `index`-th datagram of `direction` of flow `flow` is lost at a rate of `ppm`
/// parts per million under `seed`: splitmix64 of the four, folded in turn, below the rate.
pub fn is_lost(seed: u64, flow: u64, direction: Direction, index: u64, ppm: u32) -> bool {
    if ppm == 0 {
        return false;
    }
    let way = match direction {
        Direction::ToServer => 1,
        Direction::ToClient => 2,
    };
    let x = [flow, way, index]
        .into_iter()
        .fold(splitmix64(seed), |h, v| splitmix64(h ^ v));
    // The top 53 bits as a fraction of one, against the rate.
    ((x >> 11) as f64 / (1u64 << 53) as f64) < f64::from(ppm) / 1e6
}

/// Steele, Lea and Flood's SplitMix64 step (its output function on `x` + the golden gamma).
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn spec(s: &str) -> LinkSpec {
        s.parse().unwrap()
    }

    /// The indices lost among `n` datagrams of 1,200 B sent at once through `spec`.
    fn lost(spec: LinkSpec, n: u64) -> DirectionCounts {
        let t0 = Instant::now();
        let mut path = DatagramPath::new(spec, 0, Direction::ToServer, t0);
        let mut counts = DirectionCounts::default();
        for _ in 0..n {
            path.send(t0, 1200, &mut counts);
        }
        counts
    }

    #[test]
    fn one_percent_loses_one_percent_the_same_datagrams_under_the_same_seed() {
        let n = 100_000;
        let a = lost(spec("40ms,loss=1%"), n);
        let share = a.lost as f64 / n as f64;
        assert!((share - 0.01).abs() <= 0.001, "lost {share}");
        assert_eq!(a.lost_indices.len() as u64, a.lost);
        assert!(a.lost_indices.windows(2).all(|w| w[0] < w[1]));
        // The default seed is seed 1: the same datagrams.
        let b = lost(spec("40ms,loss=1%,seed=1"), n);
        assert_eq!(a.lost_indices, b.lost_indices);
        // Another seed, others: at most a few in common by chance (1 % of 1 %).
        let c = lost(spec("40ms,loss=1%,seed=2"), n);
        let common = (c.lost_indices.iter())
            .filter(|i| a.lost_indices.binary_search(i).is_ok())
            .count();
        assert!(common < 50, "{common} in common");
        assert!((c.lost as f64 / n as f64 - 0.01).abs() <= 0.001);
        // The direction and the flow are in the function too.
        assert!(
            (0..1000).any(|i| is_lost(1, 0, Direction::ToServer, i, 10_000)
                != is_lost(1, 0, Direction::ToClient, i, 10_000))
        );
        assert!(
            (0..1000).any(|i| is_lost(1, 0, Direction::ToServer, i, 10_000)
                != is_lost(1, 1, Direction::ToServer, i, 10_000))
        );
        assert_eq!(lost(spec("40ms"), 10_000).lost, 0);
    }

    #[test]
    fn ten_mbit_gives_ten_mbit_between_the_first_departure_and_the_last() {
        let t0 = Instant::now();
        let s = spec("40ms,10mbit");
        let mut path = DatagramPath::new(s, 0, Direction::ToClient, t0);
        let mut counts = DirectionCounts::default();
        let mut departures = Vec::new();
        for i in 0..1000u64 {
            // Sent faster than the wire: each waits for it.
            let now = t0 + Duration::from_micros(100 * i);
            match path.send(now, 1200, &mut counts) {
                Fate::Delivered { leaves, arrives } => {
                    assert_eq!(arrives, leaves + s.on_wire(1200) + s.rtt / 2);
                    departures.push(leaves);
                }
                f => panic!("{f:?}"),
            }
        }
        // All but the last have left by its departure.
        let span = (departures[999] - departures[0]).as_secs_f64();
        let bps = 999.0 * 1200.0 * 8.0 / span;
        assert!((bps / 10e6 - 1.0).abs() < 0.001, "{bps} bit/s");
        // The counts say the same: busy the whole time, 1,000 datagrams' worth.
        assert_eq!(counts.idle_wire_ns, 0);
        let busy = counts.busy_wire_ns() as f64 / 1e9;
        assert!((1000.0 * 1200.0 * 8.0 / busy / 10e6 - 1.0).abs() < 0.001);
        // A datagram after the wire went idle leaves at once; the idle time is counted.
        let later = departures[999] + Duration::from_secs(1);
        assert!(
            matches!(path.send(later, 1200, &mut counts), Fate::Delivered { leaves, .. } if leaves == later)
        );
        assert!(counts.idle_wire_ns > 0);
    }

    #[test]
    fn a_datagram_over_the_mtu_is_dropped_and_counted() {
        let t0 = Instant::now();
        let s = spec("40ms,mtu=1280");
        let mut path = DatagramPath::new(s, 0, Direction::ToServer, t0);
        let mut counts = DirectionCounts::default();
        assert!(matches!(
            path.send(t0, 1252, &mut counts),
            Fate::Delivered { .. }
        ));
        assert_eq!(path.send(t0, 1253, &mut counts), Fate::TooBig);
        assert_eq!(
            (counts.offered, counts.offered_bytes, counts.too_big),
            (2, 2505, 1)
        );
        // Ethernet's MTU by default: 1,472 B of payload.
        let mut path = DatagramPath::new(spec("40ms"), 0, Direction::ToServer, t0);
        assert!(matches!(
            path.send(t0, 1472, &mut counts),
            Fate::Delivered { .. }
        ));
        assert_eq!(path.send(t0, 1473, &mut counts), Fate::TooBig);
    }
}
