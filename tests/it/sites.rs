//! The sites file, line by line: 40 ordinary, odd and malformed lines, each either measured
//! as the expected (host, port, path) or reported with its line number and a clear reason,
//! the rest of the list still read; and the file-level failures from the command line.

use certbench::sites::parse_sites;

/// (line, expected): `Ok((host, port, path))`, `Err(part of the message)`, or `Skip` for
/// lines that are not sites and not errors (blank, comment).
enum Want {
    Site(&'static str, u16, &'static str),
    Error(&'static str),
    Skip,
}
use Want::*;

fn cases() -> Vec<(String, Want)> {
    let long_label = format!("{}.example", "a".repeat(64));
    let long_name = format!("{}example", "abcdefghi.".repeat(26));
    vec![
        ("".into(), Skip),
        ("   \t  ".into(), Skip),
        ("# a comment".into(), Skip),
        ("   # an indented comment".into(), Skip),
        ("example.com".into(), Site("example.com", 443, "/")),
        ("  example.org  ".into(), Site("example.org", 443, "/")),
        (
            "example.net # trailing comment".into(),
            Site("example.net", 443, "/"),
        ),
        ("EXAMPLE.EDU".into(), Site("example.edu", 443, "/")),
        ("servo.org.".into(), Site("servo.org", 443, "/")),
        ("github.com:8443".into(), Site("github.com", 8443, "/")),
        (
            "https://rust-lang.org".into(),
            Site("rust-lang.org", 443, "/"),
        ),
        ("HTTPS://Docs.rs/".into(), Site("docs.rs", 443, "/")),
        (
            "https://en.wikipedia.org/wiki/TLS".into(),
            Site("en.wikipedia.org", 443, "/wiki/TLS"),
        ),
        (
            "https://duckduckgo.com/?q=tls&ia=web".into(),
            Site("duckduckgo.com", 443, "/?q=tls&ia=web"),
        ),
        (
            "https://news.ycombinator.com/item?id=1#top".into(),
            Site("news.ycombinator.com", 443, "/item?id=1"),
        ),
        (
            "https://a.example:65535/x".into(),
            Site("a.example", 65535, "/x"),
        ),
        ("127.0.0.1".into(), Site("127.0.0.1", 443, "/")),
        ("127.0.0.1:4433".into(), Site("127.0.0.1", 4433, "/")),
        ("[::1]".into(), Site("::1", 443, "/")),
        ("[::1]:4433".into(), Site("::1", 4433, "/")),
        ("2001:db8::1".into(), Site("2001:db8::1", 443, "/")),
        (
            "bücher.example".into(),
            Site("xn--bcher-kva.example", 443, "/"),
        ),
        (
            "https://münchen.example/straße".into(),
            Site("xn--mnchen-3ya.example", 443, "/stra%C3%9Fe"),
        ),
        (
            "_dmarc.example.com".into(),
            Site("_dmarc.example.com", 443, "/"),
        ),
        (
            "http://plain.example".into(),
            Error("scheme `http` is not https"),
        ),
        (
            "ftp://files.example".into(),
            Error("scheme `ftp` is not https"),
        ),
        (
            "wss://socket.example".into(),
            Error("scheme `wss` is not https"),
        ),
        ("example.com:0".into(), Error("port 0")),
        (
            "example.com:70000".into(),
            Error("not a host, host:port or URL"),
        ),
        (
            "example.com:-1".into(),
            Error("not a host, host:port or URL"),
        ),
        (
            "example.com:https".into(),
            Error("not a host, host:port or URL"),
        ),
        (
            "bad host name".into(),
            Error("not a host, host:port or URL"),
        ),
        ("*.example.com".into(), Error("not a valid DNS name")),
        ("a..example".into(), Error("empty label")),
        (long_label, Error("octets long (at most 63)")),
        (long_name, Error("octets long (at most 253)")),
        (
            "https://user:secret@example.com/".into(),
            Error("user name or password"),
        ),
        (
            "exa\0mple.com".into(),
            Error("control character U+0000 at column 4"),
        ),
        (
            "exam\u{1b}[31mple.com".into(),
            Error("control character U+001B at column 5"),
        ),
        ("https://".into(), Error("not a host, host:port or URL")),
        ("example.com".into(), Error("duplicate of line 5")),
        ("https://example.com/".into(), Error("duplicate of line 5")),
        (
            "https://example.com/other".into(),
            Site("example.com", 443, "/other"),
        ),
    ]
}

#[test]
fn every_odd_line_is_a_site_or_a_reason_naming_its_line() {
    let cases = cases();
    assert!(cases.len() >= 40);
    let text: String = cases.iter().map(|(l, _)| format!("{l}\n")).collect();
    let (sites, errors) = parse_sites(&text);
    let mut n_sites = 0;
    let mut n_errors = 0;
    for (i, (line, want)) in cases.iter().enumerate() {
        let no = i + 1;
        let site = sites.iter().find(|s| s.line == no);
        let error = errors.iter().find(|e| e.line == no);
        match want {
            Skip => assert!(site.is_none() && error.is_none(), "line {no} {line:?}"),
            Site(host, port, path) => {
                assert!(error.is_none(), "line {no} {line:?}: {error:?}");
                let s = site.unwrap_or_else(|| panic!("line {no} {line:?} not read"));
                assert_eq!(
                    (s.host.as_str(), s.port, s.path.as_str()),
                    (*host, *port, *path),
                    "line {no} {line:?}"
                );
                n_sites += 1;
            }
            Error(msg) => {
                assert!(site.is_none(), "line {no} {line:?} read as {site:?}");
                let e = error.unwrap_or_else(|| panic!("line {no} {line:?}: no error"));
                let shown = e.to_string();
                assert!(shown.starts_with(&format!("line {no}: ")), "{shown}");
                assert!(shown.contains(msg), "line {no}: {shown}");
                n_errors += 1;
            }
        }
    }
    assert_eq!(sites.len(), n_sites, "no extra sites");
    assert_eq!(errors.len(), n_errors, "no extra errors");
}

fn certbench(args: &[&str]) -> std::process::Output {
    crate::common::certbench_command()
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_missing_sites_file_exits_1_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-sites.txt");
    let out = certbench(&["--sites", missing.to_str().unwrap(), "--mirror", "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no-such-sites.txt"), "{err}");
    assert!(err.contains("No such file"), "{err}");

    // A line that is not UTF-8 is a bad line like the others (driver_cli shows it measured
    // around); a file of nothing else has no site to measure, and says which line was bad.
    let latin1 = dir.path().join("latin1.txt");
    std::fs::write(&latin1, b"# sites\nb\xfccher.example\n").unwrap();
    let out = certbench(&["--sites", latin1.to_str().unwrap(), "--mirror", "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("latin1.txt: line 2: not UTF-8"), "{err}");
    assert!(err.contains("no site to measure"), "{err}");

    let empty = dir.path().join("only-comments.txt");
    std::fs::write(&empty, "# nothing here\n\n").unwrap();
    let out = certbench(&["--sites", empty.to_str().unwrap(), "--mirror", "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no site to measure"), "{err}");
}
