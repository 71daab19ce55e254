//! `--revocation` in the driver on the loopback mirror: the `revocation` stage of every method
//! with a mechanism on the 13 sites of sites.txt and revoked.badssl.com's clone, which chrome,
//! firefox, gnutls and the rustls methods reject as revoked; the staple the mirror serves
//! reaches the verifier over both transports (`ocsp`); the mirror's CRLs revoke the clone
//! (`crl`). Test-scale data, one run, loopback only.

use certbench_schema::io::read_jsonl;
use certbench_schema::{Sample, Stage, Verdict};

const REVOKED: &str = "revoked.badssl.com";
/// The methods that check revocation with the mechanism `--revocation` names.
const RUSTLS: &[&str] = &["rustlsserial", "rustlsparallel", "webpki", "platform"];
/// The browsers, each with its own mechanism.
const BROWSERS: &[&str] = &["chrome", "firefox", "gnutls"];

/// The 13 sites of sites.txt.
fn sites() -> Vec<String> {
    let text = std::fs::read_to_string("sites.txt").unwrap();
    let sites: Vec<String> = (text.lines())
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    assert_eq!(sites.len(), 13, "{sites:?}");
    sites
}

fn available(names: &[&str]) -> Vec<String> {
    let all = crate::common::all_methods();
    (names.iter())
        .filter(|m| all.iter().any(|a| a.name() == **m))
        .map(|m| (*m).to_owned())
        .collect()
}

/// The driver on the mirror (the test binary's, its cache) over `transport` with
/// `--revocation mechanism` on the 13 sites and revoked.badssl.com: its samples.
fn drive(mechanism: &str, transport: &str, methods: &[String]) -> Vec<Sample> {
    // One run at a time: two processes making the same revocation data into its cache at once
    // would race on its folder.
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let set = &crate::common::mirror().0;
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("sites.txt");
    let mut hosts = sites();
    hosts.push(REVOKED.to_owned());
    std::fs::write(&list, hosts.join("\n")).unwrap();
    let raw = dir.path().join("s.jsonl");
    let out = crate::common::certbench_command()
        .args(["--sites", list.to_str().unwrap(), "--mirror", "--quiet"])
        .args(["--mirror-cache", set.dir.to_str().unwrap()])
        .args(["--method", &methods.join(","), "--transport", transport])
        .args(["--revocation", mechanism, "--revocation-scale", "test"])
        .args([
            "--runs",
            "1",
            "--warmup",
            "0",
            "--raw",
            raw.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // Exit 3 (partial): the revoked clone's rejections.
    assert_eq!(out.status.code(), Some(3), "{err}");
    let (samples, errors) = read_jsonl(std::io::BufReader::new(std::fs::File::open(&raw).unwrap()));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(samples.len(), hosts.len() * methods.len(), "{err}");
    samples
}

/// Every sample of a method with a mechanism has the stage, its outcome and its
/// configuration; the clone of revoked.badssl.com is rejected as revoked by each of
/// `revoking`, every other site accepted. Returns the revoked clone's samples.
fn check(samples: &[Sample], revoking: &[String]) -> Vec<Sample> {
    for site in sites().iter().chain([&REVOKED.to_owned()]) {
        assert!(
            samples.iter().any(|s| &s.site == site),
            "no sample of {site}"
        );
    }
    for s in samples {
        let what = format!("{} {}", s.method, s.site);
        let checks = RUSTLS.contains(&s.method.as_str()) || BROWSERS.contains(&s.method.as_str());
        if !checks {
            assert!(
                s.meta.revocation.is_none() && s.config.revocation.is_none(),
                "{what}"
            );
            continue;
        }
        let r = (s.meta.revocation.as_ref()).unwrap_or_else(|| panic!("{what}: no revocation"));
        assert!(s.stage(Stage::Revocation).is_some(), "{what}: {s:?}");
        assert!(s.config.revocation.is_some(), "{what}");
        if s.site == REVOKED && revoking.contains(&s.method) {
            assert_eq!(r.status.name(), "revoked", "{what}: {r:?}");
            match &s.verdict {
                Verdict::Rejected(why) => assert!(why.contains("revoked"), "{what}: {why}"),
                other => panic!("{what}: {other:?}"),
            }
        } else if s.site != REVOKED {
            assert_eq!(s.verdict, Verdict::Ok, "{what}");
            assert_ne!(r.status.name(), "revoked", "{what}");
        }
    }
    // The data's load is start-up, apart: no sample pays it, none says it was cold.
    for s in samples {
        assert!(
            s.stage(Stage::RevocationLoad).is_none(),
            "{} {}",
            s.method,
            s.site
        );
        assert!(
            s.meta.revocation.as_ref().is_none_or(|r| !r.cold),
            "{} {}",
            s.method,
            s.site
        );
    }
    (samples.iter())
        .filter(|s| s.site == REVOKED)
        .cloned()
        .collect()
}

/// `--revocation crlite` on the mirror: chrome (its CRLSet), firefox and the rustls methods
/// (CRLite) and gnutls (the mirror's staple) reject revoked.badssl.com's clone; every other
/// site is accepted, each sample with its `revocation` stage.
#[test]
fn crlite_on_the_mirror_shows_the_stage_for_the_13_sites_and_revokes_the_clone() {
    let mut names = RUSTLS.to_vec();
    names.extend(BROWSERS);
    names.push("openssl");
    let methods = available(&names);
    let samples = drive("crlite", "openssl", &methods);
    let revoking: Vec<String> = methods
        .iter()
        .filter(|m| *m != "openssl")
        .cloned()
        .collect();
    let revoked = check(&samples, &revoking);
    for s in &revoked {
        let mechanism = s.meta.revocation.as_ref().map(|r| r.mechanism.as_str());
        let want = match s.method.as_str() {
            "chrome" => Some("crlset"),
            "gnutls" => Some("ocsp"),
            "openssl" => None,
            _ => Some("crlite"),
        };
        assert_eq!(mechanism, want, "{}", s.method);
    }
}

/// `--revocation ocsp`: the staple from the handshake is what the rustls methods and gnutls
/// check, over both transports (rustls' `ocsp_response`; OpenSSL's status_request in the
/// hook): the clone's revoked staple rejects it, the others' good staples accept.
#[test]
fn ocsp_on_the_mirror_checks_the_staple_from_the_handshake_over_both_transports() {
    let mut names = RUSTLS.to_vec();
    names.push("gnutls");
    let methods = available(&names);
    for transport in ["openssl", "rustls"] {
        let samples = drive("ocsp", transport, &methods);
        check(&samples, &methods);
        for s in &samples {
            let r = s.meta.revocation.as_ref().unwrap();
            assert_eq!(r.mechanism, "ocsp", "{transport} {} {}", s.method, s.site);
            assert!(
                r.data_bytes > 0,
                "{transport} {} {}: no staple reached the verifier: {r:?}",
                s.method,
                s.site
            );
        }
    }
}

/// `--revocation crl`: the mirror's CRLs (one per CA, ~2 000 entries each) list the clone of
/// revoked.badssl.com, which the rustls methods reject; chrome and firefox keep their own.
#[test]
fn crl_on_the_mirror_revokes_the_clone_from_its_cas_crl() {
    let set = &crate::common::mirror().0;
    assert!(!set.crls.is_empty());
    let methods = available(RUSTLS);
    let samples = drive("crl", "openssl", &methods);
    let revoked = check(&samples, &methods);
    for s in &revoked {
        let r = s.meta.revocation.as_ref().unwrap();
        assert_eq!(r.mechanism, "crl", "{}", s.method);
        assert!(r.data_bytes > 20_000, "{}: {r:?}", s.method);
    }
}
