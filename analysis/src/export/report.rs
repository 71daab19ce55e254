//! The [`Report`]: what every exporter renders — the seed tables of a set of samples, their
//! run-level configurations, and (two methods or more) the comparison and its answer.

use serde::{Serialize, Serializer};

use crate::answer::{Answers, answer, fastest};
use crate::comparison::{Comparison, build_comparison};
use crate::describe::Describe;
use crate::pq::{CLASSICAL, PqSummary, summarize};
use crate::revocation::RevocationRow;
use crate::table::{SeedTable, build_seed_tables};
use certbench_schema::Sample;

/// Everything a run prints: the seed tables and, with two or more methods, the comparison
/// and its answer.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The run-level configurations of the tables ([`certbench_schema::Config::describe_run`]),
    /// each once.
    pub configs: Vec<String>,
    /// One table per method and configuration.
    pub tables: Vec<SeedTable>,
    /// Per site, the methods' own cost and the 2017 view.
    pub comparison: Option<Comparison>,
    /// The plain answer ([`answer`]), when there is a comparison; in a `--pq` run, the
    /// comparison's on today's chains, then the twins' ([`PqSummary::answer`]). Its figures;
    /// JSON holds its lines, as the markdown words them.
    #[serde(serialize_with = "answer_lines")]
    pub answer: Answers,
    /// A `--pq` run's twins against today's chains.
    pub pq: Option<PqSummary>,
    /// With `--revocation`: per method and mechanism, the `revocation` stage warm and the
    /// data's `revocation-load` cold ([`crate::revocation::rows`]); empty without.
    pub revocation: Vec<RevocationRow>,
    /// A patched Servo's samples: per group, verification per connection and per page load
    /// ([`crate::servo_report`]); empty without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub servo: Vec<crate::servo_report::GroupFigures>,
}

impl Report {
    /// Builds the tables from samples (warm-up samples are left out) and compares the
    /// methods. Tables of the methods named in `method_order` come first, in that order; any
    /// other method follows in order of first appearance. `other_hook` is the command that
    /// measures the other hook, for the answer's last line.
    pub fn from_samples(
        samples: &[Sample],
        method_order: &[&str],
        other_hook: Option<&str>,
    ) -> Report {
        let mut tables = build_seed_tables(samples);
        let rank = |t: &SeedTable| {
            method_order
                .iter()
                .position(|m| *m == t.method)
                .unwrap_or(method_order.len())
        };
        tables.sort_by_key(rank); // stable: unnamed methods keep their order
        // In a `--pq` run the methods are compared on today's chains; the twins have their
        // own summary, as ratios to today's per method and site.
        let pq = summarize(samples);
        let mut today: Vec<SeedTable> = (tables.iter())
            .filter(|t| {
                t.config
                    .profile
                    .as_ref()
                    .is_none_or(|p| p.as_str() == CLASSICAL)
            })
            .cloned()
            .collect();
        if pq.is_some() {
            // Among today's chains alone, the profile tells no table apart.
            let configs: Vec<(String, certbench_schema::Config)> = (today.iter())
                .map(|t| (t.method.clone(), t.config.clone()))
                .collect();
            let all: Vec<(&str, &certbench_schema::Config)> =
                configs.iter().map(|(m, c)| (m.as_str(), c)).collect();
            for t in &mut today {
                t.config_label = t.config.distinguishing(&t.method, &all);
            }
        }
        let comparison = build_comparison(&today);
        let revocation = crate::revocation::rows(samples);
        let mut answer = Answers {
            comparison: (comparison.as_ref())
                .map(|c| self::answer(c, if pq.is_some() { None } else { other_hook })),
            pq: None,
        };
        if let Some(a) = &mut answer.comparison {
            // The line under the browsers' comparison says what the methods checked.
            a.revocation = !revocation.is_empty();
        }
        if let Some(pq) = &pq {
            let fastest = comparison.as_ref().map(fastest);
            answer.pq = Some(pq.answer(fastest.as_deref()));
        }
        let mut configs: Vec<String> = Vec::new();
        for t in &tables {
            let d = t.config.describe_run();
            if !configs.contains(&d) {
                configs.push(d);
            }
        }
        Report {
            configs,
            tables,
            comparison,
            answer,
            pq,
            revocation,
            servo: crate::servo_report::report(samples).unwrap_or_default(),
        }
    }
}

/// The answer's lines, as JSON holds them.
fn answer_lines<S: Serializer>(answer: &Answers, s: S) -> Result<S::Ok, S::Error> {
    super::markdown::answer::lines(answer).serialize(s)
}
