//! What revocation costs, per method and mechanism, cold and warm (`--revocation`): the
//! `revocation` stage of the measured samples (warm: the data already loaded), the data's one
//! load per process (`revocation-load`, in the sample that paid it, warm-up or not: it is paid
//! once, whichever sample it lands in), and the bytes each mechanism reads and keeps.
//!
//! Rows are keyed by method *and* configuration (the configuration names the mechanism and
//! its data), so two mechanisms are never averaged together. A figure over chains is the
//! median of the per-chain medians. `export::markdown::revocation` writes the rows and the
//! answer.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::stats::{Spread, Summary};
use certbench_schema::{Config, Mechanism, Named, Sample, Stage, Status};

/// One method with one mechanism.
#[derive(Clone, Debug, Serialize)]
pub struct RevocationRow {
    /// The method.
    pub method: String,
    /// The mechanism (`crlset`, `crlite`, `upki`, `crl`, `ocsp`).
    pub mechanism: Named<Mechanism>,
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
    /// Samples whose check had data to answer with (`good` or `revoked`).
    #[serde(skip)]
    pub answered: usize,
}

/// Per chain: the `revocation` stage, the own cost, and the own cost without the stage.
type PerChain = (Vec<u64>, Vec<u64>, Vec<u64>);

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
            let mut answered = 0;
            for s in &measured {
                let r = s.meta.revocation.as_ref()?;
                let outcome = r.status.to_string();
                answered += usize::from(!matches!(r.status, Status::SoftFail(_)));
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
                let medians = per_chain.values().filter_map(|t| Summary::of(f(t)));
                Spread::median_of(medians.map(|s| s.median)).unwrap_or(0.0)
            };
            Some(RevocationRow {
                method: key.0.clone(),
                mechanism: first.mechanism.clone(),
                data: key.1.revocation.as_deref().unwrap_or_default().to_owned(),
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
                answered,
            })
        })
        .collect()
}

/// The browsers, and Servo's verifiers in the order their figure is taken.
pub const BROWSERS: [&str; 3] = ["chrome", "firefox", "gnutls"];
const SERVO: [&str; 4] = ["rustlsparallel", "webpki", "platform", "rustlsserial"];

/// The load of `mechanism`'s data: once per process for every method that checks with it, so
/// the mechanism's, whichever method's sample paid it.
fn load_of<'r>(rows: &'r [RevocationRow], mechanism: &Named<Mechanism>) -> Option<&'r Summary> {
    rows.iter()
        .filter(|r| r.mechanism == *mechanism)
        .find_map(|r| r.load.as_ref())
}

/// What a browser pays per connection with revocation.
#[derive(Clone, Debug, PartialEq)]
pub struct BrowserRevocation {
    /// The browser's method.
    pub method: String,
    /// Its mechanism.
    pub mechanism: Named<Mechanism>,
    /// Its own cost per warm connection, nanoseconds.
    pub own_ns: f64,
    /// Of which the revocation check.
    pub warm_ns: f64,
    /// Its mechanism's data load, once per process, when measured.
    pub load_ns: Option<f64>,
}

/// What one mechanism would cost Servo, by the first of Servo's verifiers that checked with
/// it.
#[derive(Clone, Debug, PartialEq)]
pub struct MechanismCost {
    /// The mechanism.
    pub mechanism: Named<Mechanism>,
    /// The verifier whose figures these are.
    pub method: String,
    /// The check per connection, nanoseconds.
    pub warm_ns: f64,
    /// Own cost with the check ÷ without it.
    pub ratio: f64,
    /// Chains measured.
    pub chains: usize,
    /// Samples per outcome.
    pub outcomes: Vec<(String, usize)>,
    /// The data's load and resident bytes, once per process, when measured.
    pub once: Option<(f64, u64)>,
    /// Whether any check had data to answer with (`good` or `revoked`): without, a price
    /// would be the cost of finding none.
    pub answered: bool,
}

/// The revocation answer's figures.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RevocationAnswer {
    /// The browsers in the run, in [`BROWSERS`] order.
    pub browsers: Vec<BrowserRevocation>,
    /// Each mechanism Servo's verifiers checked with, in order of first appearance.
    pub mechanisms: Vec<MechanismCost>,
}

/// The answer's figures: what each browser pays per warm and cold connection, and what each
/// mechanism would cost Servo.
pub fn answer(rows: &[RevocationRow]) -> RevocationAnswer {
    let browsers = BROWSERS
        .iter()
        .filter_map(|b| rows.iter().find(|r| r.method == *b))
        .map(|r| BrowserRevocation {
            method: r.method.clone(),
            mechanism: r.mechanism.clone(),
            own_ns: r.own_ns,
            warm_ns: r.warm_ns,
            load_ns: load_of(rows, &r.mechanism).map(|l| l.median),
        })
        .collect();
    let mut names: Vec<&Named<Mechanism>> = Vec::new();
    for r in rows.iter().filter(|r| SERVO.contains(&r.method.as_str())) {
        if !names.contains(&&r.mechanism) {
            names.push(&r.mechanism);
        }
    }
    let mechanisms = (names.into_iter())
        .filter_map(|m| {
            let r = SERVO
                .iter()
                .find_map(|s| rows.iter().find(|r| r.method == *s && r.mechanism == *m))?;
            Some(MechanismCost {
                mechanism: m.clone(),
                method: r.method.clone(),
                warm_ns: r.warm_ns,
                ratio: r.own_ns / r.own_without_ns.max(1.0),
                chains: r.chains,
                outcomes: r.outcomes.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                once: load_of(rows, m).map(|l| (l.median, r.resident_bytes)),
                answered: r.answered > 0,
            })
        })
        .collect();
    RevocationAnswer {
        browsers,
        mechanisms,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use certbench_schema::{RevocationOutcome, SampleMeta, Source, Status, Verdict};

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
        let status = match status.split_once(':') {
            Some((_, why)) => Status::SoftFail(why.parse().unwrap()),
            None if status == "revoked" => Status::Revoked { depth: 0 },
            None => Status::Good,
        };
        Sample {
            schema: certbench_schema::SCHEMA_VERSION,
            source: Source::Verify,
            method: method.into(),
            config: Config {
                revocation: Some(format!("{mechanism}: 9.0 MB of test data").into()),
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
                    data_bytes: 9_000_000,
                    resident_bytes: 9_100_000,
                    cold: load.is_some(),
                }),
                ..SampleMeta::default()
            },
        }
    }

    /// Firefox and rustlsparallel with CRLite (one load of 6 ms), rustlsparallel with CRLs
    /// that had no data.
    pub(crate) fn fixture() -> Vec<RevocationRow> {
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
        rows(&samples)
    }

    #[test]
    fn rows_per_method_and_mechanism_and_the_answer_prices_only_checks_that_had_data() {
        let rows = fixture();
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
        assert_eq!(answer.browsers.len(), 1);
        assert_eq!(answer.browsers[0].load_ns, Some(6e6));
        let crlite = &answer.mechanisms[0];
        assert_eq!(
            (crlite.warm_ns, crlite.once),
            (5_000.0, Some((6e6, 9_100_000)))
        );
        assert!(crlite.answered && !answer.mechanisms[1].answered);
    }
}
