//! The emulated link (`--link`): connections through it take what its model says — the same
//! connection on loopback, plus a round trip each for TCP, TLS 1.3 and the HTTP request, plus
//! one for a server's first flight over TCP's initial window — within 10 %, at two RTTs; and
//! the flight over the window is the one that pays the extra round trip.

use std::time::Duration;

use certbench::link::LinkSpec;
use certbench::pq::Profile;
use certbench_analysis::pq::{extra_round_trips, model_connection_ns, segments};
use certbench_core::methods::Method;
use certbench_schema::{Sample, Stage};

use crate::pq::drive_pq;

/// The median `connection` and first flight of the samples of `profile`.
fn of(samples: &[Sample], profile: Profile) -> (f64, u64) {
    let mine: Vec<&Sample> = (samples.iter())
        .filter(|s| s.config.profile == Some(profile.into()))
        .collect();
    assert!(!mine.is_empty());
    let mut conn: Vec<f64> = mine
        .iter()
        .map(|s| s.stage(Stage::Connection).unwrap() as f64)
        .collect();
    conn.sort_by(f64::total_cmp);
    let flight = mine[0]
        .meta
        .first_flight_bytes
        .expect("the first flight was counted");
    assert!(
        mine.iter()
            .all(|s| s.meta.first_flight_bytes == Some(flight))
    );
    (conn[conn.len() / 2], flight)
}

#[test]
fn connection_over_the_link_matches_the_model_at_two_rtts() {
    // cnn.com's ML-DSA-44 twin sends a first flight within the initial window, its ML-DSA-87
    // twin one over it.
    let (under, over) = (Profile::MlDsa44, Profile::MlDsa87);
    let methods = [Method::RustlsSerial];
    let site = "cnn.com\n";
    let runs = 5;
    let loopback = drive_pq(&methods, site, &[under, over], runs, None);
    let (l_under, f_under) = of(&loopback, under);
    let (l_over, f_over) = of(&loopback, over);
    assert_eq!(
        extra_round_trips(segments(f_under)),
        0,
        "{f_under} B fit the window"
    );
    assert_eq!(
        extra_round_trips(segments(f_over)),
        1,
        "{f_over} B overflow it once"
    );
    for rtt_ms in [20, 60] {
        let rtt = Duration::from_millis(rtt_ms);
        let link = LinkSpec::rtt(rtt);
        let samples = drive_pq(&methods, site, &[under, over], runs, Some(link));
        for s in &samples {
            assert_eq!(s.config.link.as_deref(), Some(link.to_string().as_str()));
        }
        let rtt_ns = rtt.as_nanos() as f64;
        for (profile, loop_ns, flight) in [(under, l_under, f_under), (over, l_over, f_over)] {
            let (measured, f) = of(&samples, profile);
            assert_eq!(f, flight, "the link does not change what the server sends");
            let model = model_connection_ns(loop_ns, rtt_ns, flight, None);
            let off = (measured - model) / model;
            assert!(
                off.abs() <= 0.10,
                "{profile} at RTT {rtt_ms} ms: measured {:.1} ms, model {:.1} ms ({:+.1} %)",
                measured / 1e6,
                model / 1e6,
                100.0 * off
            );
        }
        // The flight over the window costs one round trip more than the one within it: its
        // connection is the model's with that round trip, not without it, and what the link
        // added to it is about one RTT more than what it added to the other (a quarter of an
        // RTT either way: four medians, taken while other tests run, go into that difference).
        let (m_under, _) = of(&samples, under);
        let (m_over, _) = of(&samples, over);
        let with = model_connection_ns(l_over, rtt_ns, f_over, None);
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
            (0.75 * rtt_ns..=1.25 * rtt_ns).contains(&extra),
            "at RTT {rtt_ms} ms the overflowing flight cost {:.1} ms more",
            extra / 1e6
        );
    }
}
