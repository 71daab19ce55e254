//! `certbench bulk`: every stack and suite, a small transfer, send and receive apart; the
//! JSON back through `certbench report`.

use certbench_analysis::bulk::BulkFigures;
use certbench_analysis::bulk::BulkResult;

#[test]
fn bulk_measures_every_stack_and_suite_and_reports_back() {
    let o = crate::common::certbench_command()
        .args(["bulk", "--bytes", "300000", "--runs", "2", "--quiet"])
        .args([
            "--tls",
            "1.2,1.3",
            "--key",
            "p256,rsa2048",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let results: Vec<BulkResult> = certbench_schema::records::read_list(&o.stdout).unwrap();
    // TLS 1.2: 3 ciphers × 2 keys (ECDSA and RSA suites); TLS 1.3: 3 ciphers; × 3 stacks,
    // × send and receive.
    assert_eq!(results.len(), (3 * 2 + 3) * 3 * 2);
    for stack in ["openssl", "rustls-aws-lc-rs", "rustls-ring"] {
        for suite in [
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        ] {
            for direction in ["send", "receive"] {
                let r = results
                    .iter()
                    .find(|r| r.stack == stack && r.suite == suite && r.direction == direction)
                    .unwrap_or_else(|| panic!("{stack} {suite} {direction}"));
                assert_eq!(r.mb_per_s.len(), 2, "{r:?}");
                assert!(
                    r.mb_per_s.iter().all(|v| v.is_finite() && *v > 0.0),
                    "{r:?}"
                );
                assert_eq!(r.bytes, 300_000);
                assert!(r.best() >= r.median() && r.median() >= r.worst());
            }
        }
    }
    // Back through the report: the table, and the HTML section with its chart.
    let (md, page) = crate::common::report_with_html("bulk.json", &o.stdout);
    assert!(md.contains("send MB/s: best (median, range)"), "{md}");
    let section = page
        .split("<h2>Bulk transfer</h2>")
        .nth(1)
        .expect("a bulk section");
    assert_eq!(section.matches("<svg").count(), 1);
}
