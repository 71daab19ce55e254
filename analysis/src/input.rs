//! What a result file holds, read by its header ([`Contents::read`]), and the report of
//! several files read together ([`Gathered`]): the driver's, `verify`'s and a patched Servo's
//! JSONL samples, and every record file a command writes (schema/src/records): handshake
//! throughput and memory runs, page loads, bulk transfers, limbo results, captures,
//! instruction counts and revocation-scale reports.
//!
//! A record file starts with its `kind` and `schema` ([`Header::of`]); one an earlier
//! certbench wrote without them is told by its fields, as before. Anything else is JSONL
//! samples (each malformed line is a [`ReadError`], the rest is read). `export::gathered`
//! writes the report of them.

use crate::bulk::BulkResult;
use crate::capture::CaptureRun;
use crate::export::Format;
use crate::export::html::Input;
use crate::handshake::Results;
use crate::page::PageLoad;
use crate::revocation_scale::Report as ScaleReport;
use certbench_schema::Hook;
use certbench_schema::io::{ReadError, read_jsonl};
use certbench_schema::records::icount::Count;
use certbench_schema::records::limbo::LimboResult;
use certbench_schema::records::{self, Header, Kind};
use certbench_schema::{RunInfo, Sample};

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
    /// A harness's limbo results.
    Limbo(LimboResult),
    /// A capture's sites.
    Capture(CaptureRun),
    /// Instruction counts, each row's runs.
    Icount(Vec<Vec<Count>>),
    /// A revocation-scale run.
    RevocationScale(ScaleReport),
}

/// A record file that is not the shape its kind says.
#[derive(Debug, thiserror::Error)]
#[error("not a readable certbench result file: {0}")]
pub struct NotResults(records::ReadError);

impl Contents {
    /// How many records (samples, runs, loads, transfers, results, sites, rows) it holds: 0
    /// for an empty file, one of blank lines, or an empty list, which hold nothing to report.
    pub fn records(&self) -> usize {
        match self {
            Contents::Samples(s, _) => s.len(),
            Contents::Handshakes(r) => r.runs.len() + r.memory.len(),
            Contents::Pages(p) => p.len(),
            Contents::Bulk(b) => b.len(),
            Contents::Limbo(l) => l.results.len(),
            Contents::Capture(c) => c.rows.len(),
            Contents::Icount(rows) => rows.len(),
            Contents::RevocationScale(r) => r.rows.len(),
        }
    }

    /// Reads a file's `bytes` as the kind its header names (see the module's documentation).
    pub fn read(bytes: &[u8]) -> Result<Contents, NotResults> {
        let Some(header) = Header::of(bytes) else {
            let (samples, errors) = read_jsonl(bytes);
            return Ok(Contents::Samples(samples, errors));
        };
        let e = NotResults;
        Ok(match header.kind {
            Kind::Handshake => Contents::Handshakes(Results {
                runs: records::read_list(bytes).map_err(e)?,
                memory: Vec::new(),
            }),
            Kind::Memory => Contents::Handshakes(Results {
                runs: Vec::new(),
                memory: records::read_list(bytes).map_err(e)?,
            }),
            Kind::Page => Contents::Pages(records::read_list(bytes).map_err(e)?),
            Kind::Bulk => Contents::Bulk(records::read_list(bytes).map_err(e)?),
            Kind::Limbo => Contents::Limbo(records::read_doc(bytes).map_err(e)?),
            Kind::Capture => Contents::Capture(records::read_doc(bytes).map_err(e)?),
            Kind::Icount => Contents::Icount(records::read_list(bytes).map_err(e)?),
            Kind::RevocationScale => {
                Contents::RevocationScale(records::read_doc(bytes).map_err(e)?)
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

/// Why the gathered files cannot be written in the format asked for.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// Several kinds in CSV or JSON.
    #[error(transparent)]
    Mixed(#[from] MixedKinds),
    /// A kind written as one document has no CSV form.
    #[error("{0} have no CSV form: report them in markdown or JSON")]
    NoCsv(String),
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
    /// Every limbo result file's results.
    pub limbo: Vec<LimboResult>,
    /// Every capture.
    pub captures: Vec<CaptureRun>,
    /// Every file's instruction counts, each row's runs.
    pub icount: Vec<Vec<Count>>,
    /// Every revocation-scale run.
    pub revocation_scale: Vec<ScaleReport>,
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
            Ok(Contents::Limbo(l)) => {
                let n = l.results.len();
                self.limbo.push(l);
                (Vec::new(), 0, n)
            }
            Ok(Contents::Capture(c)) => {
                let n = c.rows.len();
                self.captures.push(c);
                (Vec::new(), 0, n)
            }
            Ok(Contents::Icount(rows)) => {
                let n = rows.len();
                self.icount.extend(rows);
                (Vec::new(), 0, n)
            }
            Ok(Contents::RevocationScale(r)) => {
                let n = r.rows.len();
                self.revocation_scale.push(r);
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

    /// Records of every kind.
    pub fn records(&self) -> usize {
        let documents: usize = (self.limbo.iter().map(|l| l.results.len()))
            .chain(self.captures.iter().map(|c| c.rows.len()))
            .chain(self.revocation_scale.iter().map(|r| r.rows.len()))
            .sum();
        self.samples.len()
            + self.handshakes.runs.len()
            + self.handshakes.memory.len()
            + self.pages.len()
            + self.bulk.len()
            + self.icount.len()
            + documents
    }

    /// Whether any kind written as one document (no CSV form) is present.
    pub fn documents(&self) -> bool {
        !(self.limbo.is_empty()
            && self.captures.is_empty()
            && self.icount.is_empty()
            && self.revocation_scale.is_empty())
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
            (!self.limbo.is_empty(), "limbo results"),
            (!self.captures.is_empty(), "captures"),
            (!self.icount.is_empty(), "instruction counts"),
            (!self.revocation_scale.is_empty(), "revocation-scale runs"),
        ];
        kinds.iter().filter(|k| k.0).map(|k| k.1).collect()
    }
}
