//! Chrome's CT policy (`ChromeCTPolicyEnforcer::CheckCompliance`,
//! components/certificate_transparency/chrome_ct_policy_enforcer.cc; the published policy at
//! googlechrome.github.io/CertificateTransparency/ct_policy.html), over SCTs whose signatures
//! were already checked: what `--ct` applies for the rustls methods ("CT as Chrome checks
//! it"). The browsers' own shims apply their own policies in their own code.
//!
//! A certificate complies when either
//! - its SCTs from TLS or OCSP come from at least 2 distinct logs of at least 2 distinct
//!   operators, one of them a log not retired at the time of the check; or
//! - its embedded SCTs come from at least N distinct logs (N = 2 for a certificate valid for
//!   180 days or less, 3 beyond), of at least 2 distinct operators, one of them a log not
//!   retired at the time of the check.
//!
//! An SCT from a log retired at the time of the check counts only if it was issued before the
//! retirement; an SCT whose signature failed, or from an unknown log, never counts.

use std::collections::BTreeSet;

use super::list::CtLog;

/// Where an SCT came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The certificate's SCT list extension.
    Embedded,
    /// The TLS extension or a stapled OCSP response.
    Delivered,
}

/// An SCT whose signature verified, from a known log.
#[derive(Clone, Copy, Debug)]
pub struct ValidSct<'a> {
    /// Its log.
    pub log: &'a CtLog,
    /// Its timestamp, milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// Where it came from.
    pub origin: Origin,
}

/// Chrome's `CTPolicyCompliance` values that a check here can give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compliance {
    /// `CT_POLICY_COMPLIES_VIA_SCTS`.
    Complies,
    /// `CT_POLICY_NOT_ENOUGH_SCTS`.
    NotEnoughScts,
    /// `CT_POLICY_NOT_DIVERSE_SCTS`: enough SCTs, but from one operator only (or none from a
    /// log that is not retired).
    NotDiverseScts,
}

impl Compliance {
    /// Chrome's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Compliance::Complies => "CT_POLICY_COMPLIES_VIA_SCTS",
            Compliance::NotEnoughScts => "CT_POLICY_NOT_ENOUGH_SCTS",
            Compliance::NotDiverseScts => "CT_POLICY_NOT_DIVERSE_SCTS",
        }
    }
}

/// 180 days, Chrome's lifetime threshold for a third embedded SCT.
const SHORT_LIFETIME_SECS: u64 = 180 * 86_400;

/// Chrome's verdict on a certificate valid from `not_before` to `not_after` (Unix seconds)
/// with `scts`, checked at `time` (Unix seconds).
pub fn chrome(not_before: u64, not_after: u64, scts: &[ValidSct<'_>], time: u64) -> Compliance {
    let lifetime = not_after.saturating_sub(not_before);
    let embedded_required = if lifetime > SHORT_LIFETIME_SECS { 3 } else { 2 };
    let delivered = judge(scts, Origin::Delivered, 2, time);
    if delivered == Compliance::Complies {
        return delivered;
    }
    let embedded = judge(scts, Origin::Embedded, embedded_required, time);
    if embedded == Compliance::Complies || scts.iter().all(|s| s.origin == Origin::Embedded) {
        return embedded;
    }
    // Neither way complies: report the closer miss, as Chrome's enforcer reports one value.
    if delivered == Compliance::NotDiverseScts || embedded == Compliance::NotDiverseScts {
        Compliance::NotDiverseScts
    } else {
        Compliance::NotEnoughScts
    }
}

fn judge(scts: &[ValidSct<'_>], origin: Origin, required: usize, time: u64) -> Compliance {
    let mut logs = BTreeSet::new();
    let mut operators = BTreeSet::new();
    let mut admissible = false;
    for s in scts.iter().filter(|s| s.origin == origin) {
        if let Some(at) = s.log.retired_at(time) {
            if s.timestamp_ms / 1000 >= at {
                continue;
            }
        } else {
            admissible = true;
        }
        logs.insert(s.log.id);
        operators.insert(s.log.operator.as_str());
    }
    if logs.len() < required {
        Compliance::NotEnoughScts
    } else if operators.len() < 2 || !admissible {
        Compliance::NotDiverseScts
    } else {
        Compliance::Complies
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ct::list::LogState;

    fn log(n: u8, operator: &str, state: LogState) -> CtLog {
        CtLog {
            id: [n; 32],
            key: vec![],
            operator: operator.into(),
            description: format!("log {n}"),
            state,
        }
    }

    const DAY: u64 = 86_400;

    #[test]
    fn lifetime_decides_how_many_embedded_scts() {
        let (a, b, c) = (
            log(1, "A", LogState::Admissible),
            log(2, "B", LogState::Admissible),
            log(3, "B", LogState::Admissible),
        );
        let t = 1_000 * DAY;
        let sct = |log| ValidSct {
            log,
            timestamp_ms: t * 1000,
            origin: Origin::Embedded,
        };
        let two = [sct(&a), sct(&b)];
        let three = [sct(&a), sct(&b), sct(&c)];
        assert_eq!(chrome(t, t + 90 * DAY, &two, t), Compliance::Complies);
        assert_eq!(chrome(t, t + 180 * DAY, &two, t), Compliance::Complies);
        assert_eq!(chrome(t, t + 181 * DAY, &two, t), Compliance::NotEnoughScts);
        assert_eq!(chrome(t, t + 398 * DAY, &three, t), Compliance::Complies);
        assert_eq!(chrome(t, t + 90 * DAY, &[sct(&a)], t), Compliance::NotEnoughScts);
        // The same log twice is one log.
        assert_eq!(
            chrome(t, t + 90 * DAY, &[sct(&a), sct(&a)], t),
            Compliance::NotEnoughScts
        );
        // Two logs of one operator.
        assert_eq!(
            chrome(t, t + 90 * DAY, &[sct(&b), sct(&c)], t),
            Compliance::NotDiverseScts
        );
    }

    #[test]
    fn a_retired_logs_scts_count_only_from_before_its_retirement() {
        let t = 1_000 * DAY;
        let a = log(1, "A", LogState::Admissible);
        let r = log(2, "B", LogState::Retired { at: t - DAY });
        let sct = |log, at: u64| ValidSct {
            log,
            timestamp_ms: at * 1000,
            origin: Origin::Embedded,
        };
        let nb = t - 10 * DAY;
        assert_eq!(
            chrome(nb, nb + 90 * DAY, &[sct(&a, nb), sct(&r, nb)], t),
            Compliance::Complies
        );
        assert_eq!(
            chrome(nb, nb + 90 * DAY, &[sct(&a, nb), sct(&r, t)], t),
            Compliance::NotEnoughScts
        );
        // Retired logs only: not diverse (none admissible).
        let r2 = log(3, "C", LogState::Retired { at: t - DAY });
        assert_eq!(
            chrome(nb, nb + 90 * DAY, &[sct(&r2, nb), sct(&r, nb)], t),
            Compliance::NotDiverseScts
        );
        // Checked before the retirement, the log was admissible then.
        assert_eq!(
            chrome(nb, nb + 90 * DAY, &[sct(&r2, nb), sct(&r, nb)], t - 2 * DAY),
            Compliance::Complies
        );
    }

    #[test]
    fn delivered_scts_need_two_logs_of_two_operators() {
        let t = 1_000 * DAY;
        let (a, b) = (
            log(1, "A", LogState::Admissible),
            log(2, "B", LogState::Admissible),
        );
        let d = |log| ValidSct {
            log,
            timestamp_ms: t * 1000,
            origin: Origin::Delivered,
        };
        assert_eq!(chrome(t, t + 398 * DAY, &[d(&a), d(&b)], t), Compliance::Complies);
        assert_eq!(chrome(t, t + 398 * DAY, &[d(&a)], t), Compliance::NotEnoughScts);
    }
}
