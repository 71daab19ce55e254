//! How a set of chains is named in rows and sentences: its key, `<profile> (<scenario>)`
//! ([`set_key`], read back by [`split_key`]), and its label (`ML-DSA-44 (trimmed, ML-DSA
//! SCTs)`: [`profile_label`]).
//!
//! Invariant: a key without a scenario is the profile's name alone (today's chains, and every
//! sample written before scenarios), so such rows read as they always did.

use certbench_schema::Scenario;

/// A sample's set of chains as rows key it: its profile, and its scenario when it has one
/// (`mldsa44 (pq-scts, trimmed)`).
pub fn set_key(profile: &str, scenario: Option<&Scenario>) -> String {
    match scenario {
        Some(s) => format!("{profile} ({s})"),
        None => profile.to_owned(),
    }
}

/// A set's key split into its profile and scenario (`None`: no scenario, or one this version
/// cannot read, kept in the profile).
pub fn split_key(key: &str) -> (&str, Option<Scenario>) {
    match key.split_once(" (") {
        Some((profile, rest)) => match rest.strip_suffix(')').map(str::parse::<Scenario>) {
            Some(Ok(s)) => (profile, Some(s)),
            _ => (key, None),
        },
        None => (key, None),
    }
}

/// `ML-DSA-44` for `mldsa44`, the profile's own name otherwise; a set's scenario in words
/// after it (`ML-DSA-44 (trimmed, ML-DSA SCTs)`).
pub fn profile_label(key: &str) -> String {
    match split_key(key) {
        (profile, Some(s)) => format!("{} ({})", base_label(profile), s.words()),
        (profile, None) => base_label(profile),
    }
}

fn base_label(profile: &str) -> String {
    match profile.strip_prefix("mldsa") {
        Some(level) => format!("ML-DSA-{level}"),
        None if profile == "mixed" => "mixed (ML-DSA-44 leaf, ML-DSA-65 CAs)".to_owned(),
        None if profile == "mtc" => {
            "MTC (Merkle Tree Certificates: an ML-DSA-44 leaf, landmark-relative)".to_owned()
        }
        None => profile.to_owned(),
    }
}
