//! What a driver run measured ([`RunSpec`]): the options that decide what its samples
//! measure, typed, written in its run header (`RunInfo::spec`) and compared field by field
//! by `--resume` ([`RunSpec::differences`]), so that the two parts of a resumed run are one
//! experiment.
//!
//! Sites, methods and run counts are not in it: those only add or leave out rows and samples,
//! and every row shows its n. Each field is named by [`Field`], whose [`Field::name`] is the
//! name of the option that sets it, as the user types it without its leading dashes — the
//! one table those names come from (the CLI writes them as options).
//!
//! In the header, a field that does not apply is left out, and each typed value is stored by
//! its name (`"openssl"`, `"callback"`, `"mldsa44"`, `"crlite"`, `"mozilla"` or the roots
//! file's path), so the header reads as the command line did. A header written before this spec has only the (flag, value) pairs
//! of `measured_with`; [`Field::from_flag`] reads those back into fields, so such a run
//! resumes (or is refused) as it was.

use std::path::PathBuf;

use certbench_core::revocation::Mechanism;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::pq::Profile;
use crate::pq::scenario::Scenario;
use certbench_core::roots::RootsSpec;
use certbench_schema::Hook;
use certbench_schema::Transport;

/// What a driver run measured: every option that changes what one of its samples measures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSpec {
    /// The TLS stack (`transport`).
    pub stack: Transport,
    /// How webpki methods enter OpenSSL: only for the OpenSSL stack, `None` over rustls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<Hook>,
    /// The sites served by the loopback mirror.
    pub mirror: bool,
    /// Each (site, method)'s previous TLS session offered again.
    pub resumption: bool,
    /// The trust roots asked for (the mirror's are added to them when it serves).
    #[serde(with = "roots")]
    pub roots: RootsSpec,
    /// Each method's store built once and reused.
    pub cache_roots: bool,
    /// `--resolve`'s entries, sorted (their order does not change a sample).
    pub resolve: Vec<String>,
    /// Sites measured at once.
    pub concurrency: usize,
    /// The post-quantum profiles measured beside today's chains (empty without them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pq: Vec<Profile>,
    /// The scenarios each post-quantum profile's twins were made under (empty without `--pq`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scenarios: Vec<Scenario>,
    /// The emulated link in front of the mirror, as its model describes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// No method checks CT or revocation (`--path-only`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub path_only: bool,
    /// Servo's methods check CT too (`--ct`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ct_added: bool,
    /// The CT log list the methods that check CT check against, by its label (its size and
    /// origin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ct: Option<String>,
    /// The revocation data the methods that check revocation check against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation: Option<RevocationSpec>,
    /// The certificate compression offered and served (`--compress-certs`), by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compress_certs: Option<String>,
}

/// The revocation data a run checks against: the mechanism `--revocation` gives Servo's
/// methods (none: only the browsers' methods check, with their own) and where the data came
/// from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevocationSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mechanism: Option<Mechanism>,
    pub origin: String,
}

/// One field of a [`RunSpec`], in the order a difference is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Transport,
    Mirror,
    TlsResumption,
    Roots,
    CacheRoots,
    Resolve,
    Concurrency,
    Pq,
    Scenarios,
    Link,
    PathOnly,
    Ct,
    Revocation,
    Hook,
    CompressCerts,
}

impl Field {
    /// Every field, in [`RunSpec::fields`]' order.
    pub const ALL: [Field; 15] = [
        Field::Transport,
        Field::Mirror,
        Field::TlsResumption,
        Field::Roots,
        Field::CacheRoots,
        Field::Resolve,
        Field::Concurrency,
        Field::Pq,
        Field::Scenarios,
        Field::Link,
        Field::PathOnly,
        Field::Ct,
        Field::Revocation,
        Field::Hook,
        Field::CompressCerts,
    ];

    /// The name of the option that sets the field, without its leading dashes.
    pub fn name(self) -> &'static str {
        match self {
            Field::Transport => "transport",
            Field::Mirror => "mirror",
            Field::TlsResumption => "tls-resumption",
            Field::Roots => "roots",
            Field::CacheRoots => "cache-roots",
            Field::Resolve => "resolve",
            Field::Concurrency => "concurrency",
            Field::Pq => "pq",
            Field::Scenarios => "scenarios",
            Field::Link => "link",
            Field::PathOnly => "path-only",
            Field::Ct => "ct",
            Field::Revocation => "revocation",
            Field::Hook => "hook",
            Field::CompressCerts => "compress-certs",
        }
    }

    /// The field an older header's flag names (`measured_with`), if any.
    pub fn from_flag(flag: &str) -> Option<Field> {
        let name = flag.trim_start_matches('-');
        Field::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// One field that differs between two runs: its value in each, as the run's own words
/// (`None`: the field does not apply to that run, e.g. `hook` over rustls).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub field: Field,
    pub was: Option<String>,
    pub now: Option<String>,
}

impl RunSpec {
    /// Every field that applies to this run, with its value in the run's own words (as the
    /// headers before this spec wrote them): a field that does not apply (no `--pq`, no
    /// `--link`, no `--ct`, no `--revocation`, `hook` over rustls) is left out, so that a
    /// run begun without it, or by a certbench without it, resumes.
    pub fn fields(&self) -> Vec<(Field, String)> {
        let mut resolve = self.resolve.clone();
        resolve.sort();
        let names: Vec<&str> = self.pq.iter().map(|p| p.name()).collect();
        let mut v = vec![
            (Field::Transport, self.stack.name().to_owned()),
            (Field::Mirror, self.mirror.to_string()),
            (Field::TlsResumption, self.resumption.to_string()),
            (Field::Roots, format!("{:?}", self.roots)),
            (Field::CacheRoots, self.cache_roots.to_string()),
            (Field::Resolve, resolve.join(",")),
            (Field::Concurrency, self.concurrency.to_string()),
        ];
        if !names.is_empty() {
            v.push((Field::Pq, names.join(",")));
        }
        if !self.scenarios.is_empty() {
            let scenarios: Vec<String> = self.scenarios.iter().map(|s| s.to_string()).collect();
            v.push((Field::Scenarios, scenarios.join("; ")));
        }
        if let Some(link) = &self.link {
            v.push((Field::Link, link.clone()));
        }
        if self.path_only {
            v.push((Field::PathOnly, true.to_string()));
        }
        if let Some(ct) = &self.ct {
            let added = if self.ct_added {
                ", Servo's methods too"
            } else {
                ""
            };
            v.push((Field::Ct, format!("{ct}{added}")));
        }
        if let Some(r) = &self.revocation {
            let mechanism = r
                .mechanism
                .map_or("the browsers' own".to_owned(), |m| m.to_string());
            v.push((Field::Revocation, format!("{mechanism} ({})", r.origin)));
        }
        if let Some(hook) = self.hook {
            v.push((Field::Hook, hook.name().to_owned()));
        }
        if let Some(alg) = &self.compress_certs {
            v.push((Field::CompressCerts, alg.clone()));
        }
        v
    }

    /// The fields in which `self` (this run) differs from `first` (the first part's, as its
    /// header stored them): first those `first` has, in its order, then those only this run
    /// has. Empty when the two measure the same.
    pub fn differences(&self, first: &[(Field, String)]) -> Vec<Difference> {
        let now = self.fields();
        let value = |fields: &[(Field, String)], f: Field| {
            (fields.iter())
                .find(|(g, _)| *g == f)
                .map(|(_, v)| v.clone())
        };
        let changed = (first.iter())
            .filter(|(f, was)| value(&now, *f).as_ref() != Some(was))
            .map(|(f, was)| Difference {
                field: *f,
                was: Some(was.clone()),
                now: value(&now, *f),
            });
        let added = (now.iter())
            .filter(|(f, _)| value(first, *f).is_none())
            .map(|(f, is)| Difference {
                field: *f,
                was: None,
                now: Some(is.clone()),
            });
        changed.chain(added).collect()
    }
}

/// The roots as the command line names them: `mozilla`, `system`, or the file's path.
mod roots {
    use super::*;
    pub fn serialize<S: Serializer>(v: &RootsSpec, s: S) -> Result<S::Ok, S::Error> {
        match v {
            RootsSpec::Mozilla => s.serialize_str("mozilla"),
            RootsSpec::System => s.serialize_str("system"),
            RootsSpec::File(path) => path.serialize(s),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<RootsSpec, D::Error> {
        let path = PathBuf::deserialize(d)?;
        Ok(match path.to_str() {
            Some("mozilla") => RootsSpec::Mozilla,
            Some("system") => RootsSpec::System,
            _ => RootsSpec::File(path),
        })
    }
}

/// A spec for tests: one run of `stack` (with `hook` over OpenSSL) and every other option at
/// its default; tests change what they need with `..RunSpec::plain(…)`.
#[cfg(test)]
impl RunSpec {
    pub(crate) fn plain(stack: Transport, hook: Hook) -> RunSpec {
        RunSpec {
            stack,
            hook: (stack == Transport::Openssl).then_some(hook),
            mirror: false,
            resumption: false,
            roots: RootsSpec::Mozilla,
            cache_roots: false,
            resolve: vec![],
            concurrency: 1,
            pq: vec![],
            scenarios: vec![],
            link: None,
            path_only: false,
            ct_added: false,
            ct: None,
            revocation: None,
            compress_certs: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RunSpec {
        RunSpec {
            mirror: true,
            roots: RootsSpec::File("my roots.pem".into()),
            resolve: vec!["b:443:127.0.0.1".into(), "a:443:127.0.0.1".into()],
            ct: Some("28 logs of mirror".into()),
            revocation: Some(RevocationSpec {
                mechanism: Some(Mechanism::Crlite),
                origin: "mirror".into(),
            }),
            ..RunSpec::plain(Transport::Openssl, Hook::Callback)
        }
    }

    #[test]
    fn a_spec_reads_back_as_written_with_its_values_by_name() {
        let json = serde_json::to_value(spec()).unwrap();
        assert_eq!(json["stack"], "openssl");
        assert_eq!(json["hook"], "callback");
        assert_eq!(json["roots"], "my roots.pem");
        assert_eq!(json["revocation"]["mechanism"], "crlite");
        assert_eq!(serde_json::from_value::<RunSpec>(json).unwrap(), spec());
        let rustls = RunSpec {
            stack: Transport::Rustls,
            hook: None,
            roots: RootsSpec::Mozilla,
            pq: vec![Profile::Classical, Profile::MlDsa44],
            scenarios: vec![],
            ..spec()
        };
        let back = serde_json::to_string(&rustls).unwrap();
        let bare = serde_json::to_value(RunSpec {
            pq: vec![],
            scenarios: vec![],
            ct: None,
            revocation: None,
            ..rustls.clone()
        })
        .unwrap();
        for absent in ["hook", "pq", "link", "ct", "revocation", "compress_certs"] {
            assert!(bare.get(absent).is_none(), "{absent} in {bare}");
        }
        assert_eq!(serde_json::from_str::<RunSpec>(&back).unwrap(), rustls);
        let bad = back.replace("\"rustls\"", "\"gnutls\"");
        assert!(serde_json::from_str::<RunSpec>(&bad).is_err());
    }

    #[test]
    fn fields_are_the_older_headers_words_and_differences_go_field_by_field() {
        let fields = spec().fields();
        let names: Vec<&str> = fields.iter().map(|(f, _)| f.name()).collect();
        assert_eq!(
            names.join(" "),
            "transport mirror tls-resumption roots cache-roots resolve concurrency ct revocation hook"
        );
        assert_eq!(fields[3].1, "File(\"my roots.pem\")");
        assert_eq!(fields[5].1, "a:443:127.0.0.1,b:443:127.0.0.1");
        assert_eq!(fields[8].1, "crlite (mirror)");
        assert!(spec().differences(&fields).is_empty());
        let now = RunSpec {
            stack: Transport::Rustls,
            hook: None,
            concurrency: 4,
            ..spec()
        };
        let told: Vec<(Field, Option<String>, Option<String>)> = (now.differences(&fields))
            .into_iter()
            .map(|d| (d.field, d.was, d.now))
            .collect();
        assert_eq!(
            told,
            [
                (
                    Field::Transport,
                    Some("openssl".into()),
                    Some("rustls".into())
                ),
                (Field::Concurrency, Some("1".into()), Some("4".into())),
                (Field::Hook, Some("callback".into()), None),
            ]
        );
        let back: Vec<(Field, String)> = (now.fields().iter())
            .map(|(f, v)| {
                (
                    Field::from_flag(&format!("--{}", f.name())).unwrap(),
                    v.clone(),
                )
            })
            .collect();
        assert_eq!(back, now.fields());
        assert_eq!(
            spec().differences(&back)[2],
            Difference {
                field: Field::Hook,
                was: None,
                now: Some("callback".into())
            }
        );
        assert_eq!(Field::from_flag("sites"), None);
    }
}
