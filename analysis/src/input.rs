//! What a result file holds, decided once from its content ([`Kind::of`]), and the report of
//! several files read together ([`Gathered`]): the driver's, `verify`'s and a patched Servo's
//! JSONL samples, and the JSON arrays `certbench handshake`, `page` and `bulk --format json`
//! write.
//!
//! A file whose first non-blank byte is not `[` is JSONL samples (each malformed line is a
//! [`ReadError`], the rest is read). An array is told by its first element's fields: `page`
//! for page loads, `mb_per_s` for bulk transfers, else handshake results (throughput or
//! `--hold` memory runs, [`crate::handshake::parse`]; an empty array is no handshake result).
//! `export::gathered` writes the report of them.

use crate::bulk::BulkResult;
use crate::export::Format;
use crate::export::html::Input;
use crate::handshake::Results;
use crate::page::PageLoad;
use certbench_schema::Hook;
use certbench_schema::io::{ReadError, read_jsonl};
use certbench_schema::{RunInfo, Sample};

/// The kinds of result file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// JSON lines of samples.
    Samples,
    /// `certbench page --format json`.
    Pages,
    /// `certbench bulk --format json`.
    Bulk,
    /// `certbench handshake --format json` (throughput or memory runs).
    Handshakes,
}

impl Kind {
    /// The kind of a file with these `bytes` (see the module's documentation).
    pub fn of(bytes: &[u8]) -> Kind {
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'[') {
            return Kind::Samples;
        }
        let first = serde_json::from_slice::<Vec<serde_json::Value>>(bytes)
            .ok()
            .and_then(|v| v.into_iter().next());
        let has = |field: &str| first.as_ref().is_some_and(|f| f.get(field).is_some());
        if has("page") {
            Kind::Pages
        } else if has("mb_per_s") {
            Kind::Bulk
        } else {
            Kind::Handshakes
        }
    }
}

/// One result file's contents.
#[derive(Debug)]
pub enum Contents {
    /// Samples, and the lines that could not be read.
    Samples(Vec<Sample>, Vec<ReadError>),
    /// Handshake throughput or memory results.
    Handshakes(Results),
    /// Page loads.
    Pages(Vec<PageLoad>),
    /// Bulk transfers.
    Bulk(Vec<BulkResult>),
}

/// A JSON array that is none of the result kinds.
#[derive(Debug, thiserror::Error)]
#[error("not `certbench handshake`, `page` or `bulk --format json` results: {0}")]
pub struct NotResults(serde_json::Error);

impl Contents {
    /// How many records (samples, runs, loads, transfers) it holds: 0 for an empty file, one
    /// of blank lines, or an empty array, which hold nothing to report.
    pub fn records(&self) -> usize {
        match self {
            Contents::Samples(s, _) => s.len(),
            Contents::Handshakes(r) => r.runs.len() + r.memory.len(),
            Contents::Pages(p) => p.len(),
            Contents::Bulk(b) => b.len(),
        }
    }

    /// Reads a file's `bytes` as its [`Kind`].
    pub fn read(bytes: &[u8]) -> Result<Contents, NotResults> {
        let text = || String::from_utf8_lossy(bytes);
        Ok(match Kind::of(bytes) {
            Kind::Samples => {
                let (samples, errors) = read_jsonl(bytes);
                Contents::Samples(samples, errors)
            }
            Kind::Pages => Contents::Pages(serde_json::from_str(&text()).map_err(NotResults)?),
            Kind::Bulk => Contents::Bulk(serde_json::from_str(&text()).map_err(NotResults)?),
            Kind::Handshakes => {
                Contents::Handshakes(crate::handshake::parse(&text()).map_err(NotResults)?)
            }
        })
    }
}

/// Files of different kinds asked for in CSV or JSON, which hold one kind per document.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} make {} documents: report them separately in {} (or together in markdown or with --html)",
    .kinds.join(" and "),
    .kinds.len(),
    if *.format == Format::Csv { "CSV" } else { "JSON" }
)]
pub struct MixedKinds {
    /// The kinds present.
    pub kinds: Vec<&'static str>,
    /// The format asked for.
    pub format: Format,
}

/// Every file of a report, read and merged.
#[derive(Debug, Default)]
pub struct Gathered {
    /// Every file's samples.
    pub samples: Vec<Sample>,
    /// Every file's handshake results.
    pub handshakes: Results,
    /// Every file's page loads.
    pub pages: Vec<PageLoad>,
    /// Every file's bulk transfers.
    pub bulk: Vec<BulkResult>,
    /// The files, in order.
    pub inputs: Vec<Input>,
    /// Malformed lines, and files that are not results.
    pub bad: usize,
}

impl Gathered {
    /// Adds the file `name` (with its run header `run`): its `contents`, or one bad input
    /// when it is not results.
    pub fn add(
        &mut self,
        name: String,
        contents: Result<Contents, NotResults>,
        run: Option<RunInfo>,
    ) {
        let (samples, errors, results) = match contents {
            Ok(Contents::Samples(s, errors)) => (s, errors.len(), 0),
            Ok(Contents::Handshakes(r)) => {
                let n = r.runs.len() + r.memory.len();
                self.handshakes.extend(r);
                (Vec::new(), 0, n)
            }
            Ok(Contents::Pages(p)) => {
                let n = p.len();
                self.pages.extend(p);
                (Vec::new(), 0, n)
            }
            Ok(Contents::Bulk(b)) => {
                let n = b.len();
                self.bulk.extend(b);
                (Vec::new(), 0, n)
            }
            Err(_) => (Vec::new(), 1, 0),
        };
        self.bad += errors;
        self.inputs.push(Input {
            name,
            samples: samples.len(),
            results,
            bad_lines: errors,
            run,
        });
        self.samples.extend(samples);
    }

    /// The command that measures the other hook, for the answer: `None` when the samples
    /// already hold both the callback and the replace hook, else that of the first input
    /// whose run header names a driver run.
    pub fn other_hook(&self) -> Option<String> {
        let has = |h: Hook| {
            (self.samples.iter()).any(|s| s.config.hook.as_ref().is_some_and(|n| *n == h))
        };
        if has(Hook::Callback) && has(Hook::Replace) {
            return None;
        }
        (self.inputs.iter())
            .filter_map(|i| i.run.as_ref())
            .find_map(|r| r.other_hook.clone())
    }

    /// The files' names, joined.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.inputs.iter().map(|i| i.name.as_str()).collect();
        names.join(", ")
    }

    /// The kinds of result present, named.
    pub fn kinds(&self) -> Vec<&'static str> {
        let kinds = [
            (!self.samples.is_empty(), "samples"),
            (
                !self.handshakes.runs.is_empty(),
                "handshake throughput results",
            ),
            (
                !self.handshakes.memory.is_empty(),
                "memory (--hold) results",
            ),
            (!self.pages.is_empty(), "page loads"),
            (!self.bulk.is_empty(), "bulk transfers"),
        ];
        kinds.iter().filter(|k| k.0).map(|k| k.1).collect()
    }
}
