//! `certbench revocation-scale --quick`: a row per data set, cold and warm figures, and the
//! verdicts every check had (the revoked leaf revoked, the other good); bad input is an error.

use serde_json::Value;

fn revocation_scale(cache: &std::path::Path, extra: &[&str]) -> std::process::Output {
    crate::common::certbench_command()
        .args(["revocation-scale", "--quick", "--quiet", "--cache"])
        .arg(cache)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn quick_table_has_every_data_set_with_checked_verdicts() {
    let cache = tempfile::tempdir().unwrap();
    // Small CRLs and few runs: a debug build.
    let args = [
        "--crl-sizes",
        "2000,20000",
        "--cold-runs",
        "2",
        "--warm-runs",
        "5",
    ];
    let out = revocation_scale(cache.path(), &[&args[..], &["--format", "json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = report["rows"].as_array().unwrap();
    let keys: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["data"].as_str().unwrap().into(),
                r["check"].as_str().unwrap().into(),
            )
        })
        .collect();
    let mut want = vec![("CRLSet, chrome", "crlset"), ("CRLSet, limit", "crlset")];
    for scale in ["tiny", "small"] {
        for check in ["crlite (gecko)", "crlite (rustls)", "upki"] {
            want.push((
                if scale == "tiny" {
                    "CRLite, tiny"
                } else {
                    "CRLite, small"
                },
                check,
            ));
        }
    }
    want.extend([
        ("CRL, 2,000 serials", "crl"),
        ("CRL, 20,000 serials", "crl"),
    ]);
    let want: Vec<(String, String)> = want
        .into_iter()
        .map(|(a, b)| (a.into(), b.into()))
        .collect();
    assert_eq!(keys, want);
    for r in rows {
        let name = &r["data"];
        for cell in ["cold", "warm_good", "warm_revoked"] {
            assert!(r[cell]["median"].as_f64().unwrap() > 0.0, "{name} {cell}");
            assert!(r[cell]["n"].as_u64().unwrap() > 0, "{name} {cell}");
        }
        assert_eq!(r["warm_good"]["n"], 5, "{name}");
        assert_eq!(r["verdict_revoked"], "revoked", "{name}");
        assert_eq!(r["verdict_good"], "good", "{name}");
        assert!(r["data_bytes"].as_u64().unwrap() > 0, "{name}");
    }

    // The second run reads the cache, and the Markdown table has a row per data set.
    let out = revocation_scale(cache.path(), &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = String::from_utf8(out.stdout).unwrap();
    for (data, check) in &want {
        assert!(
            md.contains(&format!("| {data} | {check} |")),
            "{data} {check}:\n{md}"
        );
    }
    assert!(
        md.contains("earlier run") && !md.contains("this run"),
        "{md}"
    );
}

#[test]
fn bad_sizes_are_clear_errors() {
    let cache = tempfile::tempdir().unwrap();
    let out = revocation_scale(cache.path(), &["--crl-sizes", "0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a CRL of 0 serials"), "{err}");
    // Zero runs would measure nothing: clap's usage error, naming the flag.
    let out = revocation_scale(cache.path(), &["--warm-runs", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'--warm-runs <WARM_RUNS>': 0 is not in 1.."),
        "{err}"
    );
}
