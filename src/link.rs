//! An emulated link between client and mirror (`--link RTT[,BANDWIDTH]`), in user space (this
//! kernel has no `netem`): a loopback proxy in front of a server that holds every byte for the
//! time a real path would take.
//!
//! The model, per connection and per direction:
//! - **propagation**: a byte arrives RTT/2 after it leaves;
//! - **bandwidth** (optional): segments leave one after another, each taking its size ÷ the
//!   bandwidth on the wire;
//! - **TCP's handshake**: the client's first bytes leave one RTT after the connection was
//!   accepted (SYN, SYN-ACK: the round trip before a real client may send);
//! - **congestion window**: a sender has at most `cwnd` segments in flight; `cwnd` starts at
//!   the initial window (10 segments of 1,460 bytes, RFC 6928) and grows by one per
//!   acknowledged segment (slow start, RFC 5681; no delayed ACKs, no loss); a segment's
//!   acknowledgement comes back RTT/2 after it arrived. So a first flight larger than the
//!   initial window waits a round trip for its first acknowledgements: one more RTT.
//!
//! A segment is at most one MSS of one read from the sender (writes are not coalesced: the
//! mirror and the client both write a flight at once, with TCP_NODELAY). A connection through
//! the link costs 1 RTT (TCP) + 1 (TLS 1.3) + 1 (the HTTP request and its response head), plus
//! one per window the server's first flight overflows, plus the time on the wire, plus what
//! the same connection costs on loopback: what `certbench_analysis::pq` predicts and
//! `tests/it/link.rs` checks.
//!
//! Threads, not tasks: each delivery waits for its own instant with `thread::sleep`, whose
//! error is tens of microseconds; tokio's timer rounds to the millisecond.

use std::collections::VecDeque;
use std::fmt;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

pub use certbench_analysis::pq::{INITIAL_WINDOW, MSS};

/// What `--link` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkSpec {
    /// The round-trip time.
    pub rtt: Duration,
    /// Bits per second on the wire, each way; `None`: no limit.
    pub bandwidth: Option<u64>,
    /// The initial congestion window, in segments.
    pub initial_window: u32,
    /// A segment's payload, in bytes.
    pub mss: u32,
}

impl LinkSpec {
    /// A link of `rtt`, unlimited bandwidth, the standard window and MSS.
    pub fn rtt(rtt: Duration) -> LinkSpec {
        LinkSpec {
            rtt,
            bandwidth: None,
            initial_window: INITIAL_WINDOW,
            mss: MSS,
        }
    }

    /// Seconds a segment of `bytes` takes on the wire.
    fn on_wire(&self, bytes: usize) -> Duration {
        match self.bandwidth {
            Some(bps) if bps > 0 => Duration::from_secs_f64(bytes as f64 * 8.0 / bps as f64),
            _ => Duration::ZERO,
        }
    }
}

/// How the model is stated in samples (`config.link`) and titles:
/// `RTT 40 ms, 50 Mbit/s, IW 10 × 1460 B`.
impl fmt::Display for LinkSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RTT {} ms", self.rtt.as_secs_f64() * 1e3)?;
        if let Some(bps) = self.bandwidth {
            write!(f, ", {} Mbit/s", bps as f64 / 1e6)?;
        }
        write!(f, ", IW {} × {} B", self.initial_window, self.mss)
    }
}

/// A `--link` value that is not `RTT[,BANDWIDTH]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "--link {0}: expected RTT[,BANDWIDTH], e.g. 40ms or 40ms,50mbit (RTT in ms or s, above 0 and at most 10 s; BANDWIDTH in kbit, mbit or gbit per second)"
)]
pub struct BadLink(pub String);

impl FromStr for LinkSpec {
    type Err = BadLink;
    fn from_str(s: &str) -> Result<LinkSpec, BadLink> {
        let bad = || BadLink(s.to_owned());
        let (rtt, bandwidth) = match s.split_once(',') {
            Some((r, b)) => (r, Some(b)),
            None => (s, None),
        };
        let rtt = rtt.trim().to_ascii_lowercase();
        let (number, scale) = match (rtt.strip_suffix("ms"), rtt.strip_suffix('s')) {
            (Some(ms), _) => (ms, 1e-3),
            (None, Some(secs)) => (secs, 1.0),
            (None, None) => (rtt.as_str(), 1e-3),
        };
        let secs = number.trim().parse::<f64>().map_err(|_| bad())? * scale;
        if secs.is_nan() || secs <= 0.0 || secs > 10.0 {
            return Err(bad());
        }
        let bandwidth = match bandwidth {
            None => None,
            Some(b) => {
                let b = b.trim().to_ascii_lowercase();
                let b = b.strip_suffix("/s").unwrap_or(&b);
                let (n, unit) =
                    b.split_at(b.find(|c: char| c.is_ascii_alphabetic()).ok_or_else(bad)?);
                let scale = match unit {
                    "kbit" => 1e3,
                    "mbit" => 1e6,
                    "gbit" => 1e9,
                    _ => return Err(bad()),
                };
                let bps = n.trim().parse::<f64>().map_err(|_| bad())? * scale;
                if bps.is_nan() || bps < 1e3 {
                    return Err(bad());
                }
                Some(bps as u64)
            }
        };
        Ok(LinkSpec {
            bandwidth,
            ..LinkSpec::rtt(Duration::from_secs_f64(secs))
        })
    }
}

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
    // Client → server: nothing leaves before TCP's handshake took its round trip.
    direction(
        spec,
        client.try_clone()?,
        server.try_clone()?,
        accepted + spec.rtt,
    )?;
    direction(spec, server, client, accepted)
}

/// One direction: a reader that reads what the sender wrote and schedules its segments, and
/// a writer that delivers each at its time.
fn direction(
    spec: LinkSpec,
    mut from: TcpStream,
    mut to: TcpStream,
    ready: Instant,
) -> std::io::Result<()> {
    let (tx, rx) = mpsc::channel::<(Instant, Option<Vec<u8>>)>();
    thread::Builder::new()
        .name("certbench-link-read".into())
        .spawn(move || {
            let mut path = Path::new(spec, ready);
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
                for segment in buf[..n].chunks(spec.mss as usize) {
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
pub(crate) struct Path {
    spec: LinkSpec,
    /// Nothing leaves before this (TCP's handshake, for the client's direction).
    ready: Instant,
    /// The congestion window, in segments.
    cwnd: u32,
    /// When each segment in flight is acknowledged, oldest first.
    in_flight: VecDeque<Instant>,
    /// When the wire is free for the next segment.
    wire_free: Instant,
    /// When the last segment left: segments leave in order.
    last_left: Instant,
    /// When the last segment arrives.
    last_arrival: Instant,
}

impl Path {
    pub(crate) fn new(spec: LinkSpec, ready: Instant) -> Path {
        Path {
            spec,
            ready,
            cwnd: spec.initial_window,
            in_flight: VecDeque::new(),
            wire_free: ready,
            last_left: ready,
            last_arrival: ready,
        }
    }

    /// A segment of `len` bytes the sender wrote at `now`: when it arrives at the far end.
    pub(crate) fn send(&mut self, now: Instant, len: usize) -> Instant {
        let mut leaves = now.max(self.ready).max(self.wire_free).max(self.last_left);
        // Acknowledgements that came back by then open the window (slow start).
        while self.in_flight.front().is_some_and(|&ack| ack <= leaves) {
            self.in_flight.pop_front();
            self.cwnd += 1;
        }
        // A full window: wait for the oldest acknowledgement.
        if self.in_flight.len() as u32 >= self.cwnd
            && let Some(ack) = self.in_flight.pop_front()
        {
            leaves = leaves.max(ack);
            self.cwnd += 1;
        }
        let on_wire = self.spec.on_wire(len);
        self.last_left = leaves;
        self.wire_free = leaves + on_wire;
        let arrives = leaves + on_wire + self.spec.rtt / 2;
        self.in_flight.push_back(arrives + self.spec.rtt / 2);
        self.last_arrival = arrives;
        arrives
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_reads_rtt_and_bandwidth() {
        let l: LinkSpec = "40ms".parse().unwrap();
        assert_eq!(l, LinkSpec::rtt(Duration::from_millis(40)));
        assert_eq!(l.to_string(), "RTT 40 ms, IW 10 × 1460 B");
        let l: LinkSpec = "0.1s,50mbit".parse().unwrap();
        assert_eq!(l.rtt, Duration::from_millis(100));
        assert_eq!(l.bandwidth, Some(50_000_000));
        assert_eq!(l.to_string(), "RTT 100 ms, 50 Mbit/s, IW 10 × 1460 B");
        assert_eq!(
            "25".parse::<LinkSpec>().unwrap().rtt,
            Duration::from_millis(25)
        );
        for bad in [
            "",
            "0ms",
            "-5ms",
            "40ms,fast",
            "40ms,10",
            "11s",
            "40ms,1kbit/h",
        ] {
            assert!(bad.parse::<LinkSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_flight_over_the_initial_window_waits_a_round_trip() {
        let rtt = Duration::from_millis(40);
        let t0 = Instant::now();
        let mut path = Path::new(LinkSpec::rtt(rtt), t0);
        let arrivals: Vec<Instant> = (0..12).map(|_| path.send(t0, 1460)).collect();
        for a in &arrivals[..10] {
            assert_eq!(*a, t0 + rtt / 2, "the initial window leaves at once");
        }
        // The 11th leaves when the 1st is acknowledged: one RTT later.
        assert_eq!(arrivals[10], t0 + rtt + rtt / 2);
        assert_eq!(arrivals[11], t0 + rtt + rtt / 2);
    }

    #[test]
    fn bandwidth_spaces_segments_and_the_handshake_holds_the_first() {
        let rtt = Duration::from_millis(20);
        let t0 = Instant::now();
        let spec = LinkSpec {
            bandwidth: Some(1_168_000), // 1,460 bytes in 10 ms
            ..LinkSpec::rtt(rtt)
        };
        let mut path = Path::new(spec, t0 + rtt);
        let first = path.send(t0, 1460);
        let second = path.send(t0, 1460);
        assert_eq!(first, t0 + rtt + Duration::from_millis(10) + rtt / 2);
        assert_eq!(second, first + Duration::from_millis(10));
    }
}
