//! QUIC (`--transport quic`): every method verifies the mirror's 13 sites over a real QUIC
//! handshake (quinn, rustls inside), its samples carrying the handshake's datagrams and bytes
//! each way; the post-quantum twins too.

use std::collections::HashMap;

use certbench::pq::Profile;
use certbench_core::methods::Method;
use certbench_schema::{Sample, Transport, Verdict};

use crate::pq::drive_pq_over;

/// The mirror's thirteen sites (sites.txt's).
fn sites() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sites.txt")).unwrap()
}

/// Each sample's verdict, by (site, method, profile).
fn verdicts(samples: &[Sample]) -> HashMap<(String, String, String), Verdict> {
    (samples.iter())
        .map(|s| {
            let profile = s.config.profile.as_ref().map_or("", |p| p.as_str());
            let key = (s.site_id(), s.method.clone(), profile.to_owned());
            (key, s.verdict.clone())
        })
        .collect()
}

#[test]
fn every_method_verifies_the_mirror_over_quic_and_counts_the_datagrams() {
    let methods = crate::common::all_methods();
    let sites = sites();
    let classical = [Profile::Classical];
    let quic = drive_pq_over(
        (Transport::Quic, None),
        methods,
        &sites,
        &classical,
        1,
        None,
    );
    assert_eq!(quic.len(), 13 * methods.len());
    // Every method accepts every site's chain, as over rustls (`tests/it/driver_mirror.rs`);
    // `mtc` verifies Merkle Tree Certificates only.
    for ((site, method, _), verdict) in verdicts(&quic) {
        match method.as_str() {
            "mtc" => assert!(
                matches!(verdict, Verdict::Unsupported(_)),
                "{site}: {verdict:?}"
            ),
            _ => assert_eq!(verdict, Verdict::Ok, "{method} on {site}"),
        }
    }
    for s in quic.iter().filter(|s| s.verdict == Verdict::Ok) {
        assert_eq!(s.config.transport, Some(Transport::Quic.into()));
        let q = s.meta.quic.as_ref().expect("the QUIC counts");
        let chain = s.meta.chain_bytes.expect("the chain");
        // Chrome's Initials: each padded to 1,250 B; the server's flight carries the chain.
        assert_eq!(q.initial_datagram, 1250);
        assert!(q.datagrams_sent >= 2 && q.bytes_sent >= 1250 * 2, "{q:?}");
        assert!(
            q.bytes_received > chain && q.datagrams_received >= 2,
            "{q:?}"
        );
        assert!(
            q.handshake_ns > 0
                && q.handshake_ns <= s.stage(certbench_schema::Stage::Connection).unwrap()
        );
        assert_eq!(s.meta.link_counts, None, "no link, no link counts");
    }
}

#[test]
fn the_post_quantum_twins_verify_over_quic_and_weigh_more_on_the_wire() {
    let methods = [Method::Webpki, Method::RustlsSerial];
    let profiles = [Profile::Classical, Profile::MlDsa44, Profile::MlDsa87];
    let samples = drive_pq_over(
        (Transport::Quic, None),
        &methods,
        "cnn.com\n",
        &profiles,
        1,
        None,
    );
    assert_eq!(samples.len(), methods.len() * profiles.len());
    let received = |p: Profile| {
        let s = (samples.iter())
            .find(|s| s.config.profile == Some(p.into()))
            .unwrap();
        assert_eq!(s.verdict, Verdict::Ok, "{p}: {s:?}");
        s.meta.quic.as_ref().unwrap().bytes_received
    };
    let (today, p44, p87) = (
        received(Profile::Classical),
        received(Profile::MlDsa44),
        received(Profile::MlDsa87),
    );
    assert!(today < p44 && p44 < p87, "{today} < {p44} < {p87}");
}

#[test]
fn firefoxs_initials_through_a_lossy_link_and_the_links_counts_in_each_sample() {
    let link: certbench::link::LinkSpec = "10ms,50mbit,loss=1%,h3=firefox".parse().unwrap();
    let how = (Transport::Quic, None);
    let sites = "github.com\n";
    let samples = drive_pq_over(
        how,
        &[Method::RustlsSerial],
        sites,
        &[Profile::Classical],
        2,
        Some(link),
    );
    assert_eq!(samples.len(), 2);
    for s in &samples {
        // Every handshake completes through the loss (quinn sends again what the link lost).
        assert_eq!(s.verdict, Verdict::Ok, "{s:?}");
        // Firefox's Initials: 1,252 B (neqo's 1,280-byte path MTU less IPv4's and UDP's headers).
        assert_eq!(s.meta.quic.as_ref().unwrap().initial_datagram, 1252);
        let counts = s.meta.link_counts.as_ref().expect("the link's counts");
        assert!(counts.handshake_rounds >= 1 && !counts.server_bytes_per_round.is_empty());
    }
}
