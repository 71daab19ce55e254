//! `pq`'s summary: rows per set and compression, never pooled; ratios per site.

use super::*;
use certbench_schema::{Config, SampleMeta};

/// A driver sample of `method` on `site` with `profile`'s chain.
fn sample(method: &str, site: &str, profile: &str, own_us: u64, flight: u64) -> Sample {
    let unsupported = method == "openssl" && profile != CLASSICAL;
    Sample {
        config: Config {
            profile: Some(profile.into()),
            ..Config::default()
        },
        stages: match unsupported {
            true => Default::default(),
            false => [
                (Stage::TotalVerification, own_us * 1000),
                (Stage::Connection, 3_000_000),
            ]
            .into(),
        },
        verdict: match unsupported {
            true => Verdict::Unsupported("unsupported algorithm: ML-DSA-44".into()),
            false => Verdict::Ok,
        },
        meta: SampleMeta {
            first_flight_bytes: (!unsupported).then_some(flight),
            first_flight_handshake_bytes: (!unsupported).then_some(flight.saturating_sub(100)),
            tcp_window: Some(TcpWindow {
                mss: 1448,
                mss_source: WindowSource::Kernel,
                ..TcpWindow::DEFAULT
            }),
            chain_bytes: (!unsupported).then_some(flight / 2),
            ..SampleMeta::default()
        },
        ..crate::test_sample::driver(method, site)
    }
}

#[test]
fn twins_are_ratios_to_todays_chain_per_site_and_never_pooled() {
    let mut samples = Vec::new();
    // a.example: 100 µs today, 50 µs on the twin; b.example: 200 → 300 µs. The twin's
    // flight overflows the window on b.example only.
    for (site, today, twin, flight) in [
        ("a.example", 100, 50, 12_000),
        ("b.example", 200, 300, 20_000),
    ] {
        for m in ["rustlsserial", "openssl"] {
            samples.push(sample(m, site, CLASSICAL, today, 4_000));
            samples.push(sample(m, site, "mldsa44", twin, flight));
        }
    }
    let pq = summarize(&samples).unwrap();
    assert_eq!(pq.profiles, ["classical", "mldsa44"]);
    assert_eq!(pq.rows, "sites");
    let serial = pq
        .costs
        .iter()
        .find(|c| c.method == "rustlsserial")
        .unwrap();
    // Per-site ratios ×0.5 and ×1.5: their median, not the ratio of pooled medians.
    assert_eq!(
        (serial.ratio, serial.range, serial.sites),
        (Some(1.0), (0.5, 1.5), 2)
    );
    let openssl = pq.costs.iter().find(|c| c.method == "openssl").unwrap();
    assert_eq!(openssl.ratio, None);
    assert_eq!(
        openssl.unsupported.as_deref(),
        Some("unsupported algorithm: ML-DSA-44")
    );
    let over: Vec<(&str, Option<u32>)> = (pq.flights.iter())
        .filter(|f| f.profile == "mldsa44")
        .map(|f| (f.site.as_str(), f.extra_round_trips()))
        .collect();
    assert_eq!(over, [("a.example", Some(0)), ("b.example", Some(1))]);
    let answer = crate::export::markdown::pq::answer(&pq.answer(Some("rustlsserial"))).join("\n");
    crate::export::golden::check("pq-answer.md", &answer);
    let report = crate::export::Report::from_samples(&samples, &[], None);
    crate::export::golden::check(
        "pq-report.md",
        &crate::export::render(&report, crate::export::Format::Markdown),
    );
    assert!(
        answer.contains("With ML-DSA-44 chains verification costs ×1.00 of today's (rustlsserial, median over 2 sites, ×0.50–×1.50)")
            && answer.contains("carries 12.0 KB more (median over 2 sites); over TCP 1 of 2 sites need an extra round trip (a first flight over the initial window of 10 × 1448 B)")
            && answer.contains("over QUIC 2 of 2 sites (a first flight over 3× Chrome's two Initials, 7.5 KB), against 0 today")
            && answer.contains("against 0 today")
            && answer.contains("Without ML-DSA (unsupported algorithm, so no figure): openssl.")
            && answer.contains("Verdicts on the twins equal today's for every method that verified them (rustlsserial): 2 of 2 each."),
        "{answer}"
    );
    assert!(summarize(&[sample("rustlsserial", "a", CLASSICAL, 1, 1)]).is_some());
    let mut plain = sample("rustlsserial", "a", CLASSICAL, 1, 1);
    plain.config.profile = None;
    assert!(summarize(&[plain]).is_none(), "no profile: no summary");
}

#[test]
fn compressed_and_uncompressed_samples_are_rows_of_their_own() {
    let mut samples = Vec::new();
    for (compression, flight, cv_us) in [(None, 12_000, 30), (Some("brotli"), 11_000, 31)] {
        for (profile, today) in [(CLASSICAL, 100), ("mldsa44", 50)] {
            let mut s = sample("rustlsserial", "a.example", profile, today, flight);
            s.config.compression = compression.map(Into::into);
            s.stages.insert(Stage::CertificateVerify, cv_us * 1000);
            if compression.is_some() {
                s.stages.insert(Stage::CertDecompression, 20_000);
                s.meta.compressed_cert_message_bytes = Some(flight / 3);
            }
            samples.push(s);
        }
    }
    let pq = summarize(&samples).unwrap();
    assert_eq!(pq.compressions, [None, Some("brotli".to_owned())]);
    // Per site and profile, the uncompressed row then the compressed one: never pooled.
    let rows: Vec<(&str, Option<&str>, Option<u64>)> = (pq.flights.iter())
        .map(|f| {
            (
                f.profile.as_str(),
                f.compression.as_deref(),
                f.first_flight_bytes,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (CLASSICAL, None, Some(12_000)),
            (CLASSICAL, Some("brotli"), Some(11_000)),
            ("mldsa44", None, Some(12_000)),
            ("mldsa44", Some("brotli"), Some(11_000)),
        ]
    );
    type Times = (Option<f64>, Option<f64>);
    let costs: Vec<(Option<&str>, Times, Option<f64>)> = (pq.costs.iter())
        .map(|c| {
            let decompression = c.decompression_ns.0;
            (
                c.compression.as_deref(),
                c.certificate_verify_ns,
                decompression,
            )
        })
        .collect();
    assert_eq!(
        costs,
        [
            (None, (Some(30_000.0), Some(30_000.0)), None),
            (
                Some("brotli"),
                (Some(31_000.0), Some(31_000.0)),
                Some(20_000.0)
            ),
        ]
    );
    // The answer is of one configuration: the first (none).
    let answer = pq.answer(Some("rustlsserial"));
    assert_eq!(answer.compression, None);
    assert_eq!(answer.profiles[0].main.compression, None);
    let text = crate::export::markdown::pq::tables(&pq);
    assert!(
        text.contains("| compression |") && text.contains(" brotli |"),
        "{text}"
    );
    let lines = crate::export::markdown::pq::answer(&answer).join("\n");
    assert!(
        lines.contains("CertificateVerify, checked apart, 30.0 µs against 30.0 µs today"),
        "{lines}"
    );
}
