//! The calls the Servo patch makes, each run in a process of its own (the environment is
//! read once per process): the test binary runs itself with the ignored test
//! `servo_child::child` and the settings of the run, and checks the samples it wrote:
//! trust set, stages, connection and page, cold and warm marks, exceptions, one store build
//! per process; `certbench report` on them; and the loop of `docs/servo.md`.

use std::path::Path;
use std::process::{Command, Output};

use certbench_schema::servo::{ServoChoice, ServoEvent, ServoException, ServoMeta};
use certbench_schema::{Sample, Stage, Verdict};
pub(crate) fn run_child(dir: &Path, vars: &[(&str, &str)]) -> (Output, Vec<Sample>) {
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

pub(crate) fn meta(s: &Sample) -> &ServoMeta {
    s.meta
        .servo
        .as_ref()
        .unwrap_or_else(|| panic!("no servo meta: {s:?}"))
}

pub(crate) fn of(samples: &[Sample], event: ServoEvent) -> Vec<&Sample> {
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

    let report = crate::common::certbench_command()
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
