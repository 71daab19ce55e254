//! `certbench wire`: today's chains and a twin over TCP and QUIC through a loss-free link, the
//! handshake's round trips as the link counted them equal to the model's (QUIC: the
//! amplification limit; TCP: the initial window), the page-sized response timed to its last
//! byte, the answer naming each transport.

use std::time::Duration;

use certbench::pq::Profile;
use certbench::wire::{WireOptions, measure};
use certbench_analysis::export::render_wire;
use certbench_analysis::pq::onwire::rows;
use certbench_core::methods::Method;
use certbench_core::roots::RootSet;
use certbench_schema::{Stage, Transport, Verdict};

use crate::pq::pq_set;

#[test]
fn the_links_round_trips_equal_the_models_over_tcp_and_quic() {
    let today = crate::common::mirror().0.clone();
    let twin = pq_set(Profile::MlDsa44).clone();
    let mut roots = RootSet::from_certs("mirror", today.roots.clone());
    roots.extend("mldsa44", twin.roots.clone());
    let opts = WireOptions {
        hosts: vec!["cnn.com".into(), "github.com".into()],
        sizes: vec![20_000],
        sets: vec![today, twin],
        roots,
        methods: vec![Method::RustlsSerial],
        links: vec!["10ms,100mbit".parse().unwrap()],
        runs: 1,
        warmup: 0,
        timeout: Duration::from_secs(20),
    };
    let mut samples = Vec::new();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(measure(&opts, |s| samples.push(s))).unwrap();
    assert_eq!(samples.len() as u64, opts.total());
    for s in &samples {
        assert_eq!(s.verdict, Verdict::Ok, "{s:?}");
        let counts = s.meta.link_counts.as_ref().expect("the link's counts");
        assert!(
            counts.handshake_rounds >= 1 && counts.lost == 0,
            "{counts:?}"
        );
        assert!(
            s.stage(Stage::Response).is_some(),
            "the response's last byte"
        );
    }
    let transports = |t: Transport| {
        (samples.iter())
            .filter(|s| s.config.transport == Some(t.into()))
            .count()
    };
    assert_eq!(transports(Transport::Quic), transports(Transport::Rustls));
    let rows = rows(&samples);
    assert_eq!(rows.len(), 4, "2 transports × 2 sets");
    for r in &rows {
        assert_eq!((r.sites, r.model_differs), (2, 0), "{r:?}");
        assert_eq!(r.rounds, r.model_rounds, "{r:?}");
    }
    // ML-DSA-44's first flight is over Chrome's 7,500 B on both sites: a round trip more
    // over QUIC, today's chains none.
    let quic = |set: &str| {
        rows.iter()
            .find(|r| r.transport == "quic" && r.set.starts_with(set))
    };
    assert_eq!(quic("classical").unwrap().extra_sites, 0);
    assert_eq!(quic("mldsa44").unwrap().extra_sites, 2);
    let md = render_wire(&samples);
    assert!(
        md.contains("over TCP: the handshake takes") && md.contains("over QUIC"),
        "{md}"
    );
}
