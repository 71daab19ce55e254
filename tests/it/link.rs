//! The emulated links (`--link`), by what they count, never by wall time: over TCP, the
//! server's first flight takes exactly the congestion windows the model predicts
//! (`1 + extra_round_trips`, or QUIC's budget in the HTTP/3 mode), on cnn.com's twins (one
//! within the initial window, one over it) and on a real chain with SCTs (github.com's, the
//! mirror's clone keeping them); the window's edge to the byte (a flight of exactly
//! `IW × MSS` bytes, and one byte more), with the kernel's window and a window set by
//! `--link …,iw=N,mss=N`; and the HTTP/3 mode (no TCP handshake, QUIC's amplification limit).
//! The datagram link ([`udp`]): loss, bandwidth and causal rounds over real UDP.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use certbench::driver::{DriverOptions, Served, run};
use certbench::link::{FlowCounts, Link, LinkSpec, kernel_window, tcp_flow_of};
use certbench::mirror::MirrorSet;
use certbench::mirror::local::serve_each_compressing;
use certbench::pq::Profile;
use certbench::pq::scenario::{Scenario, TwinSet};
use certbench::sites::parse_sites;
use certbench_analysis::pq::{extra_round_trips, rounds_beyond};
use certbench_core::methods::Method;
use certbench_core::roots::RootSet;
use certbench_schema::{Hook, Sample, Transport};

use crate::pq::{drive_pq, pq_set};

mod udp;

/// The first flights of the samples of `profile`, median: they vary by a few bytes from one
/// connection to the next (an ECDSA signature's DER is 70 to 72 B), at most 16 B apart.
fn flight(samples: &[Sample], profile: Profile) -> u64 {
    let mut flights: Vec<u64> = (samples.iter())
        .filter(|s| s.config.profile == Some(profile.into()))
        .map(|s| {
            s.meta
                .first_flight_bytes
                .expect("the first flight was counted")
        })
        .collect();
    assert!(!flights.is_empty());
    flights.sort();
    let (lo, hi) = (flights[0], flights[flights.len() - 1]);
    assert!(hi - lo <= 16, "{profile}: first flights of {lo} to {hi} B");
    flights[flights.len() / 2]
}

/// The windows a first flight of `bytes` takes over `link`, by the analysis crate's model:
/// TCP's initial window in slow start, or in the HTTP/3 mode QUIC's amplification budget then
/// its initial window.
fn model_windows(bytes: u64, link: &LinkSpec) -> u32 {
    1 + match &link.h3 {
        None => extra_round_trips(bytes, &link.window),
        Some(q) => rounds_beyond(bytes, q.budget(), q.initial_cwnd()),
    }
}

/// [`drive_pq`] with rustls through `link`, keeping each profile's link until its counts are
/// read: the samples, and per profile (in the order given) each connection's counts.
fn drive_counted(
    site: &str,
    profiles: &[Profile],
    link: LinkSpec,
    runs: u32,
) -> (Vec<Sample>, Vec<Vec<FlowCounts>>) {
    let (sites, errors) = parse_sites(site);
    assert!(errors.is_empty());
    let sets: Vec<&MirrorSet> = (profiles.iter())
        .map(|&p| match p {
            Profile::Classical => &crate::common::mirror().0,
            p => pq_set(p),
        })
        .collect();
    let mut roots = RootSet::from_certs("mirror", Vec::new());
    for s in &sets {
        roots.extend(s.profile.name(), s.roots.iter().cloned());
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let tls = (Transport::Rustls, None, None);
        let (served, resolve) =
            serve_each_compressing(&sets, tls, Some(link), &sites, &HashMap::new())
                .await
                .unwrap();
        let opts = DriverOptions {
            methods: vec![Method::RustlsSerial],
            runs,
            warmup: 1,
            transport: Transport::Rustls,
            hook: Hook::Callback,
            timeout: Duration::from_secs(10),
            cache_roots: true,
            resolve: HashMap::new(),
            resumption: false,
            concurrency: 1,
            served: Served {
                profiles: (profiles.iter())
                    .map(|&p| TwinSet::new(p, Scenario::AS_SERVED))
                    .collect(),
                resolve,
                link: Some(link.to_string()),
                window: Some(link.window),
                compression: None,
                quic_client: None,
            },
            checks: certbench_core::RunChecks::path_only(),
        };
        let mut out = Vec::new();
        run(&sites, &roots, &opts, |s| out.push(s)).await;
        let counts = (served.iter())
            .map(|s| {
                let link = s.link.as_ref().expect("served behind the link");
                link.flows().into_iter().map(|(_, c)| c).collect()
            })
            .collect();
        drop(served);
        let samples = out.into_iter().filter(|s| !s.warmup).collect();
        (samples, counts)
    })
}

/// Drives `site`'s chains of `profiles` on loopback, then through `link`, and checks, for
/// each connection through the link, that the server's first flight (the link's round 1) is
/// what the client counted and took exactly the windows the model predicts for it; returns
/// the first flight per profile, as the loopback samples counted it.
fn against_the_model(site: &str, profiles: &[Profile], link: LinkSpec, runs: u32) -> Vec<u64> {
    let methods = [Method::RustlsSerial];
    let loopback = drive_pq(&methods, site, profiles, runs, None);
    let (samples, counts) = drive_counted(site, profiles, link, runs);
    for s in &loopback {
        assert_eq!(
            s.meta.tcp_window,
            Some(kernel_window()),
            "loopback: the kernel's"
        );
        // The handshake messages QUIC would carry: more than the Certificate message, less
        // than the records that carried them.
        let (m, h, f) = (
            s.meta.cert_message_bytes.unwrap(),
            s.meta.first_flight_handshake_bytes.unwrap(),
            s.meta.first_flight_bytes.unwrap(),
        );
        assert!(m < h && h < f, "{m} {h} {f}");
    }
    for s in &samples {
        assert_eq!(s.config.link.as_deref(), Some(link.to_string().as_str()));
        assert_eq!(
            s.meta.tcp_window,
            Some(link.window),
            "the window is recorded"
        );
    }
    let mut flights = Vec::new();
    for (&profile, flows) in profiles.iter().zip(&counts) {
        let on_loopback = flight(&loopback, profile);
        let linked = flight(&samples, profile);
        assert!(
            linked.abs_diff(on_loopback) <= 16,
            "the link does not change what the server sends"
        );
        let windows = model_windows(linked, &link);
        // The warm-up's connection and each run's.
        assert_eq!(flows.len() as u32, runs + 1, "{profile}: {flows:?}");
        for c in flows {
            let first = c.round_bytes.get(1).copied().unwrap_or_default();
            assert!(
                first.abs_diff(linked) <= 16,
                "{site} {profile} over {link}: the link's round 1 is {first} B, the client counted {linked} B"
            );
            assert_eq!(
                (c.round_windows.get(1).copied(), model_windows(first, &link)),
                (Some(windows), windows),
                "{site} {profile} ({first} B, window {} B) over {link}: {c:?}",
                link.window.bytes(),
            );
            // Nothing before the client's first flight; the request's answer after the
            // client's second.
            assert_eq!(c.round_bytes[0], 0);
            assert!(c.server_round >= 2 && c.client_round >= 2, "{c:?}");
        }
        let c = &flows[0];
        eprintln!(
            "{} {profile} over {link}: first flight {linked} B, {windows} window(s); round bytes {:?}, windows {:?}",
            site.trim(),
            c.round_bytes,
            c.round_windows
        );
        flights.push(on_loopback);
    }
    flights
}

#[test]
fn the_servers_first_flight_takes_the_windows_the_model_predicts() {
    // cnn.com's ML-DSA-44 twin sends a first flight within the initial window, its ML-DSA-87
    // twin one over it: one window and two. The RTT does not change the counts.
    let (under, over) = (Profile::MlDsa44, Profile::MlDsa87);
    let link = LinkSpec::rtt(Duration::from_millis(20));
    let flights = against_the_model("cnn.com\n", &[under, over], link, 3);
    let w = &link.window;
    assert_eq!(
        extra_round_trips(flights[0], w),
        0,
        "{} B fit {w:?}",
        flights[0]
    );
    assert_eq!(
        extra_round_trips(flights[1], w),
        1,
        "{} B overflow it once",
        flights[1]
    );
}

#[test]
fn a_real_chain_with_scts_takes_the_windows_the_model_predicts_over_tcp_and_http3() {
    // github.com's leaf embeds SCTs, and so does the mirror's clone (and its twin's: the
    // mirror's own logs sign them): the chain as a browser receives it.
    let site = "github.com\n";
    let hosts = &crate::common::mirror().0.hosts;
    let leaf = &hosts["github.com"].chain[0];
    assert!(
        certbench_core::der::embedded_scts(leaf).unwrap().is_some(),
        "the clone keeps its SCTs"
    );
    let profiles = [Profile::Classical, Profile::MlDsa44];
    against_the_model(site, &profiles, LinkSpec::rtt(Duration::from_millis(20)), 2);
    // HTTP/3: a first flight over Chrome's amplification budget waits for the client's next
    // flight: two windows or more.
    let h3: LinkSpec = "20ms,h3".parse().unwrap();
    let flights = against_the_model(site, &profiles, h3, 2);
    let q = h3.h3.unwrap();
    assert!(
        rounds_beyond(flights[1], q.budget(), q.initial_cwnd()) >= 1,
        "the ML-DSA-44 twin's {} B overflow {} B",
        flights[1],
        q.budget()
    );
}

/// A loopback server that answers each connection's first byte with `bytes` bytes in one
/// write, behind `link`: what the link counted of the connection once the client read them
/// all.
fn one_flight(link: &LinkSpec, bytes: usize) -> FlowCounts {
    let server = TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = server.local_addr().unwrap();
    let serving = thread::spawn(move || {
        let (mut s, _) = server.accept().unwrap();
        s.set_nodelay(true).unwrap();
        let mut first = [0u8; 1];
        s.read_exact(&mut first).unwrap();
        s.write_all(&vec![7u8; bytes]).unwrap();
        // Held open until the client has read it all.
        let _ = s.read(&mut first);
    });
    let link = Link::start(*link, upstream).unwrap();
    let mut c = TcpStream::connect(link.addr).unwrap();
    c.set_nodelay(true).unwrap();
    c.write_all(b"?").unwrap();
    let mut got = vec![0u8; bytes];
    c.read_exact(&mut got).unwrap();
    // The link counts a segment before it writes it: what the client read is counted.
    let me = c.local_addr().unwrap();
    let counts = tcp_flow_of(me).expect("the link's registry knows the connection");
    assert_eq!(link.flow(me).as_ref(), Some(&counts));
    drop(c);
    serving.join().unwrap();
    drop(link);
    assert_eq!(tcp_flow_of(me), None, "gone with its link");
    counts
}

/// `bytes` through `link` take `windows` congestion windows, all in the server's first round.
fn takes(link: &str, bytes: usize, windows: u32) {
    let spec: LinkSpec = link.parse().unwrap();
    let c = one_flight(&spec, bytes);
    assert_eq!(
        (c.round_bytes.as_slice(), c.round_windows.as_slice()),
        (&[0, bytes as u64][..], &[0, windows][..]),
        "{bytes} B over {spec}: {c:?}"
    );
    assert_eq!((c.server_round, c.client_round), (1, 1));
    assert_eq!(
        (
            c.client_to_server.delivered,
            c.client_to_server.delivered_bytes
        ),
        (1, 1)
    );
    assert_eq!(c.server_to_client.delivered_bytes, bytes as u64);
    assert_eq!(
        (c.server_to_client.lost, c.server_to_client.too_big),
        (0, 0)
    );
}

#[test]
fn a_flight_of_exactly_the_window_fits_and_one_byte_more_takes_a_second_window() {
    // TCP: the kernel's window.
    let kernel = LinkSpec::rtt(Duration::from_millis(20));
    let window = kernel.window.bytes() as usize;
    takes("20ms", window, 1);
    takes("20ms", window + 1, 2);
    // A window set on the command line moves the edge: 4 × 1,000 B; slow start doubles it.
    takes("20ms,iw=4,mss=1000", 4000, 1);
    takes("20ms,iw=4,mss=1000", 4001, 2);
    takes("20ms,iw=4,mss=1000", 12_000, 2);
    takes("20ms,iw=4,mss=1000", 12_001, 3);
    // HTTP/3: the edge is 3× Chrome's Initials.
    let budget = "20ms,h3".parse::<LinkSpec>().unwrap().h3.unwrap().budget() as usize;
    takes("20ms,h3", budget, 1);
    takes("20ms,h3", budget + 1, 2);
    // Loss and MTU are the datagram link's: the TCP link keeps its loss-free model.
    takes("20ms,loss=10%,mtu=1280", window, 1);
}
