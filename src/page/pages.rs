//! The pages file: one page per line, its document's host and its subresource hosts with
//! their connection counts ([`parse_pages`]).

use crate::sites::{Site, SiteError, parse_one};

/// Connections a browser opens to one host at most (Chrome, Firefox: 6).
pub const MAX_PER_HOST: usize = 6;

/// One page: its document's host, then its subresource hosts with their connection counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// Line in the pages file.
    pub line: usize,
    /// The document (one connection).
    pub document: Site,
    /// Subresource hosts, each with the connections the page opens to it.
    pub subresources: Vec<(Site, usize)>,
}

impl Page {
    /// Connections one load opens.
    pub fn connections(&self) -> usize {
        1 + self.subresources.iter().map(|(_, n)| n).sum::<usize>()
    }
}

/// Parses a pages file: one page per line, whitespace-separated, the document's host first,
/// then subresource hosts, each `HOST` (one connection) or `HOST*N` (N connections, 1–6);
/// a host is written as in a sites file. `#` starts a comment. A bad line is reported with
/// its number and reason, and skipped.
pub fn parse_pages(text: &str) -> (Vec<Page>, Vec<SiteError>) {
    let mut pages = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = crate::sites::strip_comment(raw);
        let mut tokens = content.split_whitespace();
        let Some(first) = tokens.next() else {
            continue;
        };
        let page = (|| {
            if first.contains('*') {
                return Err(format!(
                    "`{first}`: the document is one connection; list its host again for more"
                ));
            }
            let document = parse_one(first, line).map_err(|e| format!("`{first}`: {e}"))?;
            let mut subresources = Vec::new();
            for t in tokens {
                let (host, n) = match t.rsplit_once('*') {
                    Some((h, n)) => {
                        let n: usize = n
                            .parse()
                            .map_err(|_| format!("`{t}`: `*{n}` is not a connection count"))?;
                        if !(1..=MAX_PER_HOST).contains(&n) {
                            return Err(format!(
                                "`{t}`: {n} connections (a browser opens 1 to {MAX_PER_HOST} per host)"
                            ));
                        }
                        (h, n)
                    }
                    None => (t, 1),
                };
                let site = parse_one(host, line).map_err(|e| format!("`{host}`: {e}"))?;
                subresources.push((site, n));
            }
            Ok(Page {
                line,
                document,
                subresources,
            })
        })();
        match page {
            Ok(p) => pages.push(p),
            Err(message) => errors.push(SiteError { line, message }),
        }
    }
    (pages, errors)
}
