//! The emulated link (`--link`): connections through it take what its model says — the same
//! connection on loopback, plus a round trip each for TCP, TLS 1.3 and the HTTP request, plus
//! one for a server's first flight over TCP's initial window — within 10 %, at two RTTs, on
//! cnn.com's twins and on a real chain with SCTs (github.com's, the mirror's clone keeping
//! them); the window's edge to the byte (a flight of exactly `IW × MSS` bytes, and one byte
//! more), with the kernel's window and a window set by `--link …,iw=N,mss=N`; and the HTTP/3
//! mode (no TCP handshake, QUIC's amplification limit).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use certbench::link::{Link, LinkSpec, kernel_window};
use certbench::pq::Profile;
use certbench_analysis::pq::{extra_round_trips, model_connection_ns, rounds_beyond};
use certbench_core::methods::Method;
use certbench_schema::{Sample, Stage};

use crate::pq::drive_pq;

/// One timed test at a time: the link's threads sleep to their instants, and three tests'
/// threads waking at once on a small machine are late by more than the margins allow.
fn alone() -> MutexGuard<'static, ()> {
    static ONE: Mutex<()> = Mutex::new(());
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The median `connection` and first flight of the samples of `profile`. A flight varies
/// by a few bytes from one connection to the next (an ECDSA signature's DER is 70 to 72 B):
/// at most 16 B apart.
fn of(samples: &[Sample], profile: Profile) -> (f64, u64) {
    let mine: Vec<&Sample> = (samples.iter())
        .filter(|s| s.config.profile == Some(profile.into()))
        .collect();
    assert!(!mine.is_empty());
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let conn = median(
        mine.iter()
            .map(|s| s.stage(Stage::Connection).unwrap() as f64)
            .collect(),
    );
    let flights: Vec<u64> = (mine.iter())
        .map(|s| {
            s.meta
                .first_flight_bytes
                .expect("the first flight was counted")
        })
        .collect();
    let (lo, hi) = (flights.iter().min().unwrap(), flights.iter().max().unwrap());
    assert!(hi - lo <= 16, "{profile}: first flights of {lo} to {hi} B");
    (
        conn,
        median(flights.iter().map(|&f| f as f64).collect()) as u64,
    )
}

/// Drives `site`'s chains of `profiles` on loopback, then through `link`, and checks each
/// profile's connection against the model within 10 % or half an RTT, whichever is larger (a
/// round trip off is twice that, so the count of round trips is still what is checked; a
/// quarter of an RTT failed on a loaded 2-core VM, +9.6 ms over 20 ms, with the round trips
/// right); returns (loopback, linked) samples.
fn against_the_model(
    site: &str,
    profiles: &[Profile],
    link: LinkSpec,
    runs: u32,
) -> (Vec<Sample>, Vec<Sample>) {
    let methods = [Method::RustlsSerial];
    let loopback = drive_pq(&methods, site, profiles, runs, None);
    let samples = drive_pq(&methods, site, profiles, runs, Some(link));
    let rtt_ns = link.rtt.as_nanos() as f64;
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
    for &profile in profiles {
        let (loop_ns, flight) = of(&loopback, profile);
        let (measured, f) = of(&samples, profile);
        assert!(
            f.abs_diff(flight) <= 16,
            "the link does not change what the server sends"
        );
        let model = model_connection_ns(
            loop_ns,
            rtt_ns,
            flight,
            None,
            &link.window,
            link.h3.as_ref(),
        );
        let off = (measured - model) / model;
        assert!(
            (measured - model).abs() <= (0.10 * model).max(rtt_ns / 2.0),
            "{site} {profile} ({flight} B, window {} B) over {link}: measured {:.1} ms, model {:.1} ms ({:+.1} %)",
            link.window.bytes(),
            measured / 1e6,
            model / 1e6,
            100.0 * off
        );
    }
    (loopback, samples)
}

#[test]
fn connection_over_the_link_matches_the_model_at_two_rtts() {
    let _alone = alone();
    // cnn.com's ML-DSA-44 twin sends a first flight within the initial window, its ML-DSA-87
    // twin one over it.
    let (under, over) = (Profile::MlDsa44, Profile::MlDsa87);
    let site = "cnn.com\n";
    for rtt_ms in [20, 60] {
        let rtt = Duration::from_millis(rtt_ms);
        let link = LinkSpec::rtt(rtt);
        let (loopback, samples) = against_the_model(site, &[under, over], link, 5);
        let (l_under, f_under) = of(&loopback, under);
        let (l_over, f_over) = of(&loopback, over);
        let w = &link.window;
        assert_eq!(extra_round_trips(f_under, w), 0, "{f_under} B fit {w:?}");
        assert_eq!(
            extra_round_trips(f_over, w),
            1,
            "{f_over} B overflow it once"
        );
        // The flight over the window costs one round trip more than the one within it: its
        // connection is the model's with that round trip, not without it, and what the link
        // added to it is about one RTT more than what it added to the other (half an RTT either
        // way: four medians, taken while other tests and builds run on 2 cores, go into that
        // difference; none or two round trips more are still out of it).
        let rtt_ns = rtt.as_nanos() as f64;
        let (m_under, _) = of(&samples, under);
        let (m_over, _) = of(&samples, over);
        let with = model_connection_ns(l_over, rtt_ns, f_over, None, w, None);
        let without = with - rtt_ns;
        assert!(
            (m_over - with).abs() < (m_over - without).abs(),
            "at RTT {rtt_ms} ms: {:.1} ms, nearer {:.1} ms (no extra round trip) than {:.1} ms",
            m_over / 1e6,
            without / 1e6,
            with / 1e6
        );
        let extra = (m_over - l_over) - (m_under - l_under);
        assert!(
            (0.5 * rtt_ns..=1.5 * rtt_ns).contains(&extra),
            "at RTT {rtt_ms} ms the overflowing flight cost {:.1} ms more",
            extra / 1e6
        );
    }
}

#[test]
fn a_real_chain_with_scts_matches_the_model_over_tcp_and_http3() {
    let _alone = alone();
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
    let rtt = Duration::from_millis(60);
    against_the_model(site, &profiles, LinkSpec::rtt(rtt), 3);
    // HTTP/3: a round trip less (no TCP handshake), and a first flight over Chrome's
    // amplification budget waits for the client's next flight.
    let h3: LinkSpec = "60ms,h3".parse().unwrap();
    let (_, samples) = against_the_model(site, &profiles, h3, 3);
    let (_, twin) = of(&samples, Profile::MlDsa44);
    let q = h3.h3.unwrap();
    assert!(
        rounds_beyond(twin, q.budget(), q.initial_cwnd()) >= 1,
        "the ML-DSA-44 twin's {twin} B overflow {} B",
        q.budget()
    );
}

/// A loopback server that answers each connection's first byte with `bytes` bytes in one
/// write, behind `link`: how long from connecting to the last byte.
fn one_flight(link: &LinkSpec, bytes: usize) -> Duration {
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
    let start = Instant::now();
    let mut c = TcpStream::connect(link.addr).unwrap();
    c.set_nodelay(true).unwrap();
    c.write_all(b"?").unwrap();
    let mut got = vec![0u8; bytes];
    c.read_exact(&mut got).unwrap();
    let took = start.elapsed();
    drop(c);
    serving.join().unwrap();
    took
}

/// `bytes` through `link` take `rounds` RTTs (within half an RTT: the margin is the model's,
/// an RTT apart, not a machine's speed).
fn takes(link: &str, bytes: usize, rounds: u32) {
    let spec: LinkSpec = link.parse().unwrap();
    let took = one_flight(&spec, bytes).as_secs_f64();
    let rtt = spec.rtt.as_secs_f64();
    let expected = f64::from(rounds) * rtt;
    assert!(
        (took - expected).abs() < rtt / 2.0,
        "{bytes} B over {spec}: {:.1} ms, expected {rounds} RTT ({:.1} ms)",
        took * 1e3,
        expected * 1e3
    );
}

#[test]
fn a_flight_of_exactly_the_window_fits_and_one_byte_more_waits_a_round_trip() {
    let _alone = alone();
    // TCP: the handshake's round trip, the request's, and one more past the window.
    let kernel = LinkSpec::rtt(Duration::from_millis(60));
    let window = kernel.window.bytes() as usize;
    takes("60ms", window, 2);
    takes("60ms", window + 1, 3);
    // A window set on the command line moves the edge: 4 × 1,000 B.
    takes("60ms,iw=4,mss=1000", 4000, 2);
    takes("60ms,iw=4,mss=1000", 4001, 3);
    // HTTP/3: no TCP handshake; the edge is 3× Chrome's Initials.
    let budget = "60ms,h3".parse::<LinkSpec>().unwrap().h3.unwrap().budget() as usize;
    takes("60ms,h3", budget, 1);
    takes("60ms,h3", budget + 1, 2);
}
