//! A patched Servo's samples in miniature, and the figures they give.

use super::*;
use certbench_schema::servo::ServoMeta;
use certbench_schema::{SCHEMA_VERSION, SampleMeta, Source, Verdict};

struct Take {
    pid: u32,
    seq: u64,
}

impl Take {
    fn next(
        &mut self,
        event: ServoEvent,
        stages: &[(Stage, u64)],
        connection: Option<u64>,
        page: Option<u64>,
        warmup: bool,
    ) -> Sample {
        self.seq += 1;
        Sample {
            schema: SCHEMA_VERSION,
            source: Source::Servo,
            method: "servo".into(),
            config: Config {
                roots: Some("system (140)".into()),
                ..Config::default()
            },
            site: "a.example".into(),
            port: None,
            path: None,
            chain: None,
            run: 0,
            warmup,
            stages: stages.iter().copied().collect(),
            verdict: Verdict::Ok,
            meta: SampleMeta {
                roots_cached: self.seq > 1 && event == ServoEvent::Verifier,
                resumed: (event == ServoEvent::Connection).then_some(connection == Some(3)),
                servo: Some(ServoMeta {
                    pid: self.pid,
                    seq: self.seq,
                    since_start_ns: self.seq * 1000,
                    event,
                    choice: (event != ServoEvent::Connection)
                        .then_some(ServoChoice::PlatformCached),
                    connection,
                    page,
                    page_url: page.map(|_| "https://a.example/".into()),
                    exception: None,
                    lock_file: None,
                }),
                ..SampleMeta::default()
            },
        }
    }
}

/// One process: two store requests (one build), page 1 with one cold connection (400 µs
/// of verification in a 4 ms handshake), page 2 with two (100 µs in 2 ms; one resumed).
pub(crate) fn samples() -> Vec<Sample> {
    let mut t = Take { pid: 9, seq: 0 };
    let v = ServoEvent::Verification;
    let c = ServoEvent::Connection;
    vec![
        t.next(
            ServoEvent::Verifier,
            &[(Stage::RootsCreation, 5_000_000)],
            None,
            None,
            false,
        ),
        t.next(
            ServoEvent::Verifier,
            &[(Stage::RootsCreation, 0)],
            None,
            None,
            false,
        ),
        // Page 1: connection 1 (cold), one verification of 400 µs in a 4 ms handshake.
        t.next(
            v,
            &[(Stage::TotalVerification, 400_000)],
            Some(1),
            Some(1),
            true,
        ),
        t.next(c, &conn(1_000_000, 4_000_000), Some(1), Some(1), true),
        t.next(
            ServoEvent::Fetch,
            &[(Stage::PageLoad, 10_000_000)],
            None,
            Some(1),
            false,
        ),
        // Page 2: connection 2 (100 µs in 2 ms) and connection 3, resumed.
        t.next(
            v,
            &[(Stage::TotalVerification, 100_000)],
            Some(2),
            Some(2),
            false,
        ),
        t.next(c, &conn(500_000, 2_000_000), Some(2), Some(2), false),
        t.next(c, &conn(500_000, 1_000_000), Some(3), Some(2), false),
        // Page 2's fetches: the later one ends the page's network time.
        t.next(
            ServoEvent::Fetch,
            &[(Stage::PageLoad, 8_000_000)],
            None,
            Some(2),
            false,
        ),
        t.next(
            ServoEvent::Fetch,
            &[(Stage::PageLoad, 20_000_000)],
            None,
            Some(2),
            false,
        ),
    ]
}

/// A connection's stages: `connect`, then the TLS `handshake`, `connection` both.
fn conn(connect: u64, handshake: u64) -> [(Stage, u64); 3] {
    [
        (Stage::Connect, connect),
        (Stage::Handshake, handshake),
        (Stage::Connection, connect + handshake),
    ]
}

#[test]
fn servo_report_sums_verifications_per_connection_and_page_cold_apart() {
    let groups = report(&samples()).unwrap();
    assert_eq!(groups.len(), 1);
    let g = &groups[0];
    assert_eq!(g.store.builds, Some((1, 1)));
    assert_eq!(g.store.build_ns, Some(5e6));
    let rows: Vec<(&str, bool, usize)> = (g.connections.iter())
        .map(|c| (c.label.as_str(), c.resumed, c.connections))
        .collect();
    assert_eq!(
        rows,
        [("cold", false, 1), ("warm", false, 1), ("warm", true, 1)]
    );
    // The TLS handshake alone, `connect` apart.
    assert_eq!(g.connections[0].connect, Some(1e6));
    assert_eq!(g.connections[0].handshake, Some(4e6));
    assert_eq!(g.connections[0].share, Some(0.1));
    assert_eq!(g.connections[2].verifications, 0);
    assert_eq!(g.pages[1].share.map(|s| (s * 1000.0).round()), Some(33.0));
    // The page load is its latest fetch; verification's share of it.
    assert_eq!(
        (g.pages[0].page_load, g.pages[1].page_load),
        (Some(1e7), Some(2e7))
    );
    assert_eq!(g.pages[0].load_share, Some(0.04));
    assert_eq!(g.pages[1].load_share, Some(0.005));
    assert!(report(&[]).is_none());
}
