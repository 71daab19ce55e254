//! What stale landmarks cost a client (draft-ietf-plants-merkle-tree-certs §6.3, §8): a
//! landmark-relative certificate needs the first landmark allocated after its issuance, and a
//! client whose newest landmark is `stale_hours` old holds it only when that landmark is at
//! least as old; otherwise it takes the standalone certificate (larger by its cosignatures).
//!
//! Landmarks are allocated every `landmark_hours`, on the multiples of it, and "now" is one of
//! them: a certificate issued `age` hours ago is covered by the landmark allocated
//! `⌊age / landmark_hours⌋ × landmark_hours` hours ago (now, for one issued within the last
//! interval: only a client up to the minute holds it). Invariant: the share is monotone in
//! the staleness.

/// Whether a client whose newest landmark is `stale_hours` old holds the landmark covering a
/// certificate issued `age_hours` ago.
pub fn holds(age_hours: f64, stale_hours: f64, landmark_hours: f64) -> bool {
    let covering_age = (age_hours / landmark_hours).floor() * landmark_hours;
    age_hours >= 0.0 && covering_age >= stale_hours
}

/// The share of connections, one per certificate age in `ages_hours`, that fall back to the
/// standalone certificate when the client's landmarks are `stale_hours` old; `None` for no
/// connection.
pub fn fallback_share(ages_hours: &[f64], stale_hours: f64, landmark_hours: f64) -> Option<f64> {
    let falls = |&&a: &&f64| !holds(a, stale_hours, landmark_hours);
    let n = ages_hours.len();
    (n > 0).then(|| ages_hours.iter().filter(falls).count() as f64 / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_waits_for_its_landmark_and_a_stale_client_for_more() {
        // Hourly landmarks: a certificate issued 30 minutes ago is covered by the landmark
        // allocated now, which a client an hour behind does not hold.
        assert!(holds(0.5, 0.0, 1.0) && !holds(0.5, 1.0, 1.0));
        // Issued 90 minutes ago: covered by the landmark of an hour ago.
        assert!(holds(1.5, 0.0, 1.0) && holds(1.5, 1.0, 1.0) && !holds(1.5, 2.0, 1.0));
        let ages = [0.2, 1.5, 30.0, 200.0];
        let share = |stale| fallback_share(&ages, stale, 1.0).unwrap();
        assert_eq!(share(0.0), 0.0);
        assert_eq!(share(24.0), 0.5);
        assert_eq!(share(168.0), 0.75);
        assert_eq!(share(1e6), 1.0);
        assert_eq!(fallback_share(&[], 1.0, 1.0), None);
    }
}
