//! The one monotonic clock of the signature pool and of `rustlsparallel`'s decision.
//!
//! Both read nanoseconds since one process-wide origin, so that "when the workers fell asleep"
//! (the pool), "when the last verification came" (the decision) and "when a worker took a
//! job" (the pool's observation of an offer) compare directly. `Instant` underneath: the
//! monotonic clock (`CLOCK_MONOTONIC` on Linux, a vDSO read), never the wall clock.

use std::sync::OnceLock;
use std::time::Instant;

/// Nanoseconds on the monotonic clock since this process first asked, at least 1 (so that 0
/// can mean "never" in an atomic).
pub fn now_ns() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_nanos() as u64 + 1
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clock_starts_above_zero_and_never_goes_back() {
        let mut last = super::now_ns();
        assert!(last >= 1);
        for _ in 0..1000 {
            let now = super::now_ns();
            assert!(now >= last);
            last = now;
        }
    }
}
