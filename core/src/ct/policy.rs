//! Chrome's CT policy, as `ChromeCTPolicyEnforcer::CheckCTPolicyCompliance` applies it
//! (components/certificate_transparency/chrome_ct_policy_enforcer.cc, chromium/chromium
//! 06cb01009b5e; the published policy at
//! googlechrome.github.io/CertificateTransparency/ct_policy.html), over SCTs whose signatures
//! were already checked: what `--ct` applies for the rustls methods ("CT as Chrome checks
//! it"). The browsers' own shims apply their own policies in their own code.
//!
//! A log is disqualified at the time of the check if it was retired at or before it. The
//! issuance date is the earliest SCT from a log not disqualified. Then:
//! - Option 1: an SCT from TLS or OCSP from a log not disqualified, and SCTs from two
//!   operators among all counted (any origin): complies.
//! - Option 2: an embedded SCT from a log not disqualified, SCTs from two operators, and
//!   embedded SCTs from at least N distinct logs (N = 2 for a certificate valid 180 days or
//!   less, 3 beyond), where a disqualified log's SCT counts only if both the issuance date and
//!   the SCT precede the disqualification.
//!
//! An SCT whose signature failed, from the future, or from an unknown log is not given to the
//! policy at all. Left out: a log's operator history (the list's current operator is used)
//! and the log list's timeliness (certbench models a browser whose list is up to date).

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
    let disqualified = |s: &ValidSct<'_>| s.log.retired_at(time);
    // Milliseconds, as SCT timestamps are.
    let issuance_ms = scts
        .iter()
        .filter(|s| disqualified(s).is_none())
        .map(|s| s.timestamp_ms)
        .min()
        .unwrap_or(u64::MAX);
    let mut has_embedded = false;
    let mut has_delivered = false;
    let mut embedded_logs = BTreeSet::new();
    let mut operators = BTreeSet::new();
    for s in scts {
        let disq_ms = disqualified(s).map(|at| at.saturating_mul(1000));
        if disq_ms.is_some() && s.origin != Origin::Embedded {
            continue; // only TLS/OCSP SCTs valid at the time of check are accepted
        }
        if s.origin != Origin::Embedded {
            has_delivered = true;
        } else {
            has_embedded |= disq_ms.is_none();
            match disq_ms {
                None => {
                    embedded_logs.insert(s.log.id);
                }
                Some(d) if issuance_ms < d && s.timestamp_ms < d => {
                    embedded_logs.insert(s.log.id);
                }
                Some(_) => {}
            }
        }
        operators.insert(s.log.operator.as_str());
    }
    let diverse = operators.len() >= 2;
    if has_delivered && diverse {
        return Compliance::Complies;
    }
    let fail = if has_delivered {
        Compliance::NotDiverseScts
    } else {
        Compliance::NotEnoughScts
    };
    if !has_embedded {
        return fail;
    }
    if !diverse {
        return Compliance::NotDiverseScts;
    }
    let lifetime = not_after.saturating_sub(not_before);
    let required = if lifetime > SHORT_LIFETIME_SECS { 3 } else { 2 };
    if embedded_logs.len() >= required {
        Compliance::Complies
    } else {
        fail
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
        // One SCT, or one log twice: one operator, which Chrome reports first.
        assert_eq!(
            chrome(t, t + 90 * DAY, &[sct(&a)], t),
            Compliance::NotDiverseScts
        );
        assert_eq!(
            chrome(t, t + 90 * DAY, &[sct(&a), sct(&a)], t),
            Compliance::NotDiverseScts
        );
        // Two operators but one log short for a long-lived certificate.
        assert_eq!(
            chrome(t, t + 398 * DAY, &[sct(&a), sct(&b)], t),
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
        // Retired logs only: no embedded SCT from a log qualified at the time of check.
        let r2 = log(3, "C", LogState::Retired { at: t - DAY });
        assert_eq!(
            chrome(nb, nb + 90 * DAY, &[sct(&r2, nb), sct(&r, nb)], t),
            Compliance::NotEnoughScts
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
        assert_eq!(
            chrome(t, t + 398 * DAY, &[d(&a), d(&b)], t),
            Compliance::Complies
        );
        assert_eq!(
            chrome(t, t + 398 * DAY, &[d(&a)], t),
            Compliance::NotDiverseScts
        );
        // Nothing at all.
        assert_eq!(chrome(t, t + 90 * DAY, &[], t), Compliance::NotEnoughScts);
    }
}
