//! The answer's sentences: the [`Answer`]'s figures (and a `--pq` run's) in words, one line
//! each, as the markdown lists them and the HTML report shows them.

use super::pq;
use crate::answer::{Answer, Answers, BrowserPays, CtCost, ServoAgainst, Tally, View2017};
use crate::units::human;

/// Every line: the comparison's, then the twins'.
pub(crate) fn lines(a: &Answers) -> Vec<String> {
    let mut lines = a.comparison.as_ref().map(words).unwrap_or_default();
    lines.extend(a.pq.as_ref().map(pq::answer).unwrap_or_default());
    lines
}

fn tally_text(t: &Tally, of: usize) -> String {
    let mut parts = t.iter().map(|(m, c)| format!("{m} on {c}"));
    let first = parts
        .next()
        .map(|p| format!("{p} of {of} sites"))
        .unwrap_or_default();
    let rest: Vec<String> = parts.collect();
    if rest.is_empty() {
        first
    } else {
        format!("{first} ({})", rest.join(", "))
    }
}

/// A share as a percentage: whole percents from 1 % on, one decimal below (a share on an
/// emulated link is a tenth of a percent, not 0).
fn percent(share: f64) -> String {
    let p = 100.0 * share;
    if p < 1.0 {
        format!("{p:.1}")
    } else {
        format!("{p:.0}")
    }
}

/// The comparison's answer, at most ten lines: who is fastest by own cost, on how many sites
/// and by what median ratio; who is fastest in the 2017 view; what the callback hook adds
/// (naming `openssl-verify`, and why OpenSSL then looks fastest); verification's share of the
/// connection; where a browser checked CT, what each browser pays; Servo's verifiers against
/// the other browsers' as each ships (every ratio naming what each side checked), what
/// matching the browsers' checks would cost Servo, the same by the path alone, and the
/// chains a browser's checks rejected; the other hook.
pub(crate) fn words(a: &Answer) -> Vec<String> {
    let (sites, winner) = (a.sites, &a.winner);
    let mut lines = Vec::new();
    let mut first = format!(
        "By own cost (what each verifier itself spent), the fastest is {}; a method other than openssl on {} of {sites}",
        tally_text(&a.own, sites),
        a.not_openssl
    );
    if let Some(v) = &a.against {
        first.push_str(&format!(
            "; {} needs ×{:.2} of {winner}'s time (median over {} sites, ×{:.2}–×{:.2})",
            v.who, v.ratio.median, v.sites, v.ratio.lo, v.ratio.hi
        ));
    }
    lines.push(first + ".");
    match &a.view {
        View2017::Same => lines.push(format!(
            "No method paid OpenSSL's verification on top of its own, so the 2017 view is the own cost: {}.",
            tally_text(&a.paid, sites)
        )),
        View2017::Differs { added, explains } => {
            lines.push(format!(
                "In the 2017 view (the verification the handshake paid, what the seed timed), the fastest is {}.",
                tally_text(&a.paid, sites)
            ));
            let mut why = format!(
                "The callback hook makes every webpki method wait for OpenSSL's own X509_verify_cert first (`openssl-verify`: median {} per connection, {}–{} over sites)",
                human(added.median),
                human(added.lo),
                human(added.hi)
            );
            if *explains {
                why.push_str(
                    ": that is why OpenSSL looks fastest in the 2017 view, as it did to Servo in 2017",
                );
            }
            lines.push(why + ".");
        }
        View2017::Unknown => {}
    }
    if let Some((s, link)) = &a.share {
        lines.push(format!(
            "Verification is {} % of the connection time with {winner}{} (median over sites, {}–{} %; connection = {} to the first byte).",
            percent(s.median),
            link.as_ref()
                .map_or(String::new(), |l| format!(" on the emulated link ({l})")),
            percent(s.lo),
            percent(s.hi),
            match a.over_quic {
                true => "the QUIC handshake + HTTP/1.1 on one QUIC stream",
                false => "TCP + TLS + HTTP",
            }
        ));
    }
    if !a.browsers_pay.is_empty() {
        lines.push(browsers_pay(&a.browsers_pay));
    }
    if !a.servo_against.is_empty() && !a.servo_against_path.is_empty() {
        // Like for like: each side as it ships, then what matching the browsers' checks
        // would cost Servo, then the path alone; every ratio names what each side checked.
        lines.push(servo_against_words(&shipped_heading(a), &a.servo_against));
        lines.push(match a.ct_costs.is_empty() {
            true => NOT_MATCHED.to_owned(),
            false => ct_costs(&a.ct_costs),
        });
        lines.push(servo_against_words(PATH_HEADING, &a.servo_against_path));
        if !a.rejections.is_empty() {
            lines.push(rejections(&a.rejections));
        }
    } else if !a.servo_against.is_empty() {
        lines.push(servo_against_words(SAME_CHECKS_HEADING, &a.servo_against));
        lines.push(WHAT_BROWSERS_COMPARE.to_owned());
        if !a.ct_costs.is_empty() {
            lines.push(ct_costs(&a.ct_costs));
        }
    } else if !a.ct_costs.is_empty() {
        lines.push(ct_costs(&a.ct_costs));
    }
    if let Some(cmd) = &a.other_hook {
        lines.push(format!("The other hook: `{cmd}`."));
    }
    lines
}

fn browsers_pay(pays: &[BrowserPays]) -> String {
    let parts: Vec<String> = (pays.iter())
        .map(|p| match p.ct {
            Some(ct) => format!(
                "{} {} (CT {} of it; {} sites)",
                p.column,
                human(p.own),
                human(ct),
                p.sites
            ),
            None => format!(
                "{} {} (no CT check; {} sites)",
                p.column,
                human(p.own),
                p.sites
            ),
        })
        .collect();
    format!(
        "What each browser's verifier pays per cold connection, path, CT and host name (median over sites of the per-site median): {}.",
        parts.join(", ")
    )
}

/// A comparison of Servo's verifiers with the other browsers' in words: its heading, then
/// its ratios (the markdown list shows them as a table under the heading instead).
pub(crate) fn servo_against_words(heading: &str, against: &[ServoAgainst]) -> String {
    let parts: Vec<String> = (against.iter())
        .filter(|s| !s.browsers.is_empty())
        .map(|s| {
            let each: Vec<String> = (s.browsers.iter())
                .map(|(b, ratio, n)| format!("×{ratio:.2} of {b}'s ({n})"))
                .collect();
            format!("{} {}", s.servo, each.join(", "))
        })
        .collect();
    format!("{} {}.", heading.trim_end_matches(':'), parts.join("; "))
}

/// The comparisons of an answer, as (the sentence [`words`] gives, its heading, its ratios).
pub(crate) fn comparisons(a: &Answer) -> Vec<(String, String, &[ServoAgainst])> {
    let mut v: Vec<(String, &[ServoAgainst])> = Vec::new();
    if a.servo_against.is_empty() {
        return Vec::new();
    }
    if a.servo_against_path.is_empty() {
        v.push((SAME_CHECKS_HEADING.to_owned(), a.servo_against.as_slice()));
    } else {
        v.push((shipped_heading(a), a.servo_against.as_slice()));
        v.push((PATH_HEADING.to_owned(), a.servo_against_path.as_slice()));
    }
    v.into_iter()
        .map(|(h, s)| (servo_against_words(&h, s), h, s))
        .collect()
}

/// The heading of the like-for-like comparison: what each side checked, by column.
pub(crate) fn shipped_heading(a: &Answer) -> String {
    let named: Vec<String> = (a.checks.iter())
        .filter(|(col, _)| {
            (a.servo_against.iter())
                .any(|s| &s.servo == col || s.browsers.iter().any(|b| &b.0 == col))
        })
        .map(|(col, checks)| format!("{col}: {checks}"))
        .collect();
    let servo_checks = (a.checks.iter())
        .filter(|(col, _)| a.servo_against.iter().any(|s| &s.servo == col))
        .any(|(_, checks)| checks != "path only");
    let who = match servo_checks {
        false => {
            "As each ships: Servo's verifiers as Servo runs them against each browser's verifier as the browser ships it"
        }
        true => {
            "With the checks this run gave each (the browsers' as they ship, Servo's as asked): Servo's verifiers against each browser's"
        }
    };
    format!(
        "{who}, by own cost (median over sites of the per-site ratio, sites in brackets; below ×1 Servo's is cheaper; checked beyond the path: {}):",
        named.join("; ")
    )
}

/// The heading of the path-only comparison.
pub(crate) const PATH_HEADING: &str = "Path only: the same samples' own cost less each method's `ct` and `revocation` stages (chains, signatures, validity, names, and Chrome's and Firefox's EV attempt), median over sites of the per-site ratio:";

/// The heading when every compared method checked the same (nothing beyond the path).
pub(crate) const SAME_CHECKS_HEADING: &str = "Servo's verifiers against the other browsers' by own cost (median over sites of the per-site ratio, sites in brackets; below ×1 Servo's is cheaper):";

/// The line between the two comparisons when Servo's verifiers checked nothing beyond the
/// path (as Servo ships them).
const NOT_MATCHED: &str = "What matching Chrome's and Firefox's checks would cost Servo is not measured by this run, whose Servo verifiers check what Servo checks (nothing beyond the path): `--ct --revocation crlite` adds CT (Chrome's policy) and CRLite to them (docs/verifiers.md).";

/// The browsers' rejections, named (each counts in the ratios: a rejection costs what the
/// verifier spent).
fn rejections(r: &[(String, Vec<(String, String)>)]) -> String {
    let parts: Vec<String> = (r.iter())
        .map(|(col, sites)| {
            let each: Vec<String> = (sites.iter()).map(|(s, v)| format!("{s} ({v})")).collect();
            format!("{col} {}", each.join(", "))
        })
        .collect();
    format!(
        "Chains a browser's checks reject, counted in the ratios at what the verifier spent: {}.",
        parts.join("; ")
    )
}

fn ct_costs(costs: &[CtCost]) -> String {
    let parts: Vec<String> = (costs.iter())
        .map(|c| {
            format!(
                "{} ×{:.2} (+{} per cold connection; {} sites)",
                c.column,
                c.ratio,
                human(c.ct),
                c.sites
            )
        })
        .collect();
    format!(
        "Checking CT as Chrome does would cost Servo {} (median over sites: own cost with the CT check ÷ the same samples without its `ct` stage, and the `ct` stage's median).",
        parts.join("; ")
    )
}

/// The line under the browsers' comparison when no method checked beyond the path
/// (`--path-only`): what its figures hold and what they leave out.
const WHAT_BROWSERS_COMPARE: &str = "That compares path building alone (chains, signatures, validity, names, and Chrome's and Firefox's EV attempt): no method here checked Certificate Transparency or revocation (`--path-only`, or a run whose data was missing), which Chrome and Firefox do on every connection as they ship (docs/verifiers.md).";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::answer;
    use crate::comparison::build_comparison;
    use crate::comparison::tests::{callback_run, s};
    use crate::export::golden::check;
    use crate::table::build_seed_tables;
    use certbench_schema::{Sample, Stage};

    #[test]
    fn under_the_callback_hook_the_answer_says_why_openssl_looks_fastest() {
        let tables = build_seed_tables(&callback_run());
        let cmp = build_comparison(&tables).unwrap();
        let lines = words(&answer(&cmp, Some("certbench --hook replace")));
        check("comparison-answer.md", &lines.join("\n"));
        assert!(lines.len() <= 8, "{lines:#?}");
        let text = lines.join("\n");
        assert!(
            text.contains(
                "the fastest is rustlsserial on 3 of 3 sites; a method other than openssl on 3 of 3"
            ),
            "{text}"
        );
        assert!(text.contains("×2.00 of rustlsserial"), "{text}");
        assert!(text.contains("openssl on 3 of 3 sites"), "{text}");
        assert!(text.contains("`openssl-verify`: median 500 µs"), "{text}");
        assert!(text.contains("why OpenSSL looks fastest"), "{text}");
        assert!(
            text.contains("The other hook: `certbench --hook replace`"),
            "{text}"
        );
    }

    #[test]
    fn servos_verifiers_are_set_against_the_other_browsers_by_own_cost() {
        let mut v = Vec::new();
        for (site, base) in [
            ("a.test", 100_000),
            ("b.test", 200_000),
            ("c.test", 400_000),
        ] {
            for k in 0..3 {
                v.push(s("platform", "replace", site, None, base + k, 4_000_000));
                v.push(s("chrome", "replace", site, None, 2 * base + k, 4_000_000));
                v.push(s("gnutls", "replace", site, None, 4 * base + k, 4_000_000));
                v.push(s("openssl", "native", site, None, 3 * base + k, 4_000_000));
            }
        }
        let cmp = build_comparison(&build_seed_tables(&v)).unwrap();
        let text = words(&answer(&cmp, None)).join("\n");
        check("comparison-answer-browsers.md", &text);
        // Markdown: the ratios as a table, every line of the list within its width.
        let answers = crate::answer::Answers {
            comparison: Some(answer(
                &cmp,
                Some("certbench --sites sites.txt --hook replace"),
            )),
            pq: None,
        };
        let list = super::super::answer_list::list(&answers);
        assert!(list.contains("| platform         |"), "{list}");
        assert!(list.lines().all(|l| l.chars().count() <= 100), "{list}");
        check("answer-list-browsers.md", &list);
        let line = text
            .lines()
            .find(|l| l.starts_with("Servo's verifiers"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            line.contains("platform ×0.50 of chrome's (3), ×0.25 of gnutls's (3)"),
            "{line}"
        );
        assert!(!line.contains("openssl"), "{line}");
        // Its own line says what it compares, and what it leaves out.
        let next = text
            .lines()
            .skip_while(|l| !l.starts_with("Servo's verifiers"))
            .nth(1)
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            next.starts_with("That compares path building alone"),
            "{next}"
        );
        assert!(
            next.contains("no method here checked Certificate Transparency or revocation"),
            "{next}"
        );
        // Without a browser's verifier, no such line.
        let only: Vec<Sample> = v
            .into_iter()
            .filter(|s| s.method != "chrome" && s.method != "gnutls")
            .collect();
        let text = words(&answer(
            &build_comparison(&build_seed_tables(&only)).unwrap(),
            None,
        ))
        .join("\n");
        assert!(!text.contains("Servo's verifiers"), "{text}");
        assert!(!text.contains("path building alone"), "{text}");
    }

    #[test]
    fn without_openssl_verify_the_two_views_are_one() {
        let samples: Vec<Sample> = callback_run()
            .into_iter()
            .map(|mut s| {
                if let Some(o) = s.stages.remove(&Stage::OpenSslVerify) {
                    *s.stages.get_mut(&Stage::TotalVerification).unwrap() -= o;
                    s.config.hook = Some("replace".into());
                }
                s
            })
            .collect();
        let cmp = build_comparison(&build_seed_tables(&samples)).unwrap();
        let text = words(&answer(&cmp, None)).join("\n");
        check("comparison-answer-replace.md", &text);
        assert!(text.contains("the 2017 view is the own cost"), "{text}");
        assert!(!text.contains("openssl-verify"), "{text}");
        assert!(
            text.contains("Verification is 6 % of the connection"),
            "{text}"
        );
        for r in &cmp.rows {
            assert_eq!(r.fastest_own, r.fastest_paid);
        }
    }

    /// A `--ct` run: each browser's price with its CT share, Servo's like for like (both with
    /// CT), and what CT costs Servo, from the same samples with and without their `ct` stage.
    #[test]
    fn a_ct_run_says_what_each_browser_pays_and_what_ct_would_cost_servo() {
        let with_ct = |mut x: Sample, ct: u64| {
            x.stages.insert(Stage::Ct, ct);
            x.config.ct = Some("3 logs of test".into());
            x
        };
        let mut v = Vec::new();
        for (site, base) in [
            ("a.test", 100_000),
            ("b.test", 200_000),
            ("c.test", 300_000),
        ] {
            for k in 0..3 {
                // platform: 100 µs of CT on top of its path; chrome: 50 µs of CT.
                v.push(with_ct(
                    s(
                        "platform",
                        "replace",
                        site,
                        None,
                        base + 100_000 + k,
                        4_000_000,
                    ),
                    100_000,
                ));
                v.push(with_ct(
                    s(
                        "chrome",
                        "replace",
                        site,
                        None,
                        2 * base + 50_000 + k,
                        4_000_000,
                    ),
                    50_000,
                ));
                v.push(s("gnutls", "replace", site, None, 4 * base + k, 4_000_000));
            }
        }
        let cmp = build_comparison(&build_seed_tables(&v)).unwrap();
        let text = words(&answer(&cmp, None)).join("\n");
        check("comparison-answer-ct.md", &text);
        let pays = text
            .lines()
            .find(|l| l.starts_with("What each browser's verifier pays"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            pays.contains("chrome 450 µs (CT 50.0 µs of it; 3 sites)"),
            "{pays}"
        );
        assert!(
            pays.contains("gnutls 800 µs (no CT check; 3 sites)"),
            "{pays}"
        );
        // Like for like: each side named with what it checked, then the path alone.
        let shipped = text
            .lines()
            .find(|l| l.starts_with("With the checks this run gave each"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(
            shipped.contains("platform: CT; chrome: CT; gnutls: path only"),
            "{shipped}"
        );
        // Per site 200/250, 300/450, 400/650 (own costs with CT): median ×0.67.
        assert!(
            shipped.contains("platform ×0.67 of chrome's (3)"),
            "{shipped}"
        );
        let path = text
            .lines()
            .find(|l| l.starts_with("Path only:"))
            .unwrap_or_else(|| panic!("{text}"));
        // Less the `ct` stages: 100/200, 200/400, 300/600: ×0.50.
        assert!(path.contains("platform ×0.50 of chrome's (3)"), "{path}");
        let cost = text
            .lines()
            .find(|l| l.starts_with("Checking CT as Chrome does would cost Servo"))
            .unwrap_or_else(|| panic!("{text}"));
        // Per site 200/100, 300/200, 400/300: median ×1.50.
        assert!(
            cost.contains("platform ×1.50 (+100 µs per cold connection; 3 sites)"),
            "{cost}"
        );
    }
}
