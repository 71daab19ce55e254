//! Versions of the libraries certbench measures, for result files and reports.

/// The version of `krate` locked in certbench's `Cargo.lock` when it was built (the first one
/// if several are locked), or `"unknown"`.
pub fn locked(krate: &str) -> &'static str {
    env!("CERTBENCH_LOCKED_VERSIONS")
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == krate)
        .map_or("unknown", |(_, v)| v)
}

/// The OpenSSL library linked at run time, e.g. `3.0.19`.
pub fn openssl() -> String {
    let v = openssl::version::version(); // "OpenSSL 3.0.19 27 Jan 2026"
    v.split_whitespace().nth(1).unwrap_or(v).to_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn locked_versions_come_from_the_lock_file() {
        assert!(super::locked("rustls-webpki").starts_with("0.103."));
        assert_eq!(super::locked("webpki"), "0.22.4");
        assert_eq!(super::locked("no-such-crate"), "unknown");
        assert!(super::openssl().starts_with('3'), "{}", super::openssl());
    }
}
