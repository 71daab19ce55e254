//! An emulated link between client and mirror (`--link RTT[,BANDWIDTH][,iw=N][,mss=N][,h3]`,
//! [`LinkSpec`]), in user space (this kernel has no `netem`): a loopback proxy in front of a
//! server that holds every byte for the time a real path would take. Two of them: [`Link`]
//! for TCP (this module, its schedule in `link/path.rs`), and [`udp::UdpLink`] for datagrams
//! (QUIC), with loss and a path MTU (`loss=P%`, `mtu=N`; its schedule [`datagram`]). The TCP
//! link has no loss: it ignores `loss`, `seed` and `mtu`.
//!
//! Both count what crosses them per flow ([`FlowCounts`]: bytes, datagrams or segments, and
//! rounds counted causally, [`counts`]); the TCP link's per connection, readable with
//! [`Link::flows`] or by the client's address with [`tcp_flow_of`], including how many
//! congestion windows each of the server's flights took ([`FlowCounts::round_windows`]).
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
//! predicts; `tests/it/link.rs` checks the link's own counts of the windows against it.
//!
//! Threads, not tasks: each delivery waits for its own instant with `thread::sleep`, whose
//! error is tens of microseconds; tokio's timer rounds to the millisecond.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

pub mod counts;
pub mod datagram;
mod kernel;
pub(crate) mod path;
mod spec;
pub mod udp;

pub use counts::FlowCounts;
use counts::{Flows, Registry, Shared, lock};
pub use datagram::DirectionCounts;
pub use kernel::{ETHERNET_MSS, kernel_window, read_send_mss};
use path::Path;
pub use spec::{BadLink, DEFAULT_MTU, DEFAULT_SEED, IPV4_UDP_HEADERS, LinkSpec};

/// The TCP link's running connections by the client's address as the link accepted it.
static TCP_FLOWS: Registry = Registry::new();

/// The counts of the TCP connection from `client` (its local address, `127.0.0.1:port`)
/// through a running [`Link`]; `None` once that link is dropped.
pub fn tcp_flow_of(client: SocketAddr) -> Option<FlowCounts> {
    TCP_FLOWS.get(client)
}

/// What a sample of the TCP connection from `client` records of the link, read when its
/// TLS handshake completed: the handshake's round trips (TCP's own, then the congestion
/// windows the server's first flight took), the server's bytes per round from round 1.
pub fn tcp_counts_of(client: SocketAddr) -> Option<certbench_schema::LinkCounts> {
    let flow = tcp_flow_of(client)?;
    let windows = flow.round_windows.get(1).copied().unwrap_or(1);
    Some(certbench_schema::LinkCounts {
        handshake_rounds: 1 + windows,
        server_bytes_per_round: flow.round_bytes.iter().skip(1).copied().collect(),
        lost: 0,
    })
}

/// A running link: connections to [`Link::addr`] reach `upstream` through the model.
pub struct Link {
    /// Where clients connect.
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    flows: Arc<Flows>,
}

impl Drop for Link {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.flows.unregister(&TCP_FLOWS);
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
        let flows = Arc::new(Flows::default());
        let (stopped, counted) = (stop.clone(), flows.clone());
        thread::Builder::new()
            .name("certbench-link".into())
            .spawn(move || {
                for client in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(client) = client {
                        let accepted = Instant::now();
                        let Ok(peer) = client.peer_addr() else {
                            continue;
                        };
                        let flow = counted.add(peer, &TCP_FLOWS);
                        let _ = connect(spec, client, upstream, accepted, flow);
                    }
                }
            })?;
        Ok(Link { addr, stop, flows })
    }

    /// Each connection's counts, in the order the link accepted them, by the client's address.
    pub fn flows(&self) -> Vec<(SocketAddr, FlowCounts)> {
        self.flows.counts()
    }

    /// The counts of the connection from `client`.
    pub fn flow(&self, client: SocketAddr) -> Option<FlowCounts> {
        self.flows.of(client)
    }
}

/// One connection: its server side opened, then each direction on its own pair of threads.
fn connect(
    spec: LinkSpec,
    client: TcpStream,
    upstream: SocketAddr,
    accepted: Instant,
    flow: Shared,
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
    let ends = (client.try_clone()?, server.try_clone()?);
    direction(spec, ends, up, (flow.clone(), false))?;
    let down = Path::new(spec, accepted, true);
    direction(spec, (server, client), down, (flow, true))
}

/// One direction (`to_client` or not, of `flow`): a reader that reads what the sender wrote,
/// labels it with its round and schedules its segments, and a writer that delivers each at
/// its time, counting it.
fn direction(
    spec: LinkSpec,
    (mut from, mut to): (TcpStream, TcpStream),
    mut path: Path,
    (flow, to_client): (Shared, bool),
) -> std::io::Result<()> {
    type Segment = (Instant, Option<Vec<u8>>, u32);
    let (tx, rx) = mpsc::channel::<Segment>();
    let reading = flow.clone();
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
                    let _ = tx.send((path.last_arrival.max(now + spec.rtt / 2), None, 0));
                    return;
                }
                let mut f = lock(&reading);
                let round = match to_client {
                    true => f.round_to_client(),
                    false => f.round_to_server(),
                };
                for segment in buf[..n].chunks(spec.window.mss as usize) {
                    let at = path.send(now, segment.len());
                    let d = f.direction(to_client);
                    d.offered += 1;
                    d.offered_bytes += segment.len() as u64;
                    if to_client {
                        f.window(round, path.generation);
                    }
                    if tx.send((at, Some(segment.to_vec()), round)).is_err() {
                        return;
                    }
                }
            }
        })?;
    thread::Builder::new()
        .name("certbench-link-write".into())
        .spawn(move || {
            for (at, bytes, round) in rx {
                let now = Instant::now();
                if at > now {
                    thread::sleep(at - now);
                }
                if let Some(b) = &bytes {
                    lock(&flow).delivered(to_client, round, b.len());
                }
                match bytes {
                    Some(b) if to.write_all(&b).is_ok() => {}
                    Some(b) => {
                        lock(&flow).refused(to_client, round, b.len());
                        let _ = to.shutdown(Shutdown::Write);
                        return;
                    }
                    None => {
                        let _ = to.shutdown(Shutdown::Write);
                        return;
                    }
                }
            }
        })?;
    Ok(())
}
