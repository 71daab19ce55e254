//! The TCP link's schedule of one direction ([`Path`]): pure, the instants given; what
//! [`super::Link`]'s threads sleep to. The model is the module's ([`super`]).

use std::collections::VecDeque;
use std::time::Instant;

use super::spec::LinkSpec;

/// One direction's state: the sender's window and the wire.
///
/// Invariant: a segment leaves only when the bytes in flight and it fit `cwnd` (and, before
/// the first acknowledgement, `cap`), or when nothing is in flight.
pub(crate) struct Path {
    spec: LinkSpec,
    /// Nothing leaves before this (TCP's handshake, for the client's direction).
    ready: Instant,
    /// The congestion window, bytes.
    cwnd: u64,
    /// QUIC's amplification limit (the server's direction in the HTTP/3 mode): bytes that may
    /// be in flight until the first acknowledgement validates the client's address.
    cap: Option<u64>,
    /// Each segment in flight, oldest first: when it is acknowledged, its bytes and its
    /// window generation.
    in_flight: VecDeque<(Instant, u64, u32)>,
    /// Their bytes.
    in_flight_bytes: u64,
    /// When the wire is free for the next segment.
    wire_free: Instant,
    /// When the last segment left: segments leave in order.
    last_left: Instant,
    /// When the last segment arrives.
    pub(crate) last_arrival: Instant,
    /// The window generation of the last segment sent: 1 for the initial window; a segment
    /// that waited for the acknowledgement of a segment of generation g is of g + 1, one that
    /// did not wait is of its predecessor's. Never decreases.
    pub(crate) generation: u32,
}

impl Path {
    /// The path of one direction: the server's (`server`) or the client's, nothing leaving
    /// before `ready`.
    pub(crate) fn new(spec: LinkSpec, ready: Instant, server: bool) -> Path {
        let (cwnd, cap) = match spec.h3 {
            None => (spec.window.bytes(), None),
            Some(q) => (q.initial_cwnd(), server.then(|| q.budget())),
        };
        Path {
            spec,
            ready,
            cwnd,
            cap,
            in_flight: VecDeque::new(),
            in_flight_bytes: 0,
            wire_free: ready,
            last_left: ready,
            last_arrival: ready,
            generation: 1,
        }
    }

    /// A segment of `len` bytes the sender wrote at `now`: when it arrives at the far end
    /// (its window generation: [`Path::generation`]).
    pub(crate) fn send(&mut self, now: Instant, len: usize) -> Instant {
        let len = len as u64;
        let mut leaves = now.max(self.ready).max(self.wire_free).max(self.last_left);
        loop {
            // Acknowledgements that came back by then open the window (slow start).
            while let Some(&(ack, bytes, _)) = self.in_flight.front()
                && ack <= leaves
            {
                self.in_flight.pop_front();
                self.in_flight_bytes -= bytes;
                self.cwnd += bytes;
                self.cap = None;
            }
            let window = self.cap.map_or(self.cwnd, |cap| cap.min(self.cwnd));
            match self.in_flight.front() {
                Some(&(ack, _, g)) if self.in_flight_bytes + len > window => {
                    // Waits for that segment's acknowledgement: the next window.
                    leaves = ack;
                    self.generation = self.generation.max(g + 1);
                }
                _ => break,
            }
        }
        let on_wire = self.spec.on_wire(len as usize);
        self.last_left = leaves;
        self.wire_free = leaves + on_wire;
        let arrives = leaves + on_wire + self.spec.rtt / 2;
        (self.in_flight).push_back((arrives + self.spec.rtt / 2, len, self.generation));
        self.in_flight_bytes += len;
        self.last_arrival = arrives;
        arrives
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A link of `rtt` with RFC 6928's window, set (not the kernel's).
    fn link(rtt: Duration) -> LinkSpec {
        format!("{}ms,iw=10,mss=1460", rtt.as_millis())
            .parse()
            .unwrap()
    }

    #[test]
    fn a_flight_over_the_initial_window_waits_a_round_trip() {
        let rtt = Duration::from_millis(40);
        let t0 = Instant::now();
        let mut path = Path::new(link(rtt), t0, true);
        let arrivals: Vec<Instant> = (0..12).map(|_| path.send(t0, 1460)).collect();
        for a in &arrivals[..10] {
            assert_eq!(*a, t0 + rtt / 2, "the initial window leaves at once");
        }
        // The 11th leaves when the 1st is acknowledged: one RTT later, in the second window.
        assert_eq!(arrivals[10], t0 + rtt + rtt / 2);
        assert_eq!(arrivals[11], t0 + rtt + rtt / 2);
        assert_eq!(path.generation, 2);
        // Slow start: 20 segments in the second window, the 31st in the third.
        let more: Vec<Instant> = (12..31).map(|_| path.send(t0, 1460)).collect();
        assert_eq!((more[17], path.generation), (t0 + rtt + rtt / 2, 3));
        assert_eq!(more[18], t0 + 2 * rtt + rtt / 2);
    }

    #[test]
    fn the_window_is_bytes_however_the_reads_cut_the_flight() {
        let rtt = Duration::from_millis(40);
        let t0 = Instant::now();
        // 14,600 B in reads of 1,000 B (15 segments): all within the window; a byte more waits.
        let mut path = Path::new(link(rtt), t0, true);
        let last = (0..15).map(|i| path.send(t0, if i < 14 { 1000 } else { 600 }));
        assert_eq!(last.last(), Some(t0 + rtt / 2));
        assert_eq!(path.send(t0, 1), t0 + rtt + rtt / 2);
    }

    #[test]
    fn http3_holds_the_servers_flight_to_three_times_the_clients_initials() {
        let rtt = Duration::from_millis(40);
        let t0 = Instant::now();
        let spec: LinkSpec = "40ms,h3".parse().unwrap();
        let budget = spec.h3.unwrap().budget() as usize;
        let mut server = Path::new(spec, t0, true);
        assert_eq!(server.send(t0, budget), t0 + rtt / 2);
        assert_eq!(server.send(t0, 1), t0 + rtt + rtt / 2, "over the budget");
        // The client's direction has no handshake to wait for and no budget.
        let mut client = Path::new(spec, t0, false);
        assert_eq!(client.send(t0, budget + 1), t0 + rtt / 2);
    }

    #[test]
    fn bandwidth_spaces_segments_and_the_handshake_holds_the_first() {
        let rtt = Duration::from_millis(20);
        let t0 = Instant::now();
        let spec = LinkSpec {
            bandwidth: Some(1_168_000), // 1,460 bytes in 10 ms
            ..link(rtt)
        };
        let mut path = Path::new(spec, t0 + rtt, false);
        let first = path.send(t0, 1460);
        let second = path.send(t0, 1460);
        assert_eq!(first, t0 + rtt + Duration::from_millis(10) + rtt / 2);
        assert_eq!(second, first + Duration::from_millis(10));
    }
}
