//! How a [`Config`] is shown: which of its fields belong to the run and which to the method,
//! each field's label, and the labels that tell one configuration apart from the others shown
//! with it. Presentation only: the schema ([`certbench_schema`]) holds the data.

use certbench_schema::Config;

/// How one [`Config`] field is shown, and whether it belongs to the run (the same for every
/// method of a run) or to the method (hook, policy and versions differ by method within one
/// run: `openssl` is `native`, a webpki method `callback`).
struct Field {
    of_run: bool,
    show: fn(&Config) -> String,
}

const FIELDS: [Field; 12] = [
    Field {
        of_run: true,
        show: |c| {
            c.transport
                .as_ref()
                .map_or("no transport".into(), |t| format!("over {t}"))
        },
    },
    Field {
        of_run: false,
        show: |c| {
            c.hook
                .as_ref()
                .map_or(String::new(), |h| format!("hook {h}"))
        },
    },
    Field {
        of_run: true,
        show: |c| {
            if c.resumption {
                "resumption"
            } else {
                "full handshakes"
            }
            .into()
        },
    },
    Field {
        of_run: true,
        show: |c| {
            if c.cache_roots {
                "cached roots"
            } else {
                "roots per use"
            }
            .into()
        },
    },
    Field {
        of_run: true,
        show: |c| {
            c.roots
                .as_ref()
                .map_or("roots —".into(), |r| format!("roots {r}"))
        },
    },
    Field {
        of_run: true,
        show: |c| match c.extra_intermediates {
            0 => String::new(),
            n => format!("+{n} untrusted intermediates"),
        },
    },
    Field {
        of_run: true,
        show: |c| {
            c.link
                .as_ref()
                .map_or(String::new(), |l| format!("link {l}"))
        },
    },
    // `--ct`: per method, since a method without a CT check has none in a `--ct` run.
    Field {
        of_run: false,
        show: |c| {
            c.ct.as_ref()
                .map_or(String::new(), |logs| format!("CT checked ({logs})"))
        },
    },
    // The chains' profile in a `--pq` run: shown with each table, since one run measures
    // every method on today's chains and on their twins.
    Field {
        of_run: false,
        show: |c| {
            c.profile.as_ref().map_or(String::new(), |p| {
                format!(
                    "{} chains",
                    crate::pq::set_key(p.as_str(), c.scenario.as_ref())
                )
            })
        },
    },
    // `--compress-certs`: its samples are a configuration of their own.
    Field {
        of_run: true,
        show: |c| {
            c.compression
                .as_ref()
                .map_or(String::new(), |a| format!("certificates compressed ({a})"))
        },
    },
    Field {
        of_run: false,
        show: |c| {
            c.openssl_policy
                .as_ref()
                .map_or("no OpenSSL policy".into(), |p| {
                    format!("OpenSSL policy {p}")
                })
        },
    },
    Field {
        of_run: false,
        show: |c| {
            c.versions
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        },
    },
];

/// How a [`Config`] is labelled: the schema's type, described here (presentation stays out of
/// the schema crate). Import it to call these on a configuration.
pub trait Describe {
    /// What tells this configuration (of a table of `method`) apart from the others shown
    /// with it; see the implementation.
    fn distinguishing(&self, method: &str, all: &[(&str, &Config)]) -> String;

    /// The run's fields (transport, resumption, cached roots, roots), for a report's header.
    fn describe_run(&self) -> String;

    /// The method's fields (hook, OpenSSL policy, versions), for a table's title.
    fn describe_method(&self) -> String;
}

impl Describe for Config {
    /// What tells this configuration (of a table of `method`) apart from the others shown
    /// with it, e.g. `hook replace` or `over rustls`; empty when nothing does. `all` holds
    /// every (method, configuration) shown. The run's fields (transport, resumption, roots)
    /// are compared with every table; the method's own (hook, OpenSSL policy, versions) only
    /// with the tables of the same method, since they differ by method within one run.
    fn distinguishing(&self, method: &str, all: &[(&str, &Config)]) -> String {
        // The method's fields, in order, until the label tells this configuration apart from
        // every other of the same method (the policy follows from the hook, say).
        let mut rivals: Vec<&Config> = all
            .iter()
            .filter(|(m, _)| *m == method)
            .map(|(_, c)| *c)
            .collect();
        let mut parts = Vec::new();
        for f in &FIELDS {
            let mine = (f.show)(self);
            let differs = if f.of_run {
                all.iter().any(|(_, c)| (f.show)(c) != mine)
            } else {
                rivals.iter().any(|c| (f.show)(c) != mine)
            };
            if differs {
                if !f.of_run {
                    rivals.retain(|c| (f.show)(c) == mine);
                }
                if !mine.is_empty() {
                    parts.push(mine);
                }
            }
        }
        parts.join(", ")
    }

    fn describe_run(&self) -> String {
        describe(self, true)
    }

    fn describe_method(&self) -> String {
        describe(self, false)
    }
}

/// The labels of `c`'s run fields (`of_run`) or of its method's, joined.
fn describe(c: &Config, of_run: bool) -> String {
    FIELDS
        .iter()
        .filter(|f| f.of_run == of_run)
        .map(|f| (f.show)(c))
        .filter(|v| !v.is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}
