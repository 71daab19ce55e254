//! The datagram link (`certbench::link::udp::UdpLink`) over real UDP on loopback, by what it
//! counts: the loss rate and the same lost datagrams under the same seed, the bandwidth of
//! its own schedule, what the receiver receives, and rounds counted causally.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use certbench::link::udp::{UdpLink, flow_of};
use certbench::link::{FlowCounts, LinkSpec};

/// A UDP socket on a free loopback port with a receive buffer of 4 MB (the kernel caps it),
/// its reads giving up after `timeout`.
fn socket(timeout: Duration) -> UdpSocket {
    use socket2::{Domain, Protocol, Socket, Type};
    let s = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP)).unwrap();
    let _ = s.set_recv_buffer_size(4 << 20);
    s.bind(&SocketAddr::from(([127, 0, 0, 1], 0)).into())
        .unwrap();
    let s = UdpSocket::from(s);
    s.set_read_timeout(Some(timeout)).unwrap();
    s
}

/// Waits (at most 20 s) until `done` holds of the link's counts of `client`'s flow.
fn until(link: &UdpLink, client: SocketAddr, done: impl Fn(&FlowCounts) -> bool) -> FlowCounts {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let c = link.flow(client).unwrap_or_default();
        if done(&c) || Instant::now() > deadline {
            return c;
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// `n` datagrams of `len` bytes sent from one client through `spec` to a server that only
/// counts them, faster than the link's bandwidth (in bursts of 25, every 10 ms): the link's
/// counts of the flow, and how many the server received.
fn blast(spec: LinkSpec, n: u64, len: usize) -> (FlowCounts, u64) {
    let server = socket(Duration::from_millis(50));
    let upstream = server.local_addr().unwrap();
    let received = Arc::new(AtomicU64::new(0));
    let (counting, stop) = (received.clone(), Arc::new(AtomicU64::new(0)));
    let stopping = stop.clone();
    let serving = thread::spawn(move || {
        let mut buf = vec![0u8; 65536];
        while stopping.load(Ordering::SeqCst) == 0 {
            if let Ok(got) = server.recv(&mut buf) {
                assert_eq!(got, len);
                counting.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    let link = UdpLink::start(spec, upstream).unwrap();
    let client = socket(Duration::from_millis(50));
    let me = client.local_addr().unwrap();
    let payload = vec![0x5au8; len];
    for i in 0..n {
        client.send_to(&payload, link.addr).unwrap();
        if i % 25 == 24 {
            thread::sleep(Duration::from_millis(10));
        }
    }
    let c = until(&link, me, |c| {
        let d = &c.client_to_server;
        d.offered == n && d.delivered + d.lost + d.too_big == n
    });
    // The link counts a datagram before it hands it over: wait for the server to read it.
    let deadline = Instant::now() + Duration::from_secs(5);
    while received.load(Ordering::SeqCst) < c.client_to_server.delivered
        && Instant::now() < deadline
    {
        thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        flow_of(me).as_ref(),
        Some(&c),
        "the registry has the same counts"
    );
    drop(link);
    assert_eq!(flow_of(me), None, "gone with its link");
    stop.store(1, Ordering::SeqCst);
    serving.join().unwrap();
    (c, received.load(Ordering::SeqCst))
}

#[test]
fn one_percent_loss_at_ten_mbit_over_real_udp() {
    let spec: LinkSpec = "40ms,10mbit,loss=1%".parse().unwrap();
    let (n, len) = (2000u64, 1200usize);
    // Two runs at once, the same seed: the same datagrams lost, whatever the threads did.
    let again = thread::spawn(move || blast(spec, n, len));
    let (c, received) = blast(spec, n, len);
    let (c2, received2) = again.join().unwrap();
    let up = &c.client_to_server;
    assert_eq!(up.offered, n, "every datagram reached the link: {up:?}");
    assert_eq!(up.offered_bytes, n * len as u64);
    let share = up.lost as f64 / n as f64;
    assert!((share - 0.01).abs() <= 0.007, "lost {share}: {up:?}");
    assert_eq!(up.lost_indices.len() as u64, up.lost);
    assert_eq!(up.too_big, 0);
    assert_eq!(up.delivered, n - up.lost);
    assert_eq!(up.delivered_bytes, up.delivered * len as u64);
    assert_eq!(
        received, up.delivered,
        "the server received what the link delivered"
    );
    // The link's own schedule: delivered bytes over the time its wire was busy.
    let bps = up.delivered_bytes as f64 * 8.0 / (up.busy_wire_ns() as f64 / 1e9);
    assert!((bps / 10e6 - 1.0).abs() < 0.01, "{bps} bit/s: {up:?}");
    eprintln!(
        "loss=1%: {} of {n} lost ({:.2} %), {bps:.0} bit/s over {:.3} s busy, {:.3} s idle",
        up.lost,
        100.0 * share,
        up.busy_wire_ns() as f64 / 1e9,
        up.idle_wire_ns as f64 / 1e9
    );
    let up2 = &c2.client_to_server;
    assert_eq!(
        up2.lost_indices, up.lost_indices,
        "the same seed, the same losses"
    );
    assert_eq!((up2.delivered, received2), (up.delivered, up.delivered));
    // Nothing came back: no rounds beyond the client's first.
    assert_eq!((c.server_round, c.client_round), (0, 1));
    assert!(c.round_bytes.is_empty() && c.round_windows.is_empty());
}

/// A fake server behind `spec` that answers the client's first datagram with `first`
/// datagrams of 1,000 B and its second with `second`; a fake client that sends its second
/// when it has the whole first answer. The link's counts of the flow.
fn exchange(spec: LinkSpec, first: usize, second: usize) -> FlowCounts {
    let server = socket(Duration::from_secs(10));
    let upstream = server.local_addr().unwrap();
    let serving = thread::spawn(move || {
        let mut buf = [0u8; 2048];
        for answer in [first, second] {
            let (_, from) = server.recv_from(&mut buf).unwrap();
            for _ in 0..answer {
                server.send_to(&[1u8; 1000], from).unwrap();
            }
        }
    });
    let link = UdpLink::start(spec, upstream).unwrap();
    let client = socket(Duration::from_secs(10));
    let mut buf = [0u8; 2048];
    for answer in [first, second] {
        client.send_to(&[0u8; 1200], link.addr).unwrap();
        for _ in 0..answer {
            assert_eq!(client.recv_from(&mut buf).unwrap(), (1000, link.addr));
        }
    }
    serving.join().unwrap();
    let me = client.local_addr().unwrap();
    let c = until(&link, me, |c| {
        c.server_to_client.delivered == (first + second) as u64
    });
    assert_eq!(link.flows(), vec![(me, c.clone())]);
    // A transport that knows its socket's port only: the unspecified address reads as the link
    // saw it.
    let any = SocketAddr::from(([0, 0, 0, 0], me.port()));
    assert_eq!(flow_of(any), Some(c.clone()));
    c
}

#[test]
fn rounds_are_counted_by_what_each_side_had_received() {
    let spec: LinkSpec = "20ms".parse().unwrap();
    // A server flight that leaves at once: round 1; the answer to the client's next: round 2.
    let c = exchange(spec, 3, 2);
    assert_eq!((c.server_round, c.client_round), (2, 2), "{c:?}");
    assert_eq!(c.round_datagrams, [0, 3, 2]);
    assert_eq!(c.round_bytes, [0, 3000, 2000]);
    assert_eq!((c.client_to_server.delivered, c.flow), (2, 0));
    // A client that answers nothing: one round.
    let c = exchange(spec, 4, 0);
    assert_eq!((c.server_round, c.client_round), (1, 2), "{c:?}");
    assert_eq!(c.round_bytes, [0, 4000]);
}

#[test]
fn a_datagram_over_the_mtu_is_dropped_and_counted_over_real_udp() {
    let spec: LinkSpec = "5ms,mtu=1280".parse().unwrap();
    let server = socket(Duration::from_millis(500));
    let link = UdpLink::start(spec, server.local_addr().unwrap()).unwrap();
    let client = socket(Duration::from_millis(500));
    client.send_to(&[0u8; 1253], link.addr).unwrap();
    client.send_to(&[0u8; 1252], link.addr).unwrap();
    let mut buf = [0u8; 2048];
    assert_eq!(server.recv(&mut buf).unwrap(), 1252, "the one that fits");
    let c = until(&link, client.local_addr().unwrap(), |c| {
        c.client_to_server.delivered == 1
    });
    let up = &c.client_to_server;
    assert_eq!(
        (up.offered, up.too_big, up.delivered, up.lost),
        (2, 1, 1, 0)
    );
    assert!(server.recv(&mut buf).is_err(), "nothing else came");
}
