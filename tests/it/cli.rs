//! The `certbench verify` command as a user runs it: offline, on the bundled corpus, and on
//! bad input.

use std::path::Path;
use std::process::Output;

use crate::common::{Fault, browser_reason};
use certbench_schema::EvOutcome;
use certbench_schema::io::read_jsonl;
use certbench_schema::{Sample, Stage, Verdict};

fn certbench(args: &[&str]) -> Output {
    crate::common::certbench_command()
        .args(args)
        .output()
        .expect("run certbench")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn no_panic(o: &Output) {
    let e = stderr(o);
    assert!(!e.contains("panicked"), "{e}");
}

fn read_samples(path: &Path) -> Vec<Sample> {
    let (samples, errors) = read_jsonl(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    assert!(errors.is_empty(), "{errors:?}");
    samples
}

/// The acceptance run: `verify --method all --runs 5`, offline, on the bundled corpus, path
/// only (the path's stages; the checks beyond it are
/// `verify_checks_each_browser_as_shipped_by_default`'s).
#[test]
fn verify_all_methods_five_runs_records_consistent_nonzero_stages() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("samples.jsonl");
    let out = certbench(&[
        "verify",
        "--path-only",
        "--method",
        "all",
        "--runs",
        "5",
        "--warmup",
        "1",
        "--format",
        "json",
        "--raw",
        raw.to_str().unwrap(),
    ]);
    no_panic(&out);
    assert!(out.status.success(), "{}", stderr(&out));

    let samples = read_samples(&raw);
    let n = crate::common::all_methods().len();
    assert_eq!(samples.len(), 34 * n * 6);
    let mut started: std::collections::BTreeMap<String, usize> = Default::default();
    for s in samples.iter() {
        assert!(!matches!(s.verdict, Verdict::Error(_)), "{s:?}");
        let claimed: &[Stage] = match s.method.as_str() {
            // OpenSSL and AWS-LC check the host inside X509_verify_cert, GnuTLS inside
            // gnutls_x509_trust_list_verify_crt2 (as gnutls_certificate_verify_peers3 calls
            // it): no separate stage.
            "openssl" | "awslc" | "gnutls" => &[
                Stage::RootsCreation,
                Stage::ChainCreation,
                Stage::Verify,
                Stage::TotalVerification,
                Stage::Total,
            ],
            // rustls' own verifiers: one `verify_server_cert` call, the name checked inside.
            "webpki" | "platform" => &[
                Stage::RootsCreation,
                Stage::Verify,
                Stage::TotalVerification,
                Stage::Total,
            ],
            _ => &[
                Stage::RootsCreation,
                Stage::ChainCreation,
                Stage::Verify,
                Stage::VerifyHostname,
                Stage::TotalVerification,
                Stage::Total,
            ],
        };
        let mut keys: Vec<Stage> = s.stages.keys().copied().collect();
        // A native library's start-up: once per process, in the method's first sample (a
        // warm-up), counted below.
        if keys.contains(&Stage::LibraryInit) {
            assert!(s.warmup, "{s:?}");
            *started.entry(s.method.clone()).or_insert(0) += 1;
            keys.retain(|&k| k != Stage::LibraryInit);
        }
        // The browsers' EV attempt: alone when it found an EV path (no DV attempt follows),
        // before the DV `verify` when it fell back; only chrome's and firefox's.
        match s.meta.ev {
            Some(EvOutcome::Granted) => {
                assert!(!keys.contains(&Stage::Verify), "{s:?}");
                let at = keys.iter().position(|&k| k == Stage::EvAttempt).unwrap();
                keys[at] = Stage::Verify;
            }
            Some(EvOutcome::Fallback) => {
                assert!(keys.contains(&Stage::Verify), "{s:?}");
                keys.retain(|&k| k != Stage::EvAttempt);
            }
            None => assert!(!keys.contains(&Stage::EvAttempt), "{s:?}"),
        }
        if s.meta.ev.is_some() {
            assert!(matches!(s.method.as_str(), "chrome" | "firefox"), "{s:?}");
        }
        if s.chain.as_deref() == Some("apple.com__limbo-online")
            && matches!(s.method.as_str(), "chrome" | "firefox")
        {
            assert_eq!(s.meta.ev, Some(EvOutcome::Granted), "{s:?}");
        }
        let host_apart = !matches!(
            s.method.as_str(),
            "openssl" | "awslc" | "webpki" | "platform" | "gnutls"
        );
        if matches!(s.verdict, Verdict::Rejected(_)) && host_apart {
            // webpki rejected the path in `verify`: the host was never checked, and the sample
            // says so by not having the stage (rather than a made-up time).
            assert!(!keys.contains(&Stage::VerifyHostname), "{s:?}");
            keys.insert(3, Stage::VerifyHostname);
        }
        assert_eq!(keys, claimed, "{} {:?}", s.method, s.chain);
        assert!(s.stages.values().all(|&ns| ns > 0), "{s:?}");
        let st = |x| s.stage(x).unwrap_or(0);
        assert!(
            st(Stage::ChainCreation)
                + st(Stage::EvAttempt)
                + st(Stage::Verify)
                + st(Stage::VerifyHostname)
                <= st(Stage::TotalVerification),
            "{s:?}"
        );
        assert!(st(Stage::RootsCreation) + st(Stage::TotalVerification) <= st(Stage::Total));
    }
    // NSS's start-up for firefox (BoringSSL has none to speak of, but the call is made and
    // timed the same way), once per process each.
    let natives: Vec<&str> = crate::common::all_methods()
        .iter()
        .map(|m| m.name())
        .filter(|m| matches!(*m, "chrome" | "firefox"))
        .collect();
    assert_eq!(
        started.keys().map(String::as_str).collect::<Vec<_>>(),
        natives
    );
    assert!(started.values().all(|&n| n == 1), "{started:?}");
    // Interleaved: within one run and chain, the three methods are back to back.
    let measured: Vec<&Sample> = samples.iter().filter(|s| !s.warmup).collect();
    for w in measured.chunks(n) {
        assert!(w.iter().all(|s| s.chain == w[0].chain && s.run == w[0].run));
        let mut m: Vec<&str> = w.iter().map(|s| s.method.as_str()).collect();
        m.sort();
        let mut all: Vec<&str> = crate::common::all_methods()
            .iter()
            .map(|m| m.name())
            .collect();
        all.sort();
        assert_eq!(m, all);
    }

    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tables = report["tables"].as_array().unwrap();
    let methods: Vec<&str> = tables
        .iter()
        .map(|t| t["method"].as_str().unwrap())
        .collect();
    let all: Vec<&str> = crate::common::all_methods()
        .iter()
        .map(|m| m.name())
        .collect();
    assert_eq!(methods, all, "--method order");
    for t in tables {
        let rows = t["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 34);
        assert!(rows.iter().all(|r| r["n"] == 5));
    }
    assert_eq!(report["comparison"]["rows"].as_array().unwrap().len(), 34);
}

#[test]
fn markdown_and_csv_tables_have_every_site_and_verdicts() {
    let out = certbench(&[
        "verify", "--method", "openssl", "--runs", "2", "--warmup", "0",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("### openssl"));
    assert!(md.contains("| site "), "{md}");
    assert!(md.contains("rejected: Missing Authority Key Identifier (depth 1)"));
    assert_eq!(md.lines().filter(|l| l.starts_with("| ")).count(), 35);

    let out = certbench(&[
        "verify",
        "--method",
        "rustlsserial",
        "--runs",
        "2",
        "--warmup",
        "0",
        "--format",
        "csv",
    ]);
    assert!(out.status.success());
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("method,transport,hook,resumption,cache_roots,roots,openssl_policy,versions,site,chain,stage,n,mean_ns"));
    // Six stages per chain, but udctest.ads.vt.edu is rejected in `verify` (webpki does not
    // support its DirectoryName name constraint) so it has no `verify-hostname`.
    assert_eq!(csv.lines().count(), 1 + 34 * 6 - 1);
    assert!(csv.contains(",udctest.ads.vt.edu__go-x509,verify,2,"));
    assert!(!csv.contains(",udctest.ads.vt.edu__go-x509,verify-hostname,"));
}

#[test]
fn cached_roots_cost_zero_per_use() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("s.jsonl");
    let out = certbench(&[
        "verify",
        "--method",
        "openssl,rustlsserial",
        "--runs",
        "2",
        "--warmup",
        "0",
        "--cache-roots",
        "--raw",
        raw.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("roots-creation, built once for openssl"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 (cached)"));
    for s in read_samples(&raw) {
        assert!(s.meta.roots_cached);
        assert_eq!(s.stage(Stage::RootsCreation), Some(0));
    }
}

fn copy_chain(from: &str, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let src = certbench_core::corpus::bundled_dir().join(from);
    for f in ["leaf.pem", "intermediates.pem", "root.pem"] {
        std::fs::copy(src.join(f), to.join(f)).unwrap();
    }
}

#[test]
fn bad_chains_are_error_rows_and_the_rest_is_measured() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    copy_chain("reddit.com__rustls-bench", &d.join("reddit.com__good"));
    copy_chain("reddit.com__rustls-bench", &d.join("garbage.example__pem"));
    std::fs::write(d.join("garbage.example__pem/leaf.pem"), "this is not PEM\n").unwrap();
    copy_chain("reddit.com__rustls-bench", &d.join("junk.example__der"));
    std::fs::write(
        d.join("junk.example__der/intermediates.pem"),
        "-----BEGIN CERTIFICATE-----\nMIIBAAAA\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    std::fs::create_dir_all(d.join("empty.example__none")).unwrap();

    let raw = d.join("s.jsonl");
    let out = certbench(&[
        "verify",
        "--chains",
        d.to_str().unwrap(),
        "--runs",
        "2",
        "--warmup",
        "0",
        "--raw",
        raw.to_str().unwrap(),
    ]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("garbage.example__pem/leaf.pem: no certificate found"),
        "{err}"
    );
    assert!(
        err.contains("junk.example__der/intermediates.pem: certificate #1 is not DER X.509"),
        "{err}"
    );
    assert!(
        err.contains("empty.example__none: no leaf.pem or chain.pem"),
        "{err}"
    );
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.contains("| garbage.example") && md.contains("error: "),
        "{md}"
    );

    let samples = read_samples(&raw);
    // The good chain was measured by every method, twice. Without a manifest the host is the
    // folder name up to `__` and the validation time is now, so the verdict may be an expiry:
    // a measured rejection, not an error.
    let good: Vec<&Sample> = samples.iter().filter(|s| s.site == "reddit.com").collect();
    let n = crate::common::all_methods().len();
    assert_eq!(good.len(), n * 2);
    assert!(good.iter().all(|s| !matches!(s.verdict, Verdict::Error(_))));
    let errors = samples
        .iter()
        .filter(|s| matches!(s.verdict, Verdict::Error(_)))
        .count();
    assert_eq!(errors, 3 * n);
}

#[test]
fn missing_inputs_exit_non_zero_naming_the_file() {
    let out = certbench(&["verify", "--chains", "/nonexistent/chains"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("/nonexistent/chains"),
        "{}",
        stderr(&out)
    );

    let out = certbench(&["verify", "--roots", "/nonexistent/roots.pem", "--runs", "1"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("/nonexistent/roots.pem"),
        "{}",
        stderr(&out)
    );

    // A manifest naming a folder that is not there: an error row naming it, exit 3.
    let dir = tempfile::tempdir().unwrap();
    copy_chain(
        "reddit.com__rustls-bench",
        &dir.path().join("reddit.com__x"),
    );
    std::fs::write(
        dir.path().join("manifest.json"),
        r#"{"chains":[{"dir":"reddit.com__x","host":"reddit.com","validation_time_unix":1770205316},
                      {"dir":"gone.example__x","host":"gone.example","validation_time_unix":1770205316}]}"#,
    )
    .unwrap();
    let out = certbench(&[
        "verify",
        "--chains",
        dir.path().to_str().unwrap(),
        "--runs",
        "1",
        "--warmup",
        "0",
        "--method",
        "rustlsserial",
    ]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("gone.example__x: chain folder not found"),
        "{}",
        stderr(&out)
    );
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("| reddit.com") && md.contains("| ok"), "{md}");

    let out = certbench(&["verify", "--method", "nonsense"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("invalid value 'nonsense'"), "{err}");
    assert!(
        certbench_core::methods::Method::ALL
            .iter()
            .all(|m| err.contains(m.name())),
        "the error lists every method: {err}"
    );
}

/// Every command that takes `--method` names every method in its `--help`, from the one
/// `methods!` list.
#[test]
fn help_names_every_method() {
    for args in [
        &["--help"][..],
        &["verify", "--help"],
        &["limbo", "--help"],
        &["icount", "--help"],
    ] {
        let out = certbench(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let help = String::from_utf8(out.stdout).unwrap();
        for m in crate::common::all_methods() {
            assert!(
                help.contains(m.name()),
                "{args:?} --help lacks {m}:\n{help}"
            );
            assert!(
                help.contains(m.about()),
                "{args:?} --help lacks what {m} is:\n{help}"
            );
        }
    }
}

/// The four bad cases through the command line: each method's own reason is in the table.
#[test]
fn rejections_show_each_verifiers_reason_in_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["expired", "wronghost", "nointer"] {
        copy_chain("reddit.com__rustls-bench", &d.join(format!("{name}__case")));
    }
    std::fs::write(d.join("nointer__case/intermediates.pem"), "").unwrap();
    // The store (below) holds only reddit's root: github's chain has no trusted root.
    copy_chain("github.com__rustls-bench", &d.join("untrusted__case"));
    let t = 1_770_205_316u64; // inside both chains' validity
    let expired = 1_779_494_399u64 + 86_400; // a day after the leaf's notAfter
    let entry = |dir: &str, host: &str, time: u64| {
        format!(r#"{{"dir":"{dir}","host":"{host}","validation_time_unix":{time}}}"#)
    };
    std::fs::write(
        d.join("manifest.json"),
        format!(
            r#"{{"chains":[{},{},{},{}]}}"#,
            entry("expired__case", "reddit.com", expired),
            entry("wronghost__case", "www.example.org", t),
            entry("untrusted__case", "github.com", t),
            entry("nointer__case", "reddit.com", t),
        ),
    )
    .unwrap();
    // Only the chains' own roots, so that the untrusted case has no path to a trusted root.
    let roots = d.join("roots.pem");
    std::fs::copy(
        certbench_core::corpus::bundled_dir().join("reddit.com__rustls-bench/root.pem"),
        &roots,
    )
    .unwrap();
    let out = certbench(&[
        "verify",
        "--chains",
        d.to_str().unwrap(),
        "--roots",
        roots.to_str().unwrap(),
        "--no-corpus-roots",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--format",
        "json",
    ]);
    no_panic(&out);
    assert!(
        out.status.success(),
        "rejections are verdicts: {}",
        stderr(&out)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for t in report["tables"].as_array().unwrap() {
        let method = t["method"].as_str().unwrap();
        let verdicts: Vec<&str> = t["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["verdict"].as_str().unwrap())
            .collect();
        let want: [String; 4] = if method == "openssl" || method == "awslc" {
            // OpenSSL's words; AWS-LC's differ in one capital.
            [
                "rejected: certificate has expired (depth 0)",
                if method == "awslc" {
                    "rejected: Hostname mismatch (depth 0)"
                } else {
                    "rejected: hostname mismatch (depth 0)"
                },
                "rejected: unable to get local issuer certificate (depth ",
                "rejected: unable to get local issuer certificate (depth 0)",
            ]
            .map(String::from)
        } else if let Some(expired) = browser_reason(method, Fault::Expired) {
            // A browser's verifier, in its library's words.
            let untrusted = browser_reason(method, Fault::Untrusted).unwrap();
            [
                expired,
                browser_reason(method, Fault::WrongHost).unwrap(),
                untrusted,
                untrusted,
            ]
            .map(|w| format!("rejected: {w}"))
        } else if method == "webpki" || method == "platform" {
            // rustls' verifiers, in rustls' words.
            [
                "rejected: invalid peer certificate: certificate expired",
                "rejected: invalid peer certificate: certificate not valid for name",
                "rejected: invalid peer certificate: UnknownIssuer",
                "rejected: invalid peer certificate: UnknownIssuer",
            ]
            .map(String::from)
        } else {
            [
                "rejected: CertExpired",
                "rejected: CertNotValidForName",
                "rejected: UnknownIssuer",
                "rejected: UnknownIssuer",
            ]
            .map(String::from)
        };
        for (i, (got, want)) in verdicts.iter().zip(want).enumerate() {
            if method == "platform" && i == 2 {
                // `platform` also trusts the system store, which may hold github's root.
                let github = certbench_core::chain::read_pem_certs(
                    &certbench_core::corpus::bundled_dir()
                        .join("github.com__rustls-bench/root.pem"),
                )
                .unwrap();
                let system = rustls_native_certs::load_native_certs().certs;
                let trusted = system.iter().any(|c| c.as_ref() == github[0].as_ref());
                assert_eq!(*got == "ok", trusted, "{method}: {got}");
                continue;
            }
            assert!(got.starts_with(&want), "{method}: {got} (want {want})");
        }
    }
}

/// With both rustls-webpki methods, `verify` shows each chain's parallel bound next to the
/// measured ratio: the floor is the path's checks, the largest one of them, and the bound
/// serial ÷ (serial − floor + largest) is at least 1.
#[test]
fn verify_shows_each_chains_parallel_bound() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for id in [
        "reddit.com__rustls-bench",
        "www.washingtonpost.com__rustls-bench",
    ] {
        let to = d.join(id);
        std::fs::create_dir_all(&to).unwrap();
        let src = certbench_core::corpus::bundled_dir().join(id);
        for f in ["leaf.pem", "intermediates.pem", "root.pem"] {
            std::fs::copy(src.join(f), to.join(f)).unwrap();
        }
    }
    let out = certbench(&[
        "verify",
        "--chains",
        d.to_str().unwrap(),
        "--method",
        "rustlsserial,rustlsparallel",
        "--runs",
        "3",
        "--warmup",
        "0",
        "--cache-roots",
        "--quiet",
    ]);
    no_panic(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = String::from_utf8(out.stdout).unwrap();
    let table = md
        .split("### rustlsparallel against its bound")
        .nth(1)
        .expect("the bound table");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| chain"))
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{table}");
    for r in &rows {
        // | chain | keys | n | serial | parallel | ratio | HL [CI] | floor | largest | bound |
        //   reached | bound on k threads | reached |
        assert_eq!(r[3], "3", "{r:?}");
        let bound: f64 = r[10].trim_start_matches('×').parse().unwrap();
        assert!(bound >= 1.0, "{r:?}");
        // Both paths have two checks: on two or more threads the split bound is the bound.
        let here: f64 = r[12].trim_start_matches('×').parse().unwrap();
        assert!((here - bound).abs() < 0.006, "{r:?}");
        // The Hodges–Lehmann ratio inside its interval: "×1.037 [1.016, 1.052]".
        let hl: Vec<f64> = r[7]
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(hl.len(), 3, "{r:?}");
        assert!(hl[1] <= hl[0] && hl[0] <= hl[2], "{r:?}");
    }
    assert!(table.contains("serial ÷ parallel: geomean ×"), "{table}");
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .max(2);
    assert!(
        table.contains(&format!("| bound on {threads} threads |")),
        "{table}"
    );
    // Only one of the two methods: no bound to show.
    let out = certbench(&[
        "verify",
        "--chains",
        d.to_str().unwrap(),
        "--method",
        "rustlsserial",
        "--runs",
        "1",
        "--quiet",
    ]);
    assert!(
        !String::from_utf8(out.stdout)
            .unwrap()
            .contains("against its bound")
    );
}

/// Store scaling: 1,500 extra roots and 150 extra intermediates, every method. The verdicts
/// are those of the run without extras (decoys and unrelated candidates change the cost of
/// path building, never its outcome), and the summary reports each method's roots creation
/// and verify.
#[test]
fn extra_roots_and_intermediates_change_costs_not_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    // Every method but gnutls: GnuTLS, as glib-networking calls it, refuses more peer
    // certificates than the credentials' verify depth (16) before it verifies anything, so 150
    // extra intermediates are its rejection, as from a real server sending them
    // (tests/it/gnutls.rs shows the limit).
    let methods: Vec<&str> = crate::common::all_methods()
        .iter()
        .map(|m| m.name())
        .filter(|&m| m != "gnutls")
        .collect();
    let list = methods.join(",");
    let run = |name: &str, extra: &[&str]| {
        let raw = dir.path().join(name);
        let mut args = vec![
            "verify",
            "--method",
            &list,
            "--runs",
            "1",
            "--warmup",
            "0",
            "--cache-roots",
            "--quiet",
            "--raw",
            raw.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = certbench(&args);
        no_panic(&o);
        assert!(o.status.success(), "{}", stderr(&o));
        let verdicts: std::collections::BTreeMap<(String, String), bool> = read_samples(&raw)
            .into_iter()
            .map(|s| {
                let ok = s.verdict == Verdict::Ok;
                ((s.method, s.chain.unwrap()), ok)
            })
            .collect();
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            verdicts,
            raw,
        )
    };
    let (_, plain, plain_raw) = run("plain.jsonl", &[]);
    let (text, extra, raw) = run(
        "extra.jsonl",
        &["--extra-roots", "1500", "--extra-intermediates", "150"],
    );
    assert_eq!(plain.len(), 34 * methods.len());
    assert_eq!(plain, extra);
    // Every sample names the larger store and the intermediates offered.
    for s in read_samples(&raw) {
        let roots = s.config.trust_store().unwrap();
        assert!(
            roots.origin.contains("+extra") && roots.roots >= 1500 + 100,
            "{roots}"
        );
        assert_eq!(s.config.extra_intermediates, 150);
    }
    let table = text
        .split("### Store scaling")
        .nth(1)
        .expect("a store-scaling summary");
    assert!(table.contains("1500 extra"), "{table}");
    for m in &methods {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| {} ", m)))
            .unwrap_or_else(|| panic!("no row for {m}: {table}"));
        assert!(row.contains("(built once)"), "{row}");
        // roots-creation, verify, total-verification: all measured.
        assert!(!row.contains('—'), "{row}");
    }
    // The two runs reported together: the store-scaling curve of total-verification; none
    // of roots-creation, since the stores were cached (built once, in no sample).
    let html = raw.with_extension("html");
    let o = certbench(&[
        "report",
        plain_raw.to_str().unwrap(),
        raw.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("total-verification against the roots in the store"),
        "no store curve"
    );
    assert!(!page.contains("roots-creation against the roots in the store"));
}

/// Each browser's method as shipped, by default: chrome and firefox check CT (the `ct` stage,
/// the SCTs counted) on every public chain that carries SCTs and revocation (the
/// `revocation` stage), gnutls its staple, Servo's methods nothing; the verdicts and CT
/// counts are those of `--ct --revocation crlite` (which adds the checks to Servo's methods
/// only), and `--path-only` checks nothing beyond the path.
#[test]
fn verify_checks_each_browser_as_shipped_by_default() {
    let browsers: Vec<&str> = crate::common::all_methods()
        .iter()
        .map(|m| m.name())
        .filter(|m| matches!(*m, "chrome" | "firefox" | "gnutls"))
        .collect();
    if browsers.len() < 3 {
        return; // a browser's verifier was not built here (named by `all_methods`)
    }
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let raw = dir.path().join(format!("{name}.jsonl"));
        let mut args = vec![
            "verify",
            "--method",
            "chrome,firefox,gnutls,rustlsparallel",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--quiet",
            "--raw",
            raw.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = certbench(&args);
        no_panic(&out);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        (
            read_samples(&raw),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (shipped, text) = run("shipped", &[]);
    // Start-up apart: no sample pays the data's load; each mechanism's load measured over 5
    // fresh processes, with its range, and whether the browser's connection waits.
    assert!(
        shipped
            .iter()
            .all(|s| s.stage(Stage::RevocationLoad).is_none())
    );
    let startup = &text[text.find("### start-up, once per process").expect(&text)..];
    for (m, waits) in [
        ("crlset", "Chrome does not wait"),
        ("crlite", "Firefox does not wait"),
    ] {
        let line = startup
            .lines()
            .find(|l| l.starts_with(&format!("- {m}: ")))
            .unwrap_or_else(|| panic!("{startup}"));
        assert!(
            line.contains("median (range) over 5 fresh processes") && line.contains(waits),
            "{line}"
        );
    }
    let (asked, _) = run("asked", &["--ct", "--revocation", "crlite"]);
    let (path, _) = run("path", &["--path-only"]);
    let corpus = crate::common::corpus();
    let with_scts = |chain: &str| {
        corpus.chains.iter().any(|c| {
            c.id == chain
                && c.public_root
                && certbench_core::der::embedded_scts(&c.chain.leaf).is_ok_and(|e| e.is_some())
        })
    };
    let mut ct_chains = std::collections::BTreeSet::new();
    for s in &shipped {
        let chain = s.chain.as_deref().unwrap();
        let (ct, revocation) = (s.stage(Stage::Ct), s.stage(Stage::Revocation));
        match s.method.as_str() {
            "chrome" | "firefox" => {
                if with_scts(chain) {
                    let counts = s
                        .meta
                        .ct
                        .unwrap_or_else(|| panic!("{} {chain}: no CT", s.method));
                    assert!(ct.is_some() && counts.scts > 0, "{s:?}");
                    ct_chains.insert(chain.to_owned());
                }
                let r = s.meta.revocation.as_ref().expect("revocation checked");
                let want = if s.method == "chrome" {
                    "crlset"
                } else {
                    "crlite"
                };
                assert_eq!(r.mechanism, want, "{s:?}");
                // Checked on the path it accepted; a path or CT rejection comes before.
                if s.verdict.is_ok() {
                    assert!(revocation.is_some(), "{s:?}");
                }
            }
            "gnutls" => {
                assert!(ct.is_none(), "{s:?}");
                assert_eq!(s.meta.revocation.as_ref().unwrap().mechanism, "ocsp");
            }
            _ => assert!(ct.is_none() && revocation.is_none(), "{s:?}"),
        }
    }
    assert!(ct_chains.len() >= 30, "{ct_chains:?}");
    // The same verdicts and CT counts as `--ct --revocation crlite` gives the browsers.
    let key = |s: &Sample| (s.method.clone(), s.chain.clone());
    let by_key: std::collections::HashMap<_, _> = asked.iter().map(|s| (key(s), s)).collect();
    for s in shipped.iter().filter(|s| s.method != "rustlsparallel") {
        let a = by_key[&key(s)];
        assert_eq!(s.verdict, a.verdict, "{} {:?}", s.method, s.chain);
        assert_eq!(s.meta.ct, a.meta.ct, "{} {:?}", s.method, s.chain);
    }
    // Path only: nothing beyond the path, in any method.
    for s in &path {
        assert!(
            s.stage(Stage::Ct).is_none() && s.stage(Stage::Revocation).is_none(),
            "{s:?}"
        );
        assert!(
            s.config.ct.is_none() && s.config.revocation.is_none(),
            "{s:?}"
        );
    }
}

/// `--ct` or `--revocation` that no method of the run can add is a usage error (exit 2)
/// naming the methods that can; one that some cannot add is said, and the run goes on.
#[test]
fn a_check_no_method_can_add_is_a_usage_error() {
    let out = certbench(&["verify", "--ct", "--method", "openssl", "--runs", "1"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("--ct: no method of this run adds Certificate Transparency on request")
            && err.contains("openssl: no Certificate Transparency check")
            && err.contains("rustlsserial"),
        "{err}"
    );
    let out = certbench(&[
        "verify",
        "--revocation",
        "crl",
        "--method",
        "openssl",
        "--runs",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--revocation crl: no method"),
        "{}",
        stderr(&out)
    );
    // With a method that can: a warning for the one that cannot, and the run goes on.
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("mixed.jsonl");
    let out = certbench(&[
        "verify",
        "--ct",
        "--method",
        "openssl,rustlsserial",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--quiet",
        "--raw",
        raw.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("--ct: openssl: no Certificate Transparency check, verified without it"),
        "{}",
        stderr(&out)
    );
    let samples = read_samples(&raw);
    assert!(
        samples
            .iter()
            .any(|s| s.method == "rustlsserial" && s.stage(Stage::Ct).is_some())
    );
}
