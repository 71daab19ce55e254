//! `certbench report`: the HTML report from the driver's mirror run, a patched Servo's
//! samples and `certbench handshake` results (fixtures), malformed lines skipped with their
//! line numbers, the A/B compare from the command line, handshake results charted and
//! tabled (and a live handshake run reported back), a live `verify --revocation` run's cold and
//! warm table (markdown, JSON, HTML), and the pages opened in headless Chromium (charts
//! rendered, screenshot not blank, the revocation section there).
//!
//! Chromium: `.ci/run` installs Debian's `chromium`. Without it the browser test says so and
//! passes, unless `CI` is set.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn certbench(args: &[&str]) -> Output {
    crate::common::certbench_command()
        .args(args)
        .output()
        .unwrap()
}

/// The fixtures plus a file with two malformed lines between good ones.
fn inputs(dir: &Path) -> Vec<String> {
    let bad = dir.join("with-bad-lines.jsonl");
    let servo = std::fs::read_to_string(fixture("servo.jsonl")).unwrap();
    let mut lines: Vec<&str> = servo.lines().take(4).collect();
    lines.insert(1, "{not json");
    lines.insert(3, r#"{"schema":1,"source":"servo"}"#);
    std::fs::write(&bad, lines.join("\n")).unwrap();
    vec![
        fixture("mirror-run.jsonl").display().to_string(),
        fixture("servo.jsonl").display().to_string(),
        bad.display().to_string(),
        fixture("handshakes.json").display().to_string(),
        fixture("handshake-memory.json").display().to_string(),
        fixture("pages.json").display().to_string(),
        fixture("bulk.json").display().to_string(),
    ]
}

fn html_report(dir: &Path) -> (PathBuf, Output) {
    let html = dir.join("report.html");
    let mut args: Vec<String> = vec!["report".into()];
    args.extend(inputs(dir));
    args.extend(["--html".into(), html.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    (html.clone(), certbench(&args))
}

#[test]
fn the_html_report_is_one_self_contained_file_with_charts_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let (html, out) = html_report(dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Malformed lines: named with their numbers, skipped, exit 3, report still made.
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("line 2:"), "{stderr}");
    assert!(stderr.contains("line 4:"), "{stderr}");
    let page = std::fs::read_to_string(&html).unwrap();
    // Three kinds of chart: per-site bars, stacked stages, distributions (≥ 1 box plot).
    assert!(page.matches("<svg").count() >= 3, "charts");
    assert!(page.contains("total-verification per site and method"));
    assert!(page.contains("Stages per method"));
    assert!(page.contains("distribution of total-verification"));
    // Tables below the charts, both sources merged: driver methods and Servo's rustls one.
    assert!(page.find("<h2>Charts</h2>") < page.find("<h2>Tables</h2>"));
    assert!(page.contains("<h3>openssl [over openssl"), "{page}");
    assert!(page.contains("<h3>rustlsparallel [over rustls"), "{page}");
    assert!(page.contains("(startup)"));
    // The run header: machine, versions, command line of the run that has one.
    assert!(page.contains("<dt>machine</dt>"));
    assert!(page.contains("rustls-webpki 0.103"));
    assert!(page.contains("--mirror"));
    assert!(page.contains("No run header beside this file"));
    // The answer's last line: the other hook's command, as the run wrote it into its header.
    assert!(
        page.contains("The other hook: `cargo run --release -- --sites sites.txt --mirror"),
        "{page}"
    );
    // The handshake results after the samples' tables, charted and tabled.
    assert!(page.find("<h2>Tables</h2>") < page.find("<h2>Handshakes</h2>"));
    for chart in [
        "Handshakes per second, per client stack",
        "Latency of one handshake: p50, p90, p99",
        "CPU time per handshake",
        "Resident memory per idle connection",
    ] {
        assert!(page.contains(chart), "{chart}");
    }
    // Then the page loads (cold against warm) and the bulk transfers, charted and tabled.
    assert!(page.find("<h2>Handshakes</h2>") < page.find("<h2>Page loads</h2>"));
    assert!(page.find("<h2>Page loads</h2>") < page.find("<h2>Bulk transfer</h2>"));
    for chart in [
        "Verification time per page load, cold and warm",
        "Verifications run per page load, cold and warm",
        "Bulk transfer, MB/s",
    ] {
        assert!(page.contains(chart), "{chart}");
    }
    assert!(page.matches("<svg").count() >= 3 + 4 + 3, "charts");
    // Self-contained: nothing to fetch at view time (the SVG namespace is not a fetch).
    let fetches = page
        .replace("http://www.w3.org/2000/svg", "")
        .replace("http://www.w3.org/1999/xlink", "");
    for needle in ["http://", "https://", "<script", "<link", "<img", "url("] {
        assert!(!fetches.contains(needle), "found {needle}");
    }
}

/// A live `certbench verify --revocation crl` run (rustlsserial with CRLs, chrome with its
/// CRLSet; the data at test scale) and its report, markdown and `--html`: (markdown, page).
fn revocation_report(dir: &Path) -> (String, PathBuf) {
    let raw = dir.join("revocation.jsonl");
    let (raw_s, html) = (raw.display().to_string(), dir.join("revocation.html"));
    let out = certbench(&[
        "verify",
        "--method",
        "rustlsserial,chrome",
        "--revocation",
        "crl",
        "--revocation-scale",
        "test",
        "--runs",
        "2",
        "--warmup",
        "1",
        "--quiet",
        "--raw",
        &raw_s,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html_s = html.display().to_string();
    let out = certbench(&["report", &raw_s, "--html", &html_s]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}");
    (text, html)
}

#[test]
fn a_revocation_run_is_reported_cold_and_warm_in_markdown_and_html() {
    let dir = tempfile::tempdir().unwrap();
    let (text, html) = revocation_report(dir.path());
    // The seed tables carry the per-connection stage; the cold/warm table both stages.
    let seed_header = |l: &&str| l.starts_with("| site") && l.contains(" revocation |");
    assert_eq!(text.lines().filter(seed_header).count(), 2, "{text}");
    let section = &text[text.find("### Revocation, cold and warm").expect(&text)..];
    assert!(
        section.contains("revocation-load (cold, once)"),
        "{section}"
    );
    assert!(section.contains("| rustlsserial | crl: "), "{section}");
    assert!(section.contains("| chrome | crlset: "), "{section}");
    // The corpus' issuers have no CRL: the answer says so rather than price finding none.
    assert!(
        section.contains("CRLs as rustls-webpki checks them: no check on these chains had data"),
        "{section}"
    );
    assert!(section.contains("What each browser pays per connection with revocation"));
    // The comparison no longer says that no method checks revocation.
    assert!(!text.contains("No method here checks revocation"), "{text}");
    assert!(!text.contains("or revocation (CRLSets"), "{text}");
    // The HTML report: the section after the tables, its chart, table and answer.
    let page = std::fs::read_to_string(&html).unwrap();
    let at = page
        .find("<h2>Revocation</h2>")
        .expect("revocation section");
    assert!(page.find("<h2>Tables</h2>").unwrap() < at);
    let section = &page[at..];
    assert!(section.contains("with and without revocation"), "chart");
    assert!(section.contains("<th>revocation-load (cold, once)</th>"));
    assert!(
        section.contains("<td>rustlsserial</td><td>crl: "),
        "{section}"
    );
    assert!(section.contains("What each browser pays per connection with revocation"));
    assert!(section.contains("no check on these chains had data"));
    // The markdown table's JSON twin: `report --format json` carries the rows.
    let raw = dir.path().join("revocation.jsonl");
    let out = certbench(&["report", raw.to_str().unwrap(), "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["revocation"].as_array().expect("revocation rows");
    // The data's load is start-up, measured apart: no row carries a per-sample load.
    assert!(rows.iter().any(|r| r["mechanism"] == "crl"));
    assert!(rows.iter().all(|r| r["load"].is_null()), "{rows:?}");
}

#[test]
fn a_b_compare_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let base = fixture("mirror-run.jsonl");
    // The same run twice: nothing changes.
    let out = certbench(&[
        "report",
        "--baseline",
        base.to_str().unwrap(),
        "--candidate",
        base.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("0 slower, 0 faster"), "{text}");
    // Every verification twice as slow in the candidate: slower, wherever n allows.
    let slow: String = std::fs::read_to_string(&base)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            for (_, ns) in v["stages"].as_object_mut().unwrap().iter_mut() {
                *ns = (ns.as_u64().unwrap() * 2).into();
            }
            v.to_string() + "\n"
        })
        .collect();
    let cand = dir.path().join("slow.jsonl");
    std::fs::write(&cand, slow).unwrap();
    let out = certbench(&[
        "report",
        "--baseline",
        base.to_str().unwrap(),
        "--candidate",
        cand.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let verification: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| r["stage"] == "total-verification")
        .collect();
    assert_eq!(verification.len(), 13 * 3, "13 sites × 3 methods");
    for r in &verification {
        assert_eq!(r["change"], "slower", "{r}");
        assert!((r["ratio"].as_f64().unwrap() - 2.0).abs() < 1e-9);
    }
}

fn handshake_fixture() -> Vec<serde_json::Value> {
    serde_json::from_str(&std::fs::read_to_string(fixture("handshakes.json")).unwrap()).unwrap()
}

#[test]
fn handshake_results_are_tabled_with_the_ratio_of_each_configuration() {
    let runs = handshake_fixture();
    let out = certbench(&[
        "report",
        fixture("handshakes.json").to_str().unwrap(),
        fixture("handshake-memory.json").to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("### Handshakes per second"), "{text}");
    assert!(text.contains("### Memory per idle connection"), "{text}");
    // Every configuration's rustls ÷ OpenSSL ratio, from the fixture's own figures, on the
    // configuration's row; the fixture mixes 1 and 16 clients, so rows name their count.
    let mut checked = 0;
    for o in runs.iter().filter(|r| r["client"] == "openssl") {
        let Some(r) = runs.iter().find(|r| {
            r["client"] == "rustls"
                && ["key", "tls", "resumption", "clients"]
                    .iter()
                    .all(|k| r[k] == o[k])
        }) else {
            continue;
        };
        let ratio = r["per_second"].as_f64().unwrap() / o["per_second"].as_f64().unwrap();
        let clients = format!("{} client(s)", o["clients"]);
        let kind = if o["resumption"] == "none" {
            "full".to_owned()
        } else {
            format!("resumed ({})", o["resumption"].as_str().unwrap())
        };
        let row = text
            .lines()
            .find(|l| {
                l.contains(o["key"].as_str().unwrap())
                    && l.contains(&format!("TLS {} {kind},", o["tls"].as_str().unwrap()))
                    && l.contains(&clients)
                    && l.contains(&format!("{}", o["per_second"].as_f64().unwrap().round()))
            })
            .unwrap_or_else(|| panic!("no row for {o}\n{text}"));
        assert!(row.contains(&format!("×{ratio:.2}")), "{row}");
        checked += 1;
    }
    assert!(checked >= 4, "{checked} configurations with both stacks");

    // JSON and CSV: one document each, the runs themselves.
    let out = certbench(&[
        "report",
        fixture("handshakes.json").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let again = crate::common::records(&String::from_utf8_lossy(&out.stdout), "handshake");
    assert_eq!(again, runs);
    // Samples and handshake results in one JSON document: refused, with the reason.
    let out = certbench(&[
        "report",
        fixture("handshakes.json").to_str().unwrap(),
        fixture("mirror-run.jsonl").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("make 2 documents"));
    // Throughput and memory results in one CSV: likewise.
    let out = certbench(&[
        "report",
        fixture("handshakes.json").to_str().unwrap(),
        fixture("handshake-memory.json").to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("make 2 documents"));
}

#[test]
fn a_malformed_handshake_file_is_named_and_the_rest_reported() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"[{"client": "openssl", "per_second": "fast"}]"#).unwrap();
    let html = dir.path().join("r.html");
    let out = certbench(&[
        "report",
        bad.to_str().unwrap(),
        fixture("handshakes.json").to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(
            "bad.json: not a readable certbench result file: invalid type: string \"fast\""
        )
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("### Handshakes per second"));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<h2>Handshakes</h2>"));
    assert!(
        !page.contains("<h2>Charts</h2>"),
        "no samples, no sample charts"
    );
}

/// A live run, small: `certbench handshake --output F` writes the results and their run
/// header, and `certbench report F` reads them back as they were.
#[test]
fn a_handshake_run_reports_back_through_certbench_report() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hs.json");
    let out = certbench(&[
        "handshake",
        "--quiet",
        "--handshakes",
        "20",
        "--resumption",
        "none,tickets",
        "--format",
        "json",
        "--output",
        file.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = crate::common::records(&std::fs::read_to_string(&file).unwrap(), "handshake");
    assert_eq!(written.len(), 4, "2 stacks × 2 resumption settings");
    let html = dir.path().join("r.html");
    let out = certbench(&[
        "report",
        file.to_str().unwrap(),
        "--format",
        "json",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let read = crate::common::records(&String::from_utf8_lossy(&out.stdout), "handshake");
    assert_eq!(read, written);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("4 result(s)"));
    assert!(
        page.contains("<dt>machine</dt>"),
        "run header beside the results"
    );
    assert!(page.contains("--resumption none,tickets"));
}

pub(crate) fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is missing in CI (.ci/run installs it)"
        );
        eprintln!("chromium not installed: the browser test did not run");
    }
    found
}

/// Runs headless Chromium with `args` on `page`, killed after 90 s; returns its standard
/// output (through a file: a pipe nobody drains would block a large `--dump-dom`).
pub(crate) fn headless(browser: &str, profile: &Path, args: &[String], page: &Path) -> String {
    let out_path = profile.with_extension("stdout");
    let out_file = std::fs::File::create(&out_path).unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::from(out_file))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            panic!("chromium did not finish in 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    std::fs::read_to_string(&out_path).unwrap()
}

#[test]
fn chromium_renders_the_charts() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (html, _) = html_report(dir.path());
    let profile = dir.path().join("profile");

    // The DOM as the browser built it: the SVG charts are there, with their bars.
    let dom = headless(browser, &profile, &["--dump-dom".into()], &html);
    assert!(
        dom.matches("<svg").count() >= 3,
        "{}",
        &dom[..dom.len().min(500)]
    );
    assert!(dom.matches("<rect").count() > 50, "bars drawn");

    // A screenshot that is not blank: many non-white pixels, several colours.
    let shot = dir.path().join("shot.png");
    headless(
        browser,
        &profile,
        &[
            "--window-size=1280,1600".into(),
            format!("--screenshot={}", shot.display()),
        ],
        &html,
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    assert!(px >= 3, "colour screenshot");
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    let non_white = pixels.iter().filter(|p| p[..3] != [255, 255, 255]).count();
    let colours: std::collections::HashSet<[u8; 3]> =
        pixels.iter().map(|p| [p[0], p[1], p[2]]).collect();
    assert!(
        non_white * 100 > pixels.len() * 3,
        "{non_white} of {} pixels not white",
        pixels.len()
    );
    assert!(colours.len() > 20, "{} colours", colours.len());

    // A `--revocation` run's report: the browser renders its section, chart and table.
    let (_, html) = revocation_report(dir.path());
    let dom = headless(
        browser,
        &dir.path().join("profile2"),
        &["--dump-dom".into()],
        &html,
    );
    let at = dom
        .find("<h2>Revocation</h2>")
        .expect("revocation section rendered");
    let section = &dom[at..];
    assert!(section.contains("<svg"), "its chart");
    assert!(
        section.matches("<rect").count() >= 4,
        "bars with and without revocation"
    );
    assert!(section.contains("revocation-load (cold, once)"));
    assert!(section.contains("crlset: "), "chrome's row");
}
