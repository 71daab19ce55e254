//! A patched Servo as docs/servo.md runs it: the documented workflow (several origins per
//! servoshell process, a child process standing in for servoshell) and the report it gives in
//! every format; CT and revocation turned on by pref. The child is `servo_child::child`, run
//! through `servo_api::run_child`.

use certbench_schema::servo::{ServoChoice, ServoEvent};
use certbench_schema::{Stage, Verdict};

use crate::servo_api::{meta, of, run_child};

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
        let out = crate::common::certbench_command()
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
