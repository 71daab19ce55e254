//! Versions of the libraries certbench measures, for result files and reports.

/// The version of `krate` in the lock file of the build that linked certbench-core (`build.rs`:
/// a Servo build's own, certbench's here; the first one if several are locked), or `"unknown"`.
pub fn locked(krate: &str) -> &'static str {
    env!("CERTBENCH_LOCKED_VERSIONS")
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == krate)
        .map_or("unknown", |(_, v)| v)
}

/// The lock file [`locked`] read: the first `Cargo.lock` above the build's target folder
/// (a Servo build's own), or certbench's beside this crate when there was none.
pub fn lock_file() -> &'static str {
    env!("CERTBENCH_LOCK_FILE")
}

/// The OpenSSL library linked at run time, e.g. `3.0.19`.
#[cfg(feature = "openssl")]
pub fn openssl() -> String {
    let v = openssl::version::version(); // "OpenSSL 3.0.19 27 Jan 2026"
    v.split_whitespace().nth(1).unwrap_or(v).to_owned()
}

/// This run: the command line, the machine, the libraries' versions, the start time.
pub fn run_info(command: Vec<String>) -> certbench_schema::RunInfo {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_owned());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    let mut versions = std::collections::BTreeMap::new();
    versions.insert("certbench".to_owned(), env!("CARGO_PKG_VERSION").to_owned());
    #[cfg(feature = "openssl")]
    versions.insert("OpenSSL".to_owned(), openssl());
    for k in ["rustls", "rustls-webpki", "aws-lc-rs", "webpki", "ring"] {
        versions.insert(k.to_owned(), locked(k).to_owned());
    }
    certbench_schema::RunInfo {
        command,
        machine: format!("{cpu}, {cores} cores"),
        os: format!("{} {kernel}", std::env::consts::OS),
        versions,
        started: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        other_hook: None,
        measured_with: Vec::new(),
        spec: None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn locked_versions_come_from_the_lock_file() {
        assert!(super::locked("rustls-webpki").starts_with("0.103."));
        assert_eq!(super::locked("webpki"), "0.22.4");
        assert_eq!(super::locked("no-such-crate"), "unknown");
        #[cfg(feature = "openssl")]
        assert!(super::openssl().starts_with('3'), "{}", super::openssl());
    }
}
