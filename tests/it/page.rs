//! `certbench page` on the loopback mirror: a 2-page file, 3 loads, each cache policy.

use certbench_analysis::export::Format;
use certbench_analysis::page::PageLoad;

use super::common;

fn page(pages: &str, extra: &[&str]) -> (Vec<PageLoad>, String) {
    let (_, cache) = common::mirror();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pages.txt");
    std::fs::write(&file, pages).unwrap();
    let o = crate::common::certbench_command()
        .args([
            "page", "--mirror", "--loads", "3", "--format", "json", "--quiet",
        ])
        .arg("--pages")
        .arg(&file)
        .arg("--mirror-cache")
        .arg(cache.path().join("m"))
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let loads: Vec<PageLoad> =
        certbench_schema::records::read_list(&o.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (loads, stderr)
}

const PAGES: &str = "# document, then subresource hosts\n\
    www.washingtonpost.com github.com*3 reddit.com cnn.com*2\n\
    stackoverflow.com github.com*2 www.google.com*4\n";

fn of<'a>(loads: &'a [PageLoad], line: usize, method: &str) -> Vec<&'a PageLoad> {
    let mut v: Vec<&PageLoad> = loads
        .iter()
        .filter(|l| l.line == line && l.method == method)
        .collect();
    v.sort_by_key(|l| l.load);
    v
}

#[test]
fn chromes_cache_makes_later_loads_verify_less_and_none_verifies_every_connection() {
    for transport in ["rustls", "openssl"] {
        let (chrome, _) = page(
            PAGES,
            &[
                "--verify-cache",
                "chrome",
                "--transport",
                transport,
                "--method",
                "rustlsserial,openssl",
            ],
        );
        let (none, _) = page(
            PAGES,
            &[
                "--verify-cache",
                "none",
                "--transport",
                transport,
                "--method",
                "rustlsserial,openssl",
            ],
        );
        // 2 pages × 2 methods × 3 loads.
        assert_eq!(chrome.len(), 12, "{transport}");
        assert_eq!(none.len(), 12, "{transport}");
        for method in ["rustlsserial", "openssl"] {
            for (line, connections) in [(2, 7), (3, 7)] {
                let c = of(&chrome, line, method);
                let n = of(&none, line, method);
                assert_eq!(c.len(), 3);
                for l in c.iter().chain(&n) {
                    assert_eq!(l.connections, connections, "{l:?}");
                    assert_eq!(l.failed, 0, "{l:?}");
                    assert_eq!(l.resumed, 0, "{l:?}");
                    // Every full handshake asks for a verification; each is run, a hit or
                    // a coalesced wait.
                    assert_eq!(l.verifications, u64::from(connections), "{l:?}");
                    assert_eq!(l.ran + l.hits + l.coalesced, l.verifications, "{l:?}");
                    assert!(l.verification_ns > 0 && l.connection_ns > l.verification_ns);
                }
                // none: every new connection runs the verifier, every load.
                for l in &n {
                    assert_eq!((l.ran, l.hits, l.coalesced), (u64::from(connections), 0, 0));
                }
                // chrome: the first load runs at most once per distinct (chain, host) …
                assert!(c[0].ran >= 1 && c[0].ran < c[0].verifications, "{:?}", c[0]);
                // … and later loads are answered from the cache: fewer verifications run.
                for l in &c[1..] {
                    assert!(l.hits > 0, "{l:?}");
                    assert!(l.ran < c[0].ran, "{l:?} against {:?}", c[0]);
                    assert!(l.verifier_ns < c[0].verifier_ns, "{l:?}");
                }
            }
            // The first page's cold load runs one verification per distinct host (4); the
            // second page's shares github.com with it, so it runs two (its own hosts).
            assert_eq!(of(&chrome, 2, method)[0].ran, 4, "{transport} {method}");
            assert_eq!(of(&chrome, 3, method)[0].ran, 2, "{transport} {method}");
        }
    }
}

#[test]
fn resumed_connections_verify_nothing_and_bad_lines_are_named() {
    let pages = format!("{PAGES}reddit.com cnn.com*9\nnot a host!\n");
    let (loads, stderr) = page(
        &pages,
        &[
            "--verify-cache",
            "none",
            "--tls-resumption",
            "--method",
            "rustlsserial",
        ],
    );
    assert!(
        stderr.contains("line 4: `cnn.com*9`: 9 connections"),
        "{stderr}"
    );
    assert!(stderr.contains("line 5: "), "{stderr}");
    assert_eq!(loads.len(), 6);
    // The JSON goes back through `certbench report`: the tables, and the HTML section with
    // its two charts (verification time and verifications run, cold against warm).
    let json = serde_json::to_vec(&loads).unwrap();
    let (md, page) = crate::common::report_with_html("pages.json", &json);
    assert!(md.contains("### Cold load against later loads"), "{md}");
    let section = page
        .split("<h2>Page loads</h2>")
        .nth(1)
        .expect("a page-load section");
    assert_eq!(section.matches("<svg").count(), 2, "{section}");
    assert!(section.contains("cold (load 1)") && section.contains("www.washingtonpost.com"));
    for l in &loads {
        assert_eq!(l.connections - l.resumed, l.verifications as u32, "{l:?}");
        if l.load > 1 {
            // Every host was met in load 1: its sessions are offered and taken (TLS 1.3
            // tickets are single-use, so a connection may find none left while its
            // neighbours' new ones are still in flight: most, not always all, resume).
            assert!(2 * l.resumed >= l.connections, "{l:?}");
        }
    }
}

/// The other browsers' verifiers load pages as Servo's do: every connection verified (no
/// cache), none failed, each page load's verification time recorded, over both transports.
#[test]
fn the_browsers_verifiers_load_pages_over_both_transports() {
    let browsers: Vec<&str> = common::all_methods()
        .iter()
        .map(|m| m.name())
        .filter(|n| matches!(*n, "chrome" | "firefox" | "gnutls"))
        .collect();
    let methods = browsers.join(",");
    for transport in ["rustls", "openssl"] {
        let (loads, stderr) = page(
            PAGES,
            &[
                "--verify-cache",
                "none",
                "--transport",
                transport,
                "--method",
                &methods,
            ],
        );
        assert_eq!(loads.len(), 2 * 3 * browsers.len(), "{transport}: {stderr}");
        for l in &loads {
            assert_eq!(l.failed, 0, "{transport}: {l:?}");
            assert_eq!(l.verifications, u64::from(l.connections), "{l:?}");
            assert!(l.verification_ns > 0, "{l:?}");
        }
    }
}

/// [`PAGES`] without cnn.com, whose leaf embeds no SCT (nor does its clone): a CT check
/// rejects it.
const CT_PAGES: &str = "www.washingtonpost.com github.com*3 reddit.com www.google.com*2\n\
    stackoverflow.com github.com*2 www.google.com*4\n";

/// `--ct` with Chrome's and Firefox's caches side by side in one run (`--verify-cache
/// chrome,firefox`), over both transports. Chrome keeps whole results, CT's with them: later
/// loads check no SCT. Firefox keeps no result (every connection verified) but keeps SCT
/// signature results in the browser's log set: `firefox` checks fewer SCT signatures in load
/// 2 than in load 1 (none: it met every chain in load 1); a method without an SCT cache of its
/// own checks as many in every load under Firefox's model.
#[test]
fn with_ct_chromes_result_cache_and_firefoxs_sct_cache_check_fewer_scts_when_warm() {
    let (set, _) = common::mirror();
    let logs = certbench_core::ct::CtLogs::from_v3_json(&set.ct_log_list, "mirror").unwrap();
    let label = format!("{} logs of mirror", logs.logs().len());
    let methods: Vec<&str> = common::all_methods()
        .iter()
        .map(|m| m.name())
        .filter(|n| matches!(*n, "firefox" | "chrome" | "rustlsserial"))
        .collect();
    for transport in ["rustls", "openssl"] {
        let (loads, stderr) = page(
            CT_PAGES,
            &[
                "--ct",
                "--verify-cache",
                "chrome,firefox",
                "--transport",
                transport,
                "--method",
                &methods.join(","),
            ],
        );
        assert_eq!(
            loads.len(),
            2 * methods.len() * 2 * 3,
            "{transport}: {stderr}"
        );
        for l in &loads {
            assert_eq!(l.failed, 0, "{transport}: {l:?}");
            assert_eq!(l.ct.as_deref(), Some(label.as_str()), "{l:?}");
        }
        for &method in &methods {
            for line in [1, 2] {
                let of = |cache: &str| {
                    let mut v: Vec<_> = (loads.iter())
                        .filter(|l| l.line == line && l.method == method && l.verify_cache == cache)
                        .collect();
                    v.sort_by_key(|l| l.load);
                    v
                };
                let what = format!("{transport} {method} line {line}");
                let (chrome, firefox) = (of("chrome"), of("firefox"));
                assert_eq!((chrome.len(), firefox.len()), (3, 3), "{what}");
                // Load 1 is cold for both.
                assert!(chrome[0].sct_checked >= 2, "{what}: {:?}", chrome[0]);
                assert!(firefox[0].sct_checked >= 2, "{what}: {:?}", firefox[0]);
                // Chrome: cached loads check no SCT.
                for l in &chrome[1..] {
                    assert_eq!((l.ran, l.sct_checked), (0, 0), "{what}: {l:?}");
                }
                // Firefox: every verification runs.
                for l in &firefox {
                    assert_eq!(l.ran, l.verifications, "{what}: {l:?}");
                }
                for l in &firefox[1..] {
                    if method == "firefox" {
                        assert!(l.sct_checked < firefox[0].sct_checked, "{what}: {l:?}");
                        assert_eq!(l.sct_checked, 0, "{what}: every SCT met in load 1: {l:?}");
                    } else {
                        // No SCT cache of its own: as with `none`.
                        assert_eq!(l.sct_checked, firefox[0].sct_checked, "{what}: {l:?}");
                    }
                }
            }
        }
        // The tables show the column, and tell the two caches apart.
        let md = certbench_analysis::export::render_pages(&loads, Format::Markdown);
        assert!(md.contains("| SCT signatures checked |"), "{md}");
        assert!(
            md.contains("cache firefox") && md.contains("cache chrome"),
            "{md}"
        );
    }
}

/// `--revocation` with Chrome's and Firefox's caches side by side: each browser loads its own
/// copy of the data once (`revocation-load` in its first load only); Chrome's cache keeps the
/// CRLSet's outcome with the result, so its later loads check no revocation; Firefox's model
/// verifies every chain and checks revocation each time. Both the browser's own mechanism
/// (chrome: its CRLSet) and a rustls method's (`crl`) are named in every load.
#[test]
fn with_revocation_the_data_loads_once_per_browser_and_chromes_cache_skips_the_check() {
    let (loads, stderr) = page(
        CT_PAGES,
        &[
            "--revocation",
            "crl",
            "--revocation-scale",
            "test",
            "--verify-cache",
            "chrome,firefox",
            "--method",
            "chrome,rustlsserial",
        ],
    );
    assert_eq!(loads.len(), 2 * 2 * 2 * 3, "{stderr}");
    for l in &loads {
        assert_eq!(l.failed, 0, "{l:?}");
        let label = l.revocation.as_deref().expect("a revocation check");
        let mechanism = if l.method == "chrome" {
            "crlset: "
        } else {
            "crl: "
        };
        assert!(label.starts_with(mechanism), "{l:?}");
    }
    for method in ["chrome", "rustlsserial"] {
        for cache in ["chrome", "firefox"] {
            let mut of: Vec<&PageLoad> = (loads.iter())
                .filter(|l| l.method == method && l.verify_cache == cache)
                .collect();
            of.sort_by_key(|l| (l.load, l.line));
            let what = format!("{method} under {cache}'s cache");
            // One browser per method and cache: its data loaded in its very first load.
            let paid: Vec<_> = of.iter().filter(|l| l.revocation_load_ns > 0).collect();
            assert_eq!(paid.len(), 1, "{what}: {of:?}");
            assert_eq!(paid[0].load, 1, "{what}");
            for l in &of {
                if cache == "chrome" && l.load > 1 {
                    assert_eq!((l.ran, l.revocation_checked), (0, 0), "{what}: {l:?}");
                } else {
                    assert_eq!(l.revocation_checked, l.ran, "{what}: {l:?}");
                    assert!(l.ran > 0 && l.revocation_ns > 0, "{what}: {l:?}");
                }
            }
        }
    }
    let md = certbench_analysis::export::render_pages(&loads, Format::Markdown);
    assert!(md.contains("revocation (crlset: "), "{md}");
}
