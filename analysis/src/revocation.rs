//! What revocation costs, per method and mechanism, cold and warm (`--revocation`): the
//! `revocation` stage of the measured samples (warm: the data already loaded), the data's one
//! load per process (`revocation-load`, in the sample that paid it, warm-up or not: it is paid
//! once, whichever sample it lands in), and the bytes each mechanism reads and keeps.
//!
//! Rows are keyed by method *and* configuration (the configuration names the mechanism and
//! its data), so two mechanisms are never averaged together. A figure over chains is the
//! median of the per-chain medians.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::schema::{Config, Sample, Stage};
use crate::stats::Summary;
use crate::units::human;

/// One method with one mechanism.
#[derive(Clone, Debug, Serialize)]
pub struct RevocationRow {
    /// The method.
    pub method: String,
    /// The mechanism (`crlset`, `crlite`, `upki`, `crl`, `ocsp`).
    pub mechanism: String,
    /// The configuration's description of the mechanism and its data.
    pub data: String,
    /// Chains measured.
    pub chains: usize,
    /// The `revocation` stage: median over chains of the per-chain medians, with the n of
    /// all measured samples.
    pub warm_ns: f64,
    /// Measured samples behind `warm_ns`.
    pub n: usize,
    /// The whole own cost (chain, CT, revocation, host) per warm connection, median over
    /// chains.
    pub own_ns: f64,
    /// The same samples' own cost without their `revocation` stage.
    pub own_without_ns: f64,
    /// `revocation-load`: the median over the processes' cold samples (one per process).
    pub load: Option<Summary>,
    /// Bytes of data read (the largest a sample reported).
    pub data_bytes: u64,
    /// Bytes kept in memory between checks.
    pub resident_bytes: u64,
    /// Samples per outcome (`good`, `revoked`, `soft-fail: no-data`, …).
    pub outcomes: BTreeMap<String, usize>,
}

/// Per chain: the `revocation` stage, the own cost, and the own cost without the stage.
type PerChain = (Vec<u64>, Vec<u64>, Vec<u64>);

fn median(v: &mut [f64]) -> f64 {
    crate::stats::middle(v).unwrap_or(0.0)
}

/// The rows of `samples` (those with a revocation check), in order of first appearance.
pub fn rows(samples: &[Sample]) -> Vec<RevocationRow> {
    type Key = (String, Config);
    let mut order: Vec<Key> = Vec::new();
    let mut by: BTreeMap<Key, Vec<&Sample>> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.meta.revocation.is_some()) {
        let key = (s.method.clone(), s.config.clone());
        if !by.contains_key(&key) {
            order.push(key.clone());
        }
        by.entry(key).or_default().push(s);
    }
    order
        .into_iter()
        .filter_map(|key| {
            let all = &by[&key];
            let first = all[0].meta.revocation.as_ref()?;
            let loads: Vec<u64> = all
                .iter()
                .filter_map(|s| s.stage(Stage::RevocationLoad))
                .collect();
            let measured: Vec<&&Sample> = all.iter().filter(|s| !s.warmup).collect();
            let mut per_chain: BTreeMap<String, PerChain> = BTreeMap::new();
            let mut outcomes = BTreeMap::new();
            for s in &measured {
                let r = s.meta.revocation.as_ref()?;
                let outcome = match &r.soft_fail {
                    Some(why) => format!("{}: {why}", r.status),
                    None => r.status.clone(),
                };
                *outcomes.entry(outcome).or_insert(0) += 1;
                let (Some(rev), Some(own)) = (s.stage(Stage::Revocation), s.own_cost()) else {
                    continue;
                };
                let chain = s.chain.clone().unwrap_or_else(|| s.site_id());
                let e = per_chain.entry(chain).or_default();
                e.0.push(rev);
                e.1.push(own);
                e.2.push(own.saturating_sub(rev));
            }
            let mid = |f: fn(&PerChain) -> &Vec<u64>| {
                let mut v: Vec<f64> = per_chain
                    .values()
                    .filter_map(|t| Summary::of(f(t)).map(|s| s.median))
                    .collect();
                median(&mut v)
            };
            Some(RevocationRow {
                method: key.0.clone(),
                mechanism: first.mechanism.clone(),
                data: key.1.revocation.clone().unwrap_or_default(),
                chains: per_chain.len(),
                warm_ns: mid(|t| &t.0),
                n: per_chain.values().map(|t| t.0.len()).sum(),
                own_ns: mid(|t| &t.1),
                own_without_ns: mid(|t| &t.2),
                load: Summary::of(&loads),
                data_bytes: all
                    .iter()
                    .filter_map(|s| Some(s.meta.revocation.as_ref()?.data_bytes))
                    .max()
                    .unwrap_or(0),
                resident_bytes: all
                    .iter()
                    .filter_map(|s| Some(s.meta.revocation.as_ref()?.resident_bytes))
                    .max()
                    .unwrap_or(0),
                outcomes,
            })
        })
        .collect()
}

/// Bytes for a table: `0 B`, `249.8 KB`, `6.1 MB`.
pub fn bytes(n: u64) -> String {
    match n {
        0 => "0 B".to_owned(),
        n if n < 1_000 => format!("{n} B"),
        n if n < 1_000_000 => format!("{:.1} KB", n as f64 / 1e3),
        n => format!("{:.1} MB", n as f64 / 1e6),
    }
}

/// The rows as a Markdown table.
pub fn markdown(rows: &[RevocationRow]) -> String {
    let mut out = String::from(
        "### Revocation, cold and warm\n\n\
         `revocation`: the check per connection, data loaded (median over chains of the per-chain medians; n measured samples). `revocation-load`: the data's one load per process (n processes). Bytes: the data read, and what stays resident between checks.\n\n\
         | method | mechanism | revocation (warm) | n | own cost with it | without it | revocation-load (cold, once) | data | resident | outcomes |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        let load = r.load.as_ref().map_or("—".to_owned(), |l| {
            format!("{} (n={})", human(l.median), l.n)
        });
        let outcomes: Vec<String> = r.outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.method,
            r.data,
            human(r.warm_ns),
            r.n,
            human(r.own_ns),
            human(r.own_without_ns),
            load,
            bytes(r.data_bytes),
            bytes(r.resident_bytes),
            outcomes.join(", ")
        ));
    }
    out
}

/// The browsers, and Servo's verifiers in the order their figure is taken.
const BROWSERS: [&str; 3] = ["chrome", "firefox", "gnutls"];
const SERVO: [&str; 4] = ["rustlsparallel", "webpki", "platform", "rustlsserial"];

/// What the mechanism is, for the answer.
fn mechanism_words(m: &str) -> &'static str {
    match m {
        "crlset" => "Chrome's CRLSet",
        "crlite" => "CRLite as Firefox checks it (clubcard-crlite, the filter in memory)",
        "upki" => "CRLite through upki (its files read per check)",
        "crl" => "CRLs as rustls-webpki checks them",
        "ocsp" => "A stapled OCSP response",
        _ => "This mechanism",
    }
}

/// The load of `mechanism`'s data: once per process for every method that checks with it, so
/// the mechanism's, whichever method's sample paid it.
fn load_of<'r>(rows: &'r [RevocationRow], mechanism: &str) -> Option<&'r Summary> {
    rows.iter()
        .filter(|r| r.mechanism == mechanism)
        .find_map(|r| r.load.as_ref())
}

/// The answer's lines: what each browser pays per warm and cold connection, and what each
/// mechanism would cost Servo.
pub fn answer(rows: &[RevocationRow]) -> Vec<String> {
    let mut lines = Vec::new();
    let browsers: Vec<String> = BROWSERS
        .iter()
        .filter_map(|b| rows.iter().find(|r| r.method == *b))
        .map(|r| {
            let cold = load_of(rows, &r.mechanism).map_or(String::new(), |l| {
                format!(
                    ", cold {} (+{} once)",
                    human(r.own_ns + l.median),
                    human(l.median)
                )
            });
            format!(
                "{} ({}) warm {}{cold}, of which revocation {}",
                r.method,
                r.mechanism,
                human(r.own_ns),
                human(r.warm_ns)
            )
        })
        .collect();
    if !browsers.is_empty() {
        lines.push(format!(
            "What each browser pays per connection with revocation (chain + CT + revocation + host, median over chains): {}.",
            browsers.join("; ")
        ));
    }
    let mut mechanisms: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| SERVO.contains(&r.method.as_str())) {
        if !mechanisms.contains(&r.mechanism.as_str()) {
            mechanisms.push(&r.mechanism);
        }
    }
    for m in mechanisms {
        let Some(r) = SERVO
            .iter()
            .find_map(|s| rows.iter().find(|r| r.method == *s && r.mechanism == m))
        else {
            continue;
        };
        let once = match load_of(rows, m) {
            Some(l) => format!(
                ", plus {} and {} resident once per process",
                human(l.median),
                bytes(r.resident_bytes)
            ),
            None => String::new(),
        };
        let found: Vec<String> = r.outcomes.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let answered = |k: &str| r.outcomes.get(k).copied().unwrap_or(0);
        if answered("good") + answered("revoked") == 0 {
            // No check had data to answer with (no CRL of these chains' issuers, no staple but
            // a revoked one's): a price would be the cost of finding none.
            lines.push(format!(
                "{}: no check on these chains had data to answer with ({}: {}), so no price for Servo here.",
                mechanism_words(m),
                r.method,
                found.join(", ")
            ));
            continue;
        }
        lines.push(format!(
            "{} would cost Servo +{} per connection ({}: own cost ×{:.2}; {} chains; checks: {}){once}.",
            mechanism_words(m),
            human(r.warm_ns),
            r.method,
            r.own_ns / r.own_without_ns.max(1.0),
            r.chains,
            found.join(", ")
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{RevocationOutcome, SampleMeta, Source, Verdict};

    /// A `verify` sample of `method` on `chain` with mechanism `mechanism`: its own cost,
    /// its `revocation` stage, what the check found, and a load when `load` is given.
    fn s(
        method: &str,
        mechanism: &str,
        chain: &str,
        own: u64,
        rev: u64,
        status: &str,
        load: Option<u64>,
    ) -> Sample {
        let mut stages: BTreeMap<Stage, u64> =
            [(Stage::TotalVerification, own), (Stage::Revocation, rev)].into();
        if let Some(l) = load {
            stages.insert(Stage::RevocationLoad, l);
        }
        let (status, soft_fail) = match status.split_once(':') {
            Some((s, why)) => (s.to_owned(), Some(why.to_owned())),
            None => (status.to_owned(), None),
        };
        Sample {
            schema: crate::schema::SCHEMA_VERSION,
            source: Source::Verify,
            method: method.into(),
            config: Config {
                revocation: Some(format!("{mechanism}: 9.0 MB of test data")),
                ..Config::default()
            },
            site: chain.into(),
            port: None,
            path: None,
            chain: Some(chain.into()),
            run: 0,
            warmup: false,
            stages,
            verdict: Verdict::Ok,
            meta: SampleMeta {
                revocation: Some(RevocationOutcome {
                    mechanism: mechanism.into(),
                    status,
                    soft_fail,
                    depth: None,
                    data_bytes: 9_000_000,
                    resident_bytes: 9_100_000,
                    cold: load.is_some(),
                }),
                ..SampleMeta::default()
            },
        }
    }

    #[test]
    fn rows_per_method_and_mechanism_and_the_answer_prices_only_checks_that_had_data() {
        let samples = vec![
            // The browser's load is the mechanism's, whichever method paid it.
            s(
                "rustlsparallel",
                "crlite",
                "a",
                100_000,
                4_000,
                "good",
                Some(6_000_000),
            ),
            s(
                "rustlsparallel",
                "crlite",
                "b",
                120_000,
                6_000,
                "revoked",
                None,
            ),
            s("firefox", "crlite", "a", 900_000, 9_000, "good", None),
            s(
                "rustlsparallel",
                "crl",
                "a",
                100_000,
                30,
                "soft-fail:no-data",
                None,
            ),
        ];
        let rows = rows(&samples);
        assert_eq!(rows.len(), 3, "{rows:?}");
        let crlite = &rows[0];
        assert_eq!(
            (crlite.method.as_str(), crlite.mechanism.as_str()),
            ("rustlsparallel", "crlite")
        );
        assert_eq!((crlite.chains, crlite.n), (2, 2));
        assert_eq!(crlite.warm_ns, 5_000.0);
        assert_eq!(crlite.own_without_ns, 105_000.0);
        assert_eq!(crlite.load.as_ref().map(|l| l.median), Some(6_000_000.0));
        let answer = answer(&rows);
        assert!(
            answer[0].contains("firefox (crlite) warm 900 µs, cold 6.90 ms (+6.00 ms once)"),
            "{answer:?}"
        );
        assert!(
            answer[1].starts_with("CRLite as Firefox checks it"),
            "{answer:?}"
        );
        assert!(answer[1].contains("+5.00 µs per connection"), "{answer:?}");
        assert!(
            answer[1].contains("plus 6.00 ms and 9.1 MB resident once per process"),
            "{answer:?}"
        );
        assert!(
            answer[2].contains("no check on these chains had data"),
            "{answer:?}"
        );
        assert!(!answer[2].contains("would cost"), "{answer:?}");
        crate::export::golden::check("revocation.md", &markdown(&rows));
        crate::export::golden::check("revocation-answer.md", &answer.join("\n"));
    }
}
