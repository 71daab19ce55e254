//! An emulated link between client and mirror (`--link RTT[,BANDWIDTH][,iw=N][,mss=N][,h3]`,
//! [`LinkSpec`]), in user space (this kernel has no `netem`): a loopback proxy in front of a
//! server that holds every byte for the time a real path would take.
//!
//! The model, per connection and per direction:
//! - **propagation**: a byte arrives RTT/2 after it leaves;
//! - **bandwidth** (optional): segments leave one after another, each taking its size ÷ the
//!   bandwidth on the wire;
//! - **TCP's handshake**: the client's first bytes leave one RTT after the connection was
//!   accepted (SYN, SYN-ACK: the round trip before a real client may send);
//! - **congestion window**, counted in bytes (RFC 3465): a sender has at most `cwnd` bytes in
//!   flight; `cwnd` starts at the initial window (`IW × MSS`: RFC 6928's 10 segments of the
//!   kernel's payload, or `--link …,iw=N,mss=N`; [`LinkSpec`]) and grows by every byte
//!   acknowledged (slow start, RFC 5681; no delayed ACKs, no loss); a segment's
//!   acknowledgement comes back RTT/2 after it arrived. So a first flight larger than the
//!   initial window waits a round trip for its first acknowledgements: one more RTT. Bytes,
//!   not segments: a flight written at once fits exactly when its bytes do, however the
//!   proxy's reads cut it.
//! - **HTTP/3 mode** (`--link …,h3`): no TCP handshake (the client's first bytes leave at
//!   once), and the server's first bytes are held to QUIC's amplification limit, 3× the
//!   client's Initials (Chrome's), until the first acknowledgement (the client's next flight,
//!   which validates its address) comes back, within QUIC's initial window (RFC 9002 §7.2),
//!   which then grows as TCP's. The bytes are still TLS over TCP on loopback: record headers
//!   instead of QUIC packets' (the tables count the QUIC packets themselves,
//!   the analysis crate's `pq::quic`).
//!
//! A segment is at most one MSS of one read from the sender (the mirror and the client both
//! write a flight at once, with TCP_NODELAY). A connection through the link costs 1 RTT (TCP;
//! none in the HTTP/3 mode) + 1 (TLS 1.3) + 1 (the HTTP request and its response head), plus
//! one per window the server's first flight overflows, plus the time on the wire, plus what
//! the same connection costs on loopback: what the analysis crate's `pq::model_connection_ns`
//! predicts and `tests/it/link.rs` checks.
//!
//! Threads, not tasks: each delivery waits for its own instant with `thread::sleep`, whose
//! error is tens of microseconds; tokio's timer rounds to the millisecond.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

mod kernel;
mod spec;

pub use kernel::{ETHERNET_MSS, kernel_window, read_send_mss};
pub use spec::{BadLink, LinkSpec};

/// A running link: connections to [`Link::addr`] reach `upstream` through the model.
pub struct Link {
    /// Where clients connect.
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Drop for Link {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees `stop`.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(100));
    }
}

impl Link {
    /// Starts a link on a free loopback port in front of `upstream`.
    pub fn start(spec: LinkSpec, upstream: SocketAddr) -> std::io::Result<Link> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        thread::Builder::new()
            .name("certbench-link".into())
            .spawn(move || {
                for client in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(client) = client {
                        let accepted = Instant::now();
                        let _ = connect(spec, client, upstream, accepted);
                    }
                }
            })?;
        Ok(Link { addr, stop })
    }
}

/// One connection: its server side opened, then each direction on its own pair of threads.
fn connect(
    spec: LinkSpec,
    client: TcpStream,
    upstream: SocketAddr,
    accepted: Instant,
) -> std::io::Result<()> {
    let server = TcpStream::connect(upstream)?;
    for s in [&client, &server] {
        s.set_nodelay(true)?;
    }
    // Client → server: nothing leaves before TCP's handshake took its round trip (none in
    // the HTTP/3 mode: QUIC's first packet is the client's Initial).
    let ready = match spec.h3 {
        None => accepted + spec.rtt,
        Some(_) => accepted,
    };
    let up = Path::new(spec, ready, false);
    direction(spec, client.try_clone()?, server.try_clone()?, up)?;
    direction(spec, server, client, Path::new(spec, accepted, true))
}

/// One direction: a reader that reads what the sender wrote and schedules its segments, and
/// a writer that delivers each at its time.
fn direction(
    spec: LinkSpec,
    mut from: TcpStream,
    mut to: TcpStream,
    mut path: Path,
) -> std::io::Result<()> {
    let (tx, rx) = mpsc::channel::<(Instant, Option<Vec<u8>>)>();
    thread::Builder::new()
        .name("certbench-link-read".into())
        .spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let n = match from.read(&mut buf) {
                    Ok(0) | Err(_) => 0,
                    Ok(n) => n,
                };
                let now = Instant::now();
                if n == 0 {
                    // The sender closed: its FIN arrives after what it sent.
                    let _ = tx.send((path.last_arrival.max(now + spec.rtt / 2), None));
                    return;
                }
                for segment in buf[..n].chunks(spec.window.mss as usize) {
                    let at = path.send(now, segment.len());
                    if tx.send((at, Some(segment.to_vec()))).is_err() {
                        return;
                    }
                }
            }
        })?;
    thread::Builder::new()
        .name("certbench-link-write".into())
        .spawn(move || {
            for (at, bytes) in rx {
                let now = Instant::now();
                if at > now {
                    thread::sleep(at - now);
                }
                match bytes {
                    Some(b) if to.write_all(&b).is_ok() => {}
                    _ => {
                        let _ = to.shutdown(Shutdown::Write);
                        return;
                    }
                }
            }
        })?;
    Ok(())
}

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
    /// Each segment in flight, oldest first: when it is acknowledged, and its bytes.
    in_flight: VecDeque<(Instant, u64)>,
    /// Their bytes.
    in_flight_bytes: u64,
    /// When the wire is free for the next segment.
    wire_free: Instant,
    /// When the last segment left: segments leave in order.
    last_left: Instant,
    /// When the last segment arrives.
    pub(crate) last_arrival: Instant,
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
        }
    }

    /// A segment of `len` bytes the sender wrote at `now`: when it arrives at the far end.
    pub(crate) fn send(&mut self, now: Instant, len: usize) -> Instant {
        let len = len as u64;
        let mut leaves = now.max(self.ready).max(self.wire_free).max(self.last_left);
        loop {
            // Acknowledgements that came back by then open the window (slow start).
            while let Some(&(ack, bytes)) = self.in_flight.front()
                && ack <= leaves
            {
                self.in_flight.pop_front();
                self.in_flight_bytes -= bytes;
                self.cwnd += bytes;
                self.cap = None;
            }
            let window = self.cap.map_or(self.cwnd, |cap| cap.min(self.cwnd));
            match self.in_flight.front() {
                Some(&(ack, _)) if self.in_flight_bytes + len > window => leaves = ack,
                _ => break,
            }
        }
        let on_wire = self.spec.on_wire(len as usize);
        self.last_left = leaves;
        self.wire_free = leaves + on_wire;
        let arrives = leaves + on_wire + self.spec.rtt / 2;
        self.in_flight.push_back((arrives + self.spec.rtt / 2, len));
        self.in_flight_bytes += len;
        self.last_arrival = arrives;
        arrives
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // The 11th leaves when the 1st is acknowledged: one RTT later.
        assert_eq!(arrivals[10], t0 + rtt + rtt / 2);
        assert_eq!(arrivals[11], t0 + rtt + rtt / 2);
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
