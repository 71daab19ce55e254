//! The datagram link ([`UdpLink`]): a loopback UDP proxy in front of a UDP server (QUIC's),
//! holding each datagram for what [`DatagramPath`] says a path would do to it: RTT/2 of
//! propagation, the bandwidth's queue, seeded loss and the path MTU (`--link
//! RTT[,BANDWIDTH][,loss=P%][,seed=N][,mtu=N]`; `iw`, `mss` and `h3` are the TCP link's and
//! are ignored here: QUIC runs its own window and its own amplification limit).
//!
//! Flows: each client source address the link hears from is a flow, numbered in the order
//! the link first heard it (0, 1, …), with its own upstream socket, so that the server sees
//! one address per client and answers reach the client from [`UdpLink::addr`]. Per flow the
//! link counts what [`FlowCounts`] holds (rounds counted causally: [`super::counts`]),
//! readable with [`UdpLink::flows`], [`UdpLink::flow`], or, by a transport that knows only
//! its own local address, [`flow_of`] (the address as the link sees it: `127.0.0.1:port`).
//!
//! Threads: one reads the clients' datagrams, one per flow reads the server's, and one
//! scheduler delivers every datagram at its instant (a heap of instants, waiting on its
//! channel until the earliest is due). Reads poll every [`POLL`] for the stop flag: a
//! dropped link stops within that, and its flows leave [`flow_of`] at once.

use std::cmp::Ordering as Order;
use std::collections::{BinaryHeap, HashMap};
use std::io;
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use super::counts::{FlowCounts, Flows, Registry, Shared, lock};
use super::datagram::{DatagramPath, Direction, Fate};
use super::spec::LinkSpec;

/// How often a blocked read or an idle scheduler looks at the stop flag.
pub const POLL: Duration = Duration::from_millis(50);

/// The receive buffer asked for each socket (the kernel caps it at `net.core.rmem_max`): a
/// burst of datagrams waits in it, not in the kernel's drops.
const RECEIVE_BUFFER: usize = 4 << 20;

/// The datagram link's running flows by the client's address.
static UDP_FLOWS: Registry = Registry::new();

/// The counts of the flow from `client` (its local address as the link saw it,
/// `127.0.0.1:port`) through a running [`UdpLink`]; `None` once that link is dropped.
pub fn flow_of(client: SocketAddr) -> Option<FlowCounts> {
    UDP_FLOWS.get(client)
}

/// What a sample of the QUIC connection from `client` records of the link, read when its
/// handshake completed: the highest round of the server's datagrams delivered by then (the
/// handshake's round trips), the server's bytes per round from round 1, the datagrams lost.
pub fn counts_of(client: SocketAddr) -> Option<certbench_schema::LinkCounts> {
    let flow = flow_of(client)?;
    Some(certbench_schema::LinkCounts {
        handshake_rounds: flow.server_round,
        server_bytes_per_round: flow.round_bytes.iter().skip(1).copied().collect(),
        lost: flow.client_to_server.lost + flow.server_to_client.lost,
    })
}

/// A running datagram link: datagrams sent to [`UdpLink::addr`] reach `upstream` through the
/// model, and the server's answers come back the same way. Stops when dropped.
pub struct UdpLink {
    /// Where clients send.
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    flows: Arc<Flows>,
}

impl Drop for UdpLink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.flows.unregister(&UDP_FLOWS);
    }
}

/// A datagram waiting for its instant.
struct Due {
    at: Instant,
    /// The order it was scheduled in: equal instants leave in that order.
    seq: u64,
    flow: Shared,
    to: Target,
    round: u32,
    bytes: Vec<u8>,
}

/// Where a datagram goes: to a client through the link's own socket, or to the server
/// through the flow's.
enum Target {
    Client(SocketAddr),
    Server(Arc<UdpSocket>),
}

/// The earliest first, for [`BinaryHeap`] (a max-heap).
impl Ord for Due {
    fn cmp(&self, other: &Due) -> Order {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

impl PartialOrd for Due {
    fn partial_cmp(&self, other: &Due) -> Option<Order> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Due {
    fn eq(&self, other: &Due) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Due {}

/// What every thread of a link shares.
#[derive(Clone)]
struct Ctx {
    spec: LinkSpec,
    upstream: SocketAddr,
    origin: Instant,
    stop: Arc<AtomicBool>,
    flows: Arc<Flows>,
    tx: mpsc::Sender<Due>,
    seq: Arc<std::sync::atomic::AtomicU64>,
}

impl UdpLink {
    /// Starts a link on a free loopback UDP port in front of the UDP server at `upstream`.
    pub fn start(spec: LinkSpec, upstream: SocketAddr) -> io::Result<UdpLink> {
        let front = Arc::new(bind()?);
        let addr = front.local_addr()?;
        let (tx, rx) = mpsc::channel();
        let ctx = Ctx {
            spec,
            upstream,
            origin: Instant::now(),
            stop: Arc::new(AtomicBool::new(false)),
            flows: Arc::new(Flows::default()),
            tx,
            seq: Arc::default(),
        };
        let (scheduling, stop) = (front.clone(), ctx.stop.clone());
        thread::Builder::new()
            .name("certbench-udp-link".into())
            .spawn(move || schedule(rx, &scheduling, &stop))?;
        let (stop, flows) = (ctx.stop.clone(), ctx.flows.clone());
        thread::Builder::new()
            .name("certbench-udp-link-read".into())
            .spawn(move || from_clients(&front, &ctx))?;
        Ok(UdpLink { addr, stop, flows })
    }

    /// Each flow's counts, in the order the link first heard each client, by its address.
    pub fn flows(&self) -> Vec<(SocketAddr, FlowCounts)> {
        self.flows.counts()
    }

    /// The counts of the flow from `client`.
    pub fn flow(&self, client: SocketAddr) -> Option<FlowCounts> {
        self.flows.of(client)
    }
}

/// A UDP socket on a free loopback port, its receive buffer enlarged, its reads polling.
fn bind() -> io::Result<UdpSocket> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))?;
    // Best effort: the kernel's default still works, bursts aside.
    let _ = socket.set_recv_buffer_size(RECEIVE_BUFFER);
    socket.bind(&SocketAddr::from((Ipv4Addr::LOCALHOST, 0)).into())?;
    let socket = UdpSocket::from(socket);
    socket.set_read_timeout(Some(POLL))?;
    Ok(socket)
}

/// Whether a read's error is its poll running out (then the loop looks at the stop flag).
fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// The clients' side: each datagram scheduled on its flow's path towards the server, a flow
/// opened for each new client. Ends at the stop flag, or when the socket fails for good.
fn from_clients(front: &UdpSocket, ctx: &Ctx) {
    let mut flows: HashMap<SocketAddr, (Shared, Arc<UdpSocket>)> = HashMap::new();
    let mut buf = vec![0u8; 64 * 1024];
    while !ctx.stop.load(Ordering::SeqCst) {
        let (n, client) = match front.recv_from(&mut buf) {
            Ok(got) => got,
            Err(e) if timed_out(&e) => continue,
            // A client gone (ICMP port unreachable from an earlier send): others go on.
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
            Err(_) => return,
        };
        let now = Instant::now();
        let (flow, server) = match flows.get(&client) {
            Some(f) => f.clone(),
            None => match open(ctx, client) {
                Ok(f) => flows.entry(client).or_insert(f).clone(),
                Err(_) => continue,
            },
        };
        let target = Target::Server(server);
        offer(ctx, &flow, (now, &buf[..n]), target, Direction::ToServer);
    }
}

/// A new flow from `client`: its upstream socket, its paths, its counts registered, and the
/// thread that reads the server's answers.
fn open(ctx: &Ctx, client: SocketAddr) -> io::Result<(Shared, Arc<UdpSocket>)> {
    let server = Arc::new(bind()?);
    server.connect(ctx.upstream)?;
    let flow = ctx.flows.add(client, &UDP_FLOWS);
    {
        let mut f = lock(&flow);
        let index = f.counts.flow;
        let path = |d| DatagramPath::new(ctx.spec, index, d, ctx.origin);
        f.paths = Some((path(Direction::ToServer), path(Direction::ToClient)));
    }
    let (reading, ctx2, counted) = (server.clone(), ctx.clone(), flow.clone());
    thread::Builder::new()
        .name("certbench-udp-link-flow".into())
        .spawn(move || from_server(&reading, &ctx2, &counted, client))?;
    Ok((flow, server))
}

/// The server's side of one flow: each datagram scheduled on the path towards `client`.
fn from_server(server: &UdpSocket, ctx: &Ctx, flow: &Shared, client: SocketAddr) {
    let mut buf = vec![0u8; 64 * 1024];
    while !ctx.stop.load(Ordering::SeqCst) {
        let n = match server.recv(&mut buf) {
            Ok(n) => n,
            Err(e) if timed_out(&e) => continue,
            // The server not (yet) listening: what it sends later still comes.
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
            Err(_) => return,
        };
        let now = Instant::now();
        let target = Target::Client(client);
        offer(ctx, flow, (now, &buf[..n]), target, Direction::ToClient);
    }
}

/// A datagram received at `now` from one end of `flow`: labelled with its round, given its
/// fate by the flow's path, and handed to the scheduler if it is delivered.
fn offer(ctx: &Ctx, flow: &Shared, (now, bytes): (Instant, &[u8]), to: Target, d: Direction) {
    let mut guard = lock(flow);
    let f = &mut *guard;
    let round = match d {
        Direction::ToServer => f.round_to_server(),
        Direction::ToClient => f.round_to_client(),
    };
    let fate = match (d, f.paths.as_mut()) {
        (Direction::ToServer, Some((up, _))) => {
            up.send(now, bytes.len(), &mut f.counts.client_to_server)
        }
        (Direction::ToClient, Some((_, down))) => {
            down.send(now, bytes.len(), &mut f.counts.server_to_client)
        }
        (_, None) => return,
    };
    drop(guard);
    if let Fate::Delivered { arrives, .. } = fate {
        let seq = ctx.seq.fetch_add(1, Ordering::SeqCst);
        let (flow, bytes) = (flow.clone(), bytes.to_vec());
        let due = Due {
            at: arrives,
            seq,
            flow,
            to,
            round,
            bytes,
        };
        // The scheduler gone: the link is stopping.
        let _ = ctx.tx.send(due);
    }
}

/// The scheduler: delivers each datagram at its instant, earliest first, until the stop flag
/// (or until every sender is gone and nothing is left to deliver).
fn schedule(rx: mpsc::Receiver<Due>, front: &UdpSocket, stop: &AtomicBool) {
    let mut heap = BinaryHeap::new();
    while !stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        if heap.peek().is_some_and(|d: &Due| d.at <= now) {
            if let Some(d) = heap.pop() {
                deliver(d, front);
            }
            continue;
        }
        let wait = heap.peek().map_or(POLL, |d| (d.at - now).min(POLL));
        match rx.recv_timeout(wait) {
            Ok(d) => heap.push(d),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) if heap.is_empty() => return,
            Err(mpsc::RecvTimeoutError::Disconnected) => thread::sleep(wait),
        }
    }
}

/// Hands `d` to its receiver: counted as delivered first (what the receiver answers is of a
/// later round), uncounted if the socket refuses it.
fn deliver(d: Due, front: &UdpSocket) {
    let to_client = matches!(d.to, Target::Client(_));
    lock(&d.flow).delivered(to_client, d.round, d.bytes.len());
    let sent = match &d.to {
        Target::Client(client) => front.send_to(&d.bytes, client),
        Target::Server(server) => server.send(&d.bytes),
    };
    if sent.is_err() {
        lock(&d.flow).refused(to_client, d.round, d.bytes.len());
    }
}
