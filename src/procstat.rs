//! This process's resource use, from `/proc` (Linux): for the driver's end-of-run note and
//! the load test. `None` where `/proc` is not there.

/// Peak resident set size (VmHWM), in bytes.
pub fn peak_rss() -> Option<u64> {
    status_kib("VmHWM:")
}

/// Current resident set size (VmRSS), in bytes.
pub fn rss() -> Option<u64> {
    status_kib("VmRSS:")
}

/// Current resident set size (VmRSS) of another process, in bytes.
pub fn rss_of(pid: u32) -> Option<u64> {
    status_field_kib(&format!("/proc/{pid}/status"), "VmRSS:")
}

/// Open file descriptors.
pub fn open_fds() -> Option<usize> {
    std::fs::read_dir("/proc/self/fd").ok().map(|d| d.count())
}

fn status_kib(field: &str) -> Option<u64> {
    status_field_kib("/proc/self/status", field)
}

/// A `kB` field of a `/proc/<pid>/status` file, in bytes.
fn status_field_kib(path: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// `certbench: N samples; peak RSS … MB; … open file descriptors at the end`, where the
/// process can tell.
pub fn summary(samples: usize) -> Option<String> {
    let (peak, fds) = (peak_rss()?, open_fds()?);
    let mb = peak as f64 / 1e6;
    Some(format!(
        "certbench: {samples} samples; peak RSS {mb:.0} MB; {fds} open file descriptors at the end"
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_this_process() {
        assert!(super::peak_rss().unwrap() >= super::rss().unwrap() / 2);
        assert!(super::open_fds().unwrap() >= 3);
    }
}
