//! The data sets measured: their files in the cache and how the table labels them.

use super::options::ScaleOptions;
use crate::revocation::{crlite, crlset};

/// One data set and how it is checked.
#[derive(Clone, Copy, Debug)]
pub(super) enum Data {
    CrlSet(&'static str, crlset::Scale),
    Gecko(crlite::Scale),
    Rustls(crlite::Scale),
    Upki(crlite::Scale),
    Crl(usize),
}

impl Data {
    /// Its file (or folder) in the cache.
    pub(super) fn file(self) -> String {
        match self {
            Data::CrlSet(name, _) => format!("crlset-{name}"),
            Data::Gecko(s) | Data::Rustls(s) => format!("crlite-{}.filter", s.name),
            Data::Upki(s) => format!("upki-{}", s.name),
            Data::Crl(n) => format!("crl-{n}.crl"),
        }
    }

    /// (data, check, holds, published).
    pub(super) fn labels(self) -> (String, &'static str, String, String) {
        let (p0, p1, p2) = crlite::PUBLISHED;
        let crlite = |s: crlite::Scale, check| {
            (
                format!("CRLite, {}", s.name),
                check,
                format!("{} certificates + 2", thousands(s.certificates())),
                format!(
                    "{} M certificates, {} M revoked, {} MB (ePrint 2025/610)",
                    p0 / 1_000_000,
                    p1 / 1_000_000,
                    p2 as f64 / 1e6
                ),
            )
        };
        match self {
            Data::CrlSet(name, s) => (
                format!("CRLSet, {name}"),
                "crlset",
                format!(
                    "{} parents, {} serials",
                    s.parents,
                    thousands(s.serials as u64)
                ),
                match name {
                    "chrome" => "Chrome's, July 2025: 21.7 KB".into(),
                    _ => "≤ 250 KB (Chromium's CRLSets page)".into(),
                },
            ),
            Data::Gecko(s) => crlite(s, "crlite (gecko)"),
            Data::Rustls(s) => crlite(s, "crlite (rustls)"),
            Data::Upki(s) => crlite(s, "upki"),
            Data::Crl(n) => (
                format!("CRL, {} serials", thousands(n as u64)),
                "crl",
                format!("{} serials", thousands(n as u64)),
                "webpki parse: 0.19 / 184 / 502 ms at 2 k / 600 k / 1.5 M serials (rustls-webpki PR #108)"
                    .into(),
            ),
        }
    }
}

/// `n` with thousands separators (`1,234,567`).
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Every data set `opts` asks for, in the table's order: the two CRLSets, each CRLite scale
/// checked three ways, each CRL size.
pub(super) fn sets(opts: &ScaleOptions) -> Vec<Data> {
    let mut sets = vec![
        Data::CrlSet("chrome", crlset::Scale::CHROME),
        Data::CrlSet("limit", crlset::Scale::LIMIT),
    ];
    for &s in &opts.crlite {
        sets.extend([Data::Gecko(s), Data::Rustls(s), Data::Upki(s)]);
    }
    sets.extend(opts.crl_sizes.iter().map(|&n| Data::Crl(n)));
    sets
}
