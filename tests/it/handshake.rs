//! `certbench handshake` from the command line: the table with both stacks and tail-latency
//! columns for 1 and 16 clients, full and resumed; memory per connection for both stacks.
//! (Counts, resumption flags and the clean shutdown: `tests/handshake_counts.rs`.)

fn certbench(args: &[&str]) -> (i32, String, String) {
    let out = crate::common::certbench_command()
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_table_has_both_stacks_and_tail_latency_for_1_and_16_clients() {
    for clients in ["1", "16"] {
        for resumption in ["none", "tickets"] {
            let (code, out, err) = certbench(&[
                "handshake",
                "--transport",
                "all",
                "--key",
                "p256",
                "--tls",
                "1.3",
                "--resumption",
                resumption,
                "--handshakes",
                "64",
                "--clients",
                clients,
            ]);
            assert_eq!(code, 0, "{err}");
            assert!(out.contains(&format!("{clients} client(s)")), "{out}");
            assert!(
                out.contains("| configuration") && out.contains("rustls ÷ OpenSSL"),
                "{out}"
            );
            for col in ["p50", "p90", "p99", "max", "client CPU", "server CPU"] {
                assert!(out.contains(col), "{col}: {out}");
            }
            let kind = if resumption == "none" {
                "full"
            } else {
                "resumed (tickets)"
            };
            assert!(out.contains(&format!("p256 TLS 1.3 {kind}")), "{out}");
            if resumption == "tickets" {
                assert!(out.contains("64/64"), "every handshake resumed: {out}");
                assert!(!err.contains("WARNING"), "{err}");
            }
        }
    }
}

#[test]
fn memory_per_connection_for_both_stacks() {
    let (code, out, err) = certbench(&[
        "handshake",
        "--hold",
        "300",
        "--transport",
        "all",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let runs = crate::common::records(&out, "memory");
    assert_eq!(runs.len(), 2);
    for r in &runs {
        assert_eq!(r["connections"], 300);
        // Every TLS connection holds buffers on both sides: a few KiB at least.
        assert!(
            r["client_kib_per_connection"].as_f64().unwrap() > 1.0,
            "{r}"
        );
        assert!(
            r["server_kib_per_connection"].as_f64().unwrap() > 1.0,
            "{r}"
        );
        assert!(r["allocator"].as_str().unwrap().contains("system"), "{r}");
    }
}

/// `--method` puts certbench verifiers in the rustls clients, one configuration each (the
/// OpenSSL client once, with OpenSSL's own); `--intermediate` serves leaf ← intermediate ←
/// root. Every handshake verifies (none fails), and each run names its verifier and chain.
#[test]
fn certbench_verifiers_run_inside_the_rustls_client_over_an_intermediate() {
    let (code, out, err) = certbench(&[
        "handshake",
        "--transport",
        "all",
        "--key",
        "p384",
        "--intermediate",
        "--method",
        "rustlsserial,rustlsparallel,awslc",
        "--handshakes",
        "40",
        "--clients",
        "4",
        "--format",
        "json",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let runs = crate::common::records(&out, "handshake");
    let named: Vec<(String, Option<String>)> = runs
        .iter()
        .map(|r| {
            assert_eq!(r["handshakes"], 40, "{r}");
            assert_eq!(r["intermediate"], true, "{r}");
            (
                r["client"].as_str().unwrap().to_owned(),
                r["verifier"].as_str().map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(
        named,
        [
            ("openssl".to_owned(), None),
            ("rustls".to_owned(), Some("rustlsserial".to_owned())),
            ("rustls".to_owned(), Some("rustlsparallel".to_owned())),
            ("rustls".to_owned(), Some("awslc".to_owned())),
        ]
    );
    // The markdown table keeps the verifiers apart.
    let (code, out, err) = certbench(&[
        "handshake",
        "--transport",
        "rustls",
        "--key",
        "p256",
        "--intermediate",
        "--method",
        "rustlsserial,rustlsparallel",
        "--handshakes",
        "20",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("leaf ← intermediate ← root, rustls verifier rustlsserial")
            && out.contains("leaf ← intermediate ← root, rustls verifier rustlsparallel"),
        "{out}"
    );
}

/// Server scaling: 1 and 2 server threads (clients on as many threads), both stacks, full and
/// resumed; each run counts its handshakes, names its threads and has ordered percentiles.
#[test]
fn server_threads_scale_with_percentiles_for_both_stacks() {
    let (code, out, err) = certbench(&[
        "handshake",
        "--transport",
        "all",
        "--key",
        "p256",
        "--resumption",
        "none,tickets",
        "--server-threads",
        "1,2",
        "--clients",
        "4",
        "--handshakes",
        "200",
        "--format",
        "json",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let runs: Vec<certbench_schema::records::handshake::HandshakeRun> =
        certbench_schema::records::read_list(out.as_bytes()).unwrap();
    assert_eq!(runs.len(), 2 * 2 * 2, "stacks × resumption × thread counts");
    for threads in [1, 2] {
        for client in ["openssl", "rustls"] {
            for resumption in ["none", "tickets"] {
                let r = runs
                    .iter()
                    .find(|r| {
                        r.server_threads == threads
                            && r.client == client
                            && r.resumption == resumption
                    })
                    .unwrap_or_else(|| panic!("{client} {resumption} {threads} thread(s)"));
                assert_eq!(r.client_threads, threads);
                assert_eq!(r.handshakes, 200, "{r:?}");
                if resumption == "tickets" {
                    assert_eq!(r.resumed, 200, "{r:?}");
                }
                assert!(r.per_second > 0.0 && r.server_cpu_us > 0.0, "{r:?}");
                assert!(r.p50_us <= r.p90_us && r.p90_us <= r.p99_us, "{r:?}");
            }
        }
    }
    // In markdown the thread counts tell the rows apart.
    let (code, out, err) = certbench(&[
        "handshake",
        "--transport",
        "rustls",
        "--server-threads",
        "1,2",
        "--handshakes",
        "50",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("1 server thread(s)") && out.contains("2 server thread(s)"),
        "{out}"
    );
}

/// `--ct`: the server's leaf embeds SCTs from logs made for the run, and a rustls client's
/// certbench method with a CT check checks them in every handshake (none fails); the run
/// names it (`… + CT (2 logs of the handshake run)`), apart from the OpenSSL client. Without
/// a method, or with `--ct-logs`, the command says why it cannot.
#[test]
fn ct_is_checked_by_the_rustls_clients_methods_against_the_runs_own_logs() {
    let methods: Vec<&str> = crate::common::all_methods()
        .iter()
        .map(|m| m.name())
        .filter(|n| matches!(*n, "rustlsserial" | "webpki" | "firefox" | "chrome"))
        .collect();
    let (code, out, err) = certbench(&[
        "handshake",
        "--transport",
        "all",
        "--intermediate",
        "--ct",
        "--method",
        &methods.join(","),
        "--handshakes",
        "20",
        "--format",
        "json",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let runs = crate::common::records(&out, "handshake");
    assert_eq!(runs.len(), 1 + methods.len());
    assert_eq!(runs[0]["client"], "openssl");
    assert!(runs[0]["verifier"].is_null());
    for (r, m) in runs[1..].iter().zip(&methods) {
        assert_eq!(r["handshakes"], 20, "{r}");
        assert_eq!(
            r["verifier"].as_str(),
            Some(format!("{m} + CT (2 logs of the handshake run)").as_str()),
            "{r}"
        );
    }
    for (extra, why) in [
        (&["--ct"][..], "--ct needs --method"),
        (
            &["--ct", "--ct-logs", "x.json", "--method", "webpki"][..],
            "--ct-logs does not apply",
        ),
    ] {
        let (code, _, err) = certbench(&[&["handshake", "--handshakes", "1"][..], extra].concat());
        assert_ne!(code, 0);
        assert!(err.contains(why), "{err}");
    }
}

/// `--revocation`: data made for the run's certificate (`--revocation-scale test`: the run's CAs
/// alone, a tiny filter) and checked in every handshake by the rustls client's method, all
/// good (none of the run's certificates is revoked); the OCSP response stapled by either
/// server arrives; the run names the mechanism and its data, and reports the one load apart.
/// Without a method, or with `--revocation-data`, the command says why it cannot.
#[test]
fn revocation_is_checked_in_every_handshake_against_data_made_for_the_run() {
    for (mechanism, server) in [
        ("crlite", "rustls"),
        ("ocsp", "rustls"),
        ("ocsp", "openssl"),
    ] {
        let (code, out, err) = certbench(&[
            "handshake",
            "--transport",
            "rustls",
            "--server",
            server,
            "--method",
            "rustlsserial",
            "--revocation",
            mechanism,
            "--revocation-scale",
            "test",
            "--handshakes",
            "20",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{err}");
        let runs: Vec<certbench_schema::records::handshake::HandshakeRun> =
            certbench_schema::records::read_list(out.as_bytes()).unwrap();
        let r = &runs[0];
        let checked = (r.handshakes, r.revocation_checks, r.revocation_good);
        assert_eq!(checked, (20, 20, 20), "{mechanism} {server}: {r:?}");
        assert!(r.revocation_data_bytes > 0, "{r:?}");
        let named = format!("rustlsserial + revocation ({mechanism}: ");
        assert!(r.verifier.as_deref().unwrap().starts_with(&named), "{r:?}");
        assert_eq!(r.revocation_load_us.is_some(), mechanism != "ocsp", "{r:?}");
        assert!(
            err.contains("revocation data for the run's certificate made"),
            "{err}"
        );
    }
    for (extra, why) in [
        (&["--revocation", "crl"][..], "--revocation needs --method"),
        (
            &[
                "--revocation",
                "crl",
                "--revocation-data",
                ".",
                "--method",
                "webpki",
            ][..],
            "--revocation-data does not apply",
        ),
    ] {
        let (code, _, err) = certbench(&[&["handshake", "--handshakes", "1"][..], extra].concat());
        assert_ne!(code, 0);
        assert!(err.contains(why), "{err}");
    }
}
