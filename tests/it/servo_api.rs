//! The calls the Servo patch makes, each run in a process of its own (the environment is
//! read once per process): the test binary runs itself with the ignored test
//! `servo_child::child` and the settings of the run, and checks the samples it wrote:
//! trust set, stages, connection and page, cold and warm marks, exceptions, one store build
//! per process; `certbench report` on them; and the loop of `docs/servo.md`.

use std::path::Path;
use std::process::{Command, Output};

use certbench_schema::servo::{ServoChoice, ServoEvent, ServoException, ServoMeta};
use certbench_schema::{Sample, Stage, Verdict};
fn run_child(dir: &Path, vars: &[(&str, &str)]) -> (Output, Vec<Sample>) {
    let samples = dir.join("servo.jsonl");
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "servo_child::child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env_remove("CERTBENCH_METHOD")
        .env_remove("CERTBENCH_TRUST")
        .env_remove("CERTBENCH_CHILD_PREF_METHOD")
        .env("CERTBENCH_SERVO_CHILD", "1")
        .env("CERTBENCH_SAMPLES", &samples)
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    let read = match std::fs::read(&samples) {
        Ok(bytes) => {
            let (s, errors) = certbench_schema::io::read_jsonl(&bytes[..]);
            assert!(errors.is_empty(), "{errors:?}");
            s
        }
        Err(_) => Vec::new(),
    };
    (out, read)
}

fn meta(s: &Sample) -> &ServoMeta {
    s.meta
        .servo
        .as_ref()
        .unwrap_or_else(|| panic!("no servo meta: {s:?}"))
}

fn of(samples: &[Sample], event: ServoEvent) -> Vec<&Sample> {
    samples.iter().filter(|s| meta(s).event == event).collect()
}

/// The roots each choice's verifier samples name, in choice order.
fn roots_by_choice(samples: &[Sample]) -> Vec<(ServoChoice, String)> {
    let mut v: Vec<_> = of(samples, ServoEvent::Verifier)
        .iter()
        .map(|s| {
            (
                meta(s).choice.unwrap(),
                s.config.roots.as_ref().unwrap().to_string(),
            )
        })
        .collect();
    v.dedup();
    v
}

#[test]
fn servo_own_verifier_is_timed_per_choice_connection_and_page() {
    let dir = tempfile::tempdir().unwrap();
    let (out, samples) = run_child(dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(samples.iter().all(|s| s.method == "servo"));
    let pid = meta(&samples[0]).pid;
    for (i, s) in samples.iter().enumerate() {
        let m = meta(s);
        assert_eq!(
            (m.pid, m.seq),
            (pid, i as u64),
            "one process, in order: {s:?}"
        );
        if i > 0 {
            assert!(m.since_start_ns >= meta(&samples[i - 1]).since_start_ns);
        }
    }
    // One store build per process: the cached platform verifier's second hand-out is cached.
    let built = of(&samples, ServoEvent::Verifier);
    let choices: Vec<_> = built
        .iter()
        .map(|s| (meta(s).choice.unwrap(), s.meta.roots_cached))
        .collect();
    assert_eq!(
        choices,
        [
            (ServoChoice::PlatformCached, false),
            (ServoChoice::PlatformCached, true),
            (ServoChoice::PlatformExtraRoots, false),
            (ServoChoice::WebpkiRoots, false),
        ]
    );
    assert!(built[0].stage(Stage::RootsCreation).unwrap() > 0);
    assert_eq!(built[1].stage(Stage::RootsCreation), Some(0));
    let roots = roots_by_choice(&samples);
    assert!(roots[0].1.starts_with("system ("), "{roots:?}");
    assert!(roots[1].1.starts_with("system+overrides ("), "{roots:?}");
    // The webpki-roots choice: the anchors of Servo's own crate, at the release Servo locks
    // (certbench's Cargo.lock holds it too), plus the override.
    let anchors = webpki_roots::TLS_SERVER_ROOTS.len() + 1;
    assert_eq!(roots[2].1, format!("webpki-roots+overrides ({anchors})"));
    let servo_lock = certbench_core::servo::trust::SERVO_LOCKED_WEBPKI_ROOTS;
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
    assert!(
        lock.contains(&format!(
            "name = \"webpki-roots\"\nversion = \"{servo_lock}\""
        )),
        "certbench links webpki-roots {servo_lock}, Servo's locked release"
    );
    for s in &built {
        assert_eq!(
            s.config.versions.get("webpki-roots").map(String::as_str),
            Some(servo_lock)
        );
        let lock_file = meta(s).lock_file.as_deref().expect("the lock file named");
        assert!(lock_file.ends_with("Cargo.lock"), "{lock_file}");
    }

    // Per choice: one page load, a full handshake with one verification, then a resumed one.
    let verifications = of(&samples, ServoEvent::Verification);
    let connections = of(&samples, ServoEvent::Connection);
    assert_eq!((verifications.len(), connections.len()), (3, 6));
    for (n, v) in verifications.iter().enumerate() {
        let m = meta(v);
        assert_eq!(m.page, Some(n as u64 + 1), "{v:?}");
        assert_eq!(
            v.warmup,
            n == 0,
            "the process's first verification is the cold one"
        );
        assert!(v.stage(Stage::TotalVerification).unwrap() > 0);
        let full = connections[2 * n];
        let resumed = connections[2 * n + 1];
        assert_eq!(m.connection, meta(full).connection, "{v:?} in {full:?}");
        assert_eq!(full.meta.resumed, Some(false));
        assert_eq!(resumed.meta.resumed, Some(true));
        assert!(
            verifications
                .iter()
                .all(|v| meta(v).connection != meta(resumed).connection)
        );
        assert!(full.stage(Stage::Handshake).unwrap() > v.stage(Stage::TotalVerification).unwrap());
        assert_eq!(meta(full).page_url.as_deref(), Some("https://servo.test/"));
    }
    // The system store does not hold the test CA: Servo's exception list accepted the leaf.
    assert!(matches!(verifications[0].verdict, Verdict::Rejected(_)));
    assert_eq!(
        meta(verifications[0]).exception,
        Some(ServoException::CertificateOverride)
    );
    for v in &verifications[1..] {
        assert_eq!((&v.verdict, meta(v).exception), (&Verdict::Ok, None));
    }

    let report = Command::new(env!("CARGO_BIN_EXE_certbench"))
        .args([
            "report",
            dir.path().join("servo.jsonl").to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(
        text.contains("### Servo: verification per connection and per page load"),
        "{text}"
    );
    let row = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("`{needle}` in {text}"))
            .to_owned()
    };
    assert!(
        row("servo · platform-cached · system (").contains("| 1 | 1 per process |"),
        "{text}"
    );
    // Page loads: one each, its time (`page-load`), then 2 connections, 1 resumed, 1 verified.
    for kind in ["| 1 | first of process | ", "| 1 | later | "] {
        let page = row(kind);
        let after = &page[page.find(kind).unwrap() + kind.len()..];
        let cells: Vec<&str> = after.split('|').map(str::trim).collect();
        assert!(cells[0] != "–", "a page-load time: {page}");
        assert_eq!(cells[1..4], ["2", "1", "1"], "{page}");
    }
}

#[test]
fn a_method_gets_servos_trust_set_or_the_mozilla_one_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (_, own) = run_child(dir.path(), &[]);
    let dir = tempfile::tempdir().unwrap();
    let (out, method) = run_child(dir.path(), &[("CERTBENCH_METHOD", "rustlsparallel")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(method.iter().all(|s| s.method == "rustlsparallel"));
    let (method_roots, own_roots) = (roots_by_choice(&method), roots_by_choice(&own));
    assert_eq!(
        method_roots[..2],
        own_roots[..2],
        "the same trust set as Servo's"
    );
    // On webpki-roots: the certificates of Servo's anchors that this build's
    // webpki-root-certs holds (all of them in a Servo build, which locks both at one release).
    let anchors = webpki_roots::TLS_SERVER_ROOTS.len();
    let (set, missing) = certbench_core::servo::trust::webpki_roots();
    assert_eq!(set.certs().len() + missing, anchors);
    let name = if missing == 0 {
        "webpki-roots"
    } else {
        "webpki-roots-partial"
    };
    assert_eq!(
        method_roots[2].1,
        format!("{name}+overrides ({})", anchors - missing + 1)
    );
    // Built once per process on the cached choice, as Servo builds its verifier.
    let built = of(&method, ServoEvent::Verifier);
    assert_eq!(
        built
            .iter()
            .map(|s| s.meta.roots_cached)
            .collect::<Vec<_>>(),
        [false, true, false, false]
    );
    let staged = of(&method, ServoEvent::Verification);
    assert!(
        staged
            .iter()
            .all(|s| s.stage(Stage::ChainCreation).is_some()),
        "the method's own stages"
    );

    // Servo's pref wins over the environment variable.
    let dir = tempfile::tempdir().unwrap();
    let (out, by_pref) = run_child(
        dir.path(),
        &[
            ("CERTBENCH_METHOD", "rustlsserial"),
            ("CERTBENCH_CHILD_PREF_METHOD", "webpki"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!by_pref.is_empty() && by_pref.iter().all(|s| s.method == "webpki"));

    let dir = tempfile::tempdir().unwrap();
    let (out, mozilla) = run_child(
        dir.path(),
        &[
            ("CERTBENCH_METHOD", "webpki"),
            ("CERTBENCH_TRUST", "mozilla"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = webpki_root_certs::TLS_SERVER_ROOT_CERTS.len() + 1;
    let roots = roots_by_choice(&mozilla);
    assert_eq!(
        roots[0].1,
        format!("mozilla ({})", n - 1),
        "no overrides on the cached choice"
    );
    for (_, roots) in &roots[1..] {
        assert_eq!(roots, &format!("mozilla+overrides ({n})"));
    }
}

/// The loop of `docs/servo.md` step 4, as written: every method it names either records
/// samples under its own name or is refused at start with nothing written.
#[test]
fn the_documented_loop_records_no_row_under_a_wrong_name() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/servo.md")).unwrap();
    let line = (doc.lines())
        .find_map(|l| l.trim().strip_prefix("for method in "))
        .expect("docs/servo.md has the loop");
    let methods: Vec<&str> = line.trim_end_matches("; do").split_whitespace().collect();
    assert!(
        methods.contains(&"servo") && methods.len() > 2,
        "{methods:?}"
    );
    for method in methods.iter().copied().chain(["nosuch"]) {
        let dir = tempfile::tempdir().unwrap();
        let (out, samples) = run_child(dir.path(), &[("CERTBENCH_METHOD", method)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            assert!(!samples.is_empty(), "{method}: {stderr}");
            assert!(samples.iter().all(|s| s.method == method), "{method}");
        } else {
            assert_eq!(out.status.code(), Some(2), "{method}: {stderr}");
            assert!(stderr.contains("nothing recorded"), "{method}: {stderr}");
            assert!(samples.is_empty(), "{method}: a refused run writes nothing");
        }
        if method == "nosuch" {
            assert!(
                stderr.contains(
                    "CERTBENCH_METHOD (or pref certbench_method) `nosuch`: unknown method `nosuch`"
                ),
                "{stderr}"
            );
        } else {
            assert!(
                out.status.success(),
                "{method} is in the documented loop: {stderr}"
            );
        }
    }
}

/// docs/servo.md's workflow (step 4) as written: the page of every site (as many frames per
/// site as the page has), one process per method and round, with a child process standing
/// in for servoshell, all appending to one file; then `certbench report` on it has, per
/// method, cold and warm rows, full and resumed ones apart, `connect` apart from the TLS
/// `handshake`, and a page load with its time — in markdown, JSON, CSV and HTML.
#[test]
fn the_documented_workflow_gives_cold_and_warm_rows_in_every_format() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/servo.md")).unwrap();
    let line = |prefix: &str| {
        (doc.lines())
            .find_map(|l| l.trim().strip_prefix(prefix))
            .unwrap_or_else(|| panic!("docs/servo.md has `{prefix}`"))
    };
    let methods: Vec<&str> = line("for method in ")
        .trim_end_matches("; do")
        .split_whitespace()
        .collect();
    let rounds = line("for round in ")
        .trim_end_matches("; do")
        .split_whitespace()
        .count();
    let frames_per_site = line("echo \"<iframe")
        .matches("https://$site:8443/")
        .count();
    let page = line("-o /tmp/shot.png ").trim_matches('"');
    assert!(
        frames_per_site >= 2 && page.starts_with("http://127.0.0.1:"),
        "{page}"
    );
    // `$(grep -v '^#' sites.txt)`: the words of the lines that are not comments.
    let sites_txt =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sites.txt")).unwrap();
    let sites: Vec<&str> = (sites_txt.lines())
        .filter(|l| !l.starts_with('#'))
        .flat_map(str::split_whitespace)
        .collect();
    let frames: Vec<String> = (sites.iter())
        .flat_map(|s| std::iter::repeat_n(format!("https://{s}:8443/"), frames_per_site))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..rounds {
        for method in &methods {
            let vars = [
                ("CERTBENCH_METHOD", *method),
                ("CERTBENCH_CHILD_PAGE", page),
                ("CERTBENCH_CHILD_FRAMES", &frames.join(" ")),
            ];
            let (out, _) = run_child(dir.path(), &vars);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{method}: {stderr}");
        }
    }
    let file = dir.path().join("servo.jsonl");
    let report = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_certbench"))
            .args(["report", file.to_str().unwrap(), "--quiet"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = report(&[]);
    for method in &methods {
        let group = format!("| {method} · platform-extra-roots · ");
        for kind in ["| cold | full |", "| warm | full |", "| warm | resumed |"] {
            let row = (text.lines())
                .find(|l| l.starts_with(&group) && l.contains(kind))
                .unwrap_or_else(|| panic!("{method} {kind} in {text}"));
            // connect and the TLS handshake, each measured.
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            assert!(cells[5] != "–" && cells[6] != "–", "{row}");
        }
        let first = (text.lines())
            .find(|l| l.starts_with(&group) && l.contains("| first of process |"))
            .unwrap_or_else(|| panic!("{method}: a page load in {text}"));
        assert!(
            first.contains(&format!("| {rounds} | first of process |")),
            "{first}"
        );
    }
    // The same figures in JSON, CSV and HTML.
    let json: serde_json::Value = serde_json::from_str(&report(&["--format", "json"])).unwrap();
    let servo = json["servo"]
        .as_array()
        .expect("a servo section in the JSON report");
    assert_eq!(servo.len(), methods.len());
    assert!(
        servo
            .iter()
            .all(|g| g["connections"][0]["connect"].is_number())
    );
    assert!(servo.iter().all(|g| g["pages"][0]["page_load"].is_number()));
    // The first-connection tax: each process's first verification and TLS handshake against
    // its later ones, and its first store build.
    for g in servo {
        let first = &g["first"];
        assert_eq!(first["processes"], rounds, "{first}");
        assert!(first["first_build"].is_number(), "{first}");
        assert!(first["verification_extra"].is_number(), "{first}");
        assert!(first["handshake_extra"].is_number(), "{first}");
    }
    let csv = report(&["--format", "csv"]);
    assert!(csv.contains(",warm,resumed,handshake,"), "{csv}");
    assert!(
        csv.contains(",first of process,servo-page,share-of-page-load,"),
        "{csv}"
    );
    let html = dir.path().join("report.html");
    report(&["--html", html.to_str().unwrap()]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<h2>Servo: verification per connection and per page load</h2>"));
    if let Some(browser) = crate::report::chromium() {
        let dom = crate::report::headless(
            browser,
            &dir.path().join("profile"),
            &["--dump-dom".into()],
            &html,
        );
        let at = (dom.find("<h2>Servo: verification per connection and per page load</h2>"))
            .expect("the Servo section rendered");
        let section = &dom[at..];
        assert!(section.matches("<table>").count() >= 4, "its four tables");
        assert!(section.contains("<td>resumed</td>"), "resumed rows apart");
    }
}

/// `CERTBENCH_CT` and `CERTBENCH_REVOCATION` (Servo's prefs `certbench_ct`,
/// `certbench_revocation`) turn on a method's CT and revocation checks inside Servo: its
/// verifications carry the `ct` and `revocation` stages and their configuration names the
/// log list and the data; with Servo's own verifier they are refused at start.
#[test]
fn ct_and_revocation_by_pref_run_inside_servos_verification() {
    let logs = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/ct-logs/log_list.json");
    let data = tempfile::tempdir().unwrap();
    let revocation = format!("crl:{}", data.path().display());
    let dir = tempfile::tempdir().unwrap();
    let (out, samples) = run_child(
        dir.path(),
        &[
            ("CERTBENCH_METHOD", "rustlsparallel"),
            ("CERTBENCH_CT", logs),
            ("CERTBENCH_REVOCATION", &revocation),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let verifications = of(&samples, ServoEvent::Verification);
    assert!(!verifications.is_empty());
    for v in &verifications {
        assert!(v.config.ct.is_some(), "the log list named: {v:?}");
        assert!(v.config.revocation.is_some(), "the data named: {v:?}");
        // Where the path verifies (the choices that trust the override CA), then CT: the
        // test leaf has no SCT, so the CT policy rejects it (Servo's exception list accepts
        // it).
        if meta(v).choice != Some(ServoChoice::PlatformCached) {
            assert!(v.stage(Stage::Ct).is_some(), "a ct stage: {v:?}");
            assert!(matches!(v.verdict, Verdict::Rejected(_)), "{v:?}");
        }
    }
    // Revocation alone: the check runs after the path (no CRL for the test CA in the data:
    // nothing found, the leaf stands).
    let dir = tempfile::tempdir().unwrap();
    let (out, samples) = run_child(
        dir.path(),
        &[
            ("CERTBENCH_METHOD", "rustlsparallel"),
            ("CERTBENCH_REVOCATION", &revocation),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for v in of(&samples, ServoEvent::Verification) {
        if meta(v).choice != Some(ServoChoice::PlatformCached) {
            assert!(
                v.stage(Stage::Revocation).is_some(),
                "a revocation stage: {v:?}"
            );
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let (out, samples) = run_child(dir.path(), &[("CERTBENCH_CT", logs)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(samples.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Servo's own verifier checks neither"));
}
