//! The sites file: one site per line, as a host, `host:port`, or an `https://` URL (parsed
//! with `url`); `#` starts a comment; blank lines are ignored. A bad line is reported with its
//! line number and skipped.

use std::path::Path;

use url::{Host, Url};

/// One site to measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// Host name or IP address literal (IPv6 without brackets), lower-case.
    pub host: String,
    /// TCP port (443 unless given).
    pub port: u16,
    /// Request path and query (`/` unless given).
    pub path: String,
    /// 1-based line in the sites file.
    pub line: usize,
}

impl Site {
    /// The site as its samples name it ([`certbench_schema::site_id`]).
    pub fn id(&self) -> String {
        certbench_schema::site_id(&self.host, Some(self.port), Some(&self.path))
    }

    /// The URL authority: the host (an IPv6 literal in brackets), and the port unless 443.
    pub fn authority(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == 443 {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

/// A line that is not a site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteError {
    /// 1-based line number.
    pub line: usize,
    /// Why.
    pub message: String,
}

impl std::fmt::Display for SiteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// A line of a sites or pages file without its comment: `#` at the start of the line or after
/// whitespace starts one (a `#` inside a word, as in a URL's fragment, does not).
pub(crate) fn strip_comment(raw: &str) -> &str {
    match raw.find('#') {
        Some(p) if p == 0 || raw[..p].ends_with(char::is_whitespace) => &raw[..p],
        _ => raw,
    }
}

/// Parses the text of a sites file.
pub fn parse_sites(text: &str) -> (Vec<Site>, Vec<SiteError>) {
    let mut sites = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = strip_comment(raw).trim();
        if content.is_empty() {
            continue;
        }
        match parse_site(content) {
            Ok((host, port, path)) => {
                let first = sites
                    .iter()
                    .find(|s: &&Site| s.host == host && s.port == port && s.path == path);
                match first {
                    Some(f) => errors.push(SiteError {
                        line,
                        message: format!(
                            "`{}`: duplicate of line {} (measured once)",
                            content.escape_debug(),
                            f.line
                        ),
                    }),
                    None => sites.push(Site {
                        host,
                        port,
                        path,
                        line,
                    }),
                }
            }
            Err(bad) => errors.push(SiteError {
                line,
                message: format!("`{}`: {bad}", content.escape_debug()),
            }),
        }
    }
    (sites, errors)
}

/// Why a line is not a site (the messages users see after the line's text).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadSite {
    /// A control character in the line.
    #[error("control character U+{code:04X} at column {column}")]
    Control { code: u32, column: usize },
    /// Not parsable as a URL, even with `https://` before it.
    #[error("not a host, host:port or URL ({0})")]
    NotUrl(url::ParseError),
    /// A URL whose scheme is not `https`.
    #[error("scheme `{0}` is not https")]
    Scheme(String),
    /// A URL with a user name or password.
    #[error("user name or password in the URL: not supported")]
    Credentials,
    /// A URL without a host.
    #[error("no host")]
    NoHost,
    /// A URL whose host is empty.
    #[error("empty host")]
    EmptyHost,
    /// Port 0.
    #[error("port 0")]
    PortZero,
    /// A name longer than DNS allows.
    #[error("name is {0} octets long (at most 253)")]
    NameTooLong(usize),
    /// A label longer than DNS allows (its first 16 octets shown).
    #[error("label `{start}…` is {len} octets long (at most 63)")]
    LabelTooLong { start: String, len: usize },
    /// Two dots in a row.
    #[error("empty label (two dots in a row)")]
    EmptyLabel,
    /// Not a name a TLS client can ask for.
    #[error("`{0}` is not a valid DNS name")]
    NotDnsName(String),
}

/// One site written as in a sites file (a host, `host:port` or an `https://` URL), found on
/// `line`; the reason when it is not one.
pub fn parse_one(s: &str, line: usize) -> Result<Site, BadSite> {
    let (host, port, path) = parse_site(s)?;
    Ok(Site {
        host,
        port,
        path,
        line,
    })
}

fn parse_site(s: &str) -> Result<(String, u16, String), BadSite> {
    if let Some((col, c)) = s.chars().enumerate().find(|(_, c)| c.is_control()) {
        return Err(BadSite::Control {
            code: c as u32,
            column: col + 1,
        });
    }
    // A bare IPv6 literal (no brackets, no port).
    if let Ok(ip) = s.parse::<std::net::Ipv6Addr>() {
        return Ok((ip.to_string(), 443, "/".into()));
    }
    let url = if s.contains("://") {
        Url::parse(s)
    } else {
        Url::parse(&format!("https://{s}"))
    }
    .map_err(BadSite::NotUrl)?;
    if url.scheme() != "https" {
        return Err(BadSite::Scheme(url.scheme().to_owned()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(BadSite::Credentials);
    }
    let host = match url.host() {
        // IDN names arrive here in their ASCII (punycode) form.
        Some(Host::Domain(d)) => {
            let d = d.trim_end_matches('.');
            dns_name(d)?;
            d.to_owned()
        }
        Some(Host::Ipv4(ip)) => ip.to_string(),
        Some(Host::Ipv6(ip)) => ip.to_string(),
        None => return Err(BadSite::NoHost),
    };
    if host.is_empty() {
        return Err(BadSite::EmptyHost);
    }
    let port = url.port_or_known_default().unwrap_or(443);
    if port == 0 {
        return Err(BadSite::PortZero);
    }
    let mut path = url.path().to_owned();
    if let Some(q) = url.query() {
        path.push('?');
        path.push_str(q);
    }
    Ok((host, port, path))
}

/// Checks that `name` is a DNS name a TLS client can ask for (RFC 1035 lengths, letters,
/// digits, hyphens and underscores, as rustls' `DnsName` accepts), with the reason if not.
fn dns_name(name: &str) -> Result<(), BadSite> {
    if name.len() > 253 {
        return Err(BadSite::NameTooLong(name.len()));
    }
    if let Some(label) = name.split('.').find(|l| l.len() > 63) {
        return Err(BadSite::LabelTooLong {
            start: label[..16].to_owned(),
            len: label.len(),
        });
    }
    if name.split('.').any(str::is_empty) {
        return Err(BadSite::EmptyLabel);
    }
    rustls_pki_types::DnsName::try_from(name)
        .map(|_| ())
        .map_err(|_| BadSite::NotDnsName(name.to_owned()))
}

/// Reads and parses a sites file. A missing or unreadable file is an error naming it; a line
/// that is not UTF-8 is a bad line like any other (named, skipped), and the others are read.
pub fn read_sites(path: &Path) -> Result<(Vec<Site>, Vec<SiteError>), certbench_core::Error> {
    let bytes = std::fs::read(path).map_err(|cause| certbench_core::Error::Io {
        path: path.to_owned(),
        cause,
    })?;
    Ok(parse_site_bytes(&bytes))
}

/// [`parse_sites`] over bytes: each line that is not UTF-8 is an error naming the line and
/// the first bad byte's column, and is skipped.
pub fn parse_site_bytes(bytes: &[u8]) -> (Vec<Site>, Vec<SiteError>) {
    let mut text = String::with_capacity(bytes.len());
    let mut bad = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            text.push('\n');
        }
        match std::str::from_utf8(line) {
            Ok(l) => text.push_str(l),
            // An empty line in its place keeps the line numbers of the others.
            Err(e) => bad.push(SiteError {
                line: i + 1,
                message: format!(
                    "not UTF-8 (byte 0x{:02X} at column {})",
                    line[e.valid_up_to()],
                    e.valid_up_to() + 1
                ),
            }),
        }
    }
    let (sites, mut errors) = parse_sites(&text);
    errors.extend(bad);
    errors.sort_by_key(|e| e.line);
    (sites, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_ports_urls_comments_and_bad_lines() {
        let text = "# the experiment\n\
                    duckduckgo.com\n\
                    \n\
                    github.com:8443   # a comment\n\
                    https://en.wikipedia.org/wiki/TLS?x=1\n\
                    http://plain.example\n\
                    bad host name\n\
                    example.com:70000\n\
                    [::1]:4433\n\
                    Servo.ORG.\n";
        let (sites, errors) = parse_sites(text);
        let got: Vec<(&str, u16, &str, usize)> = sites
            .iter()
            .map(|s| (s.host.as_str(), s.port, s.path.as_str(), s.line))
            .collect();
        assert_eq!(
            got,
            [
                ("duckduckgo.com", 443, "/", 2),
                ("github.com", 8443, "/", 4),
                ("en.wikipedia.org", 443, "/wiki/TLS?x=1", 5),
                ("::1", 4433, "/", 9),
                ("servo.org", 443, "/", 10),
            ]
        );
        let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
        assert_eq!(lines, [6, 7, 8]);
        assert!(errors[0].message.contains("scheme `http` is not https"));
    }

    #[test]
    fn a_line_that_is_not_utf8_is_named_and_the_others_are_read() {
        let bytes = b"a.example\nb\xff\xfe.example\r\nc.example:8443\n\xc3\n";
        let (sites, errors) = parse_site_bytes(bytes);
        let hosts: Vec<(&str, usize)> = sites.iter().map(|s| (s.host.as_str(), s.line)).collect();
        assert_eq!(hosts, [("a.example", 1), ("c.example", 3)]);
        let bad: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            bad,
            [
                "line 2: not UTF-8 (byte 0xFF at column 2)",
                "line 4: not UTF-8 (byte 0xC3 at column 1)"
            ]
        );
    }
}

#[cfg(test)]
mod resume_keys {
    use certbench_schema::Sample;

    use super::parse_sites;

    /// `--resume` keys a sample by its site id: one host on two ports, or two paths, are two
    /// sites, and the driver's key for a site is the key of that site's samples.
    #[test]
    fn a_site_id_keeps_host_port_and_path_apart() {
        let (sites, errors) = parse_sites("example.com\nexample.com:8443\nhttps://example.com/a\n");
        assert!(errors.is_empty());
        let ids: Vec<String> = sites.iter().map(|s| s.id()).collect();
        assert_eq!(ids, ["example.com", "example.com:8443", "example.com/a"]);
        let line = r#"{"schema":2,"source":"driver","method":"openssl","site":"example.com","port":8443,"path":"/","run":0,"stages":{},"outcome":"ok"}"#;
        let sample: Sample = serde_json::from_str(line).unwrap();
        let key = crate::driver::sample_key(&sample);
        assert_eq!(key.0, sites[1].id());
        assert_ne!(key.0, sites[0].id());
    }
}
