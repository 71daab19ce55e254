//! Every result file a command writes besides samples, typed: one module per kind, each
//! record as its file holds it, and the file's header ([`Header`]: its [`Kind`] and schema
//! version) that every such file starts with, as every sample carries its `schema`.
//!
//! A file is `{"kind": "page", "schema": 1, "records": [...]}` for the kinds that are lists
//! of records ([`write_list`]), or `{"kind": "revocation-scale", "schema": 1, ...}` with the
//! document's own fields after the header for the others ([`write_doc`]). [`Header::of`] tells a
//! file's kind by its tag; a file an earlier certbench wrote (a bare array, or a limbo result
//! without a header) is told by its fields, as before ([`Header::legacy`]), so every file that
//! read still reads.
//!
//! Nothing here computes a statistic: the analysis crate reads these records and summarises
//! them.

pub mod bulk;
pub mod capture;
pub mod handshake;
pub mod icount;
pub mod limbo;
pub mod page;
pub mod revocation_scale;
pub mod startup;
pub mod verify;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::names::{Name, UnknownName, named};
use serde::{Deserializer, Serializer};
use std::fmt;
use std::str::FromStr;

/// The version of the records' schema: raised when a record changes in a way an older
/// reader would misread.
pub const RECORDS_VERSION: u32 = 1;

/// What a result file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `certbench handshake`'s throughput runs ([`handshake::HandshakeRun`]).
    Handshake,
    /// `certbench handshake --hold`'s memory per connection ([`handshake::MemoryRun`]).
    Memory,
    /// `certbench bulk`'s transfers ([`bulk::BulkResult`]).
    Bulk,
    /// `certbench page`'s page loads ([`page::PageLoad`]).
    Page,
    /// A harness's x509-limbo results ([`limbo::LimboResult`]).
    Limbo,
    /// `certbench capture`'s sites ([`capture::CaptureRun`]).
    Capture,
    /// `certbench icount`'s instruction counts ([`icount::IcountTables`]).
    Icount,
    /// `certbench revocation-scale`'s data sets ([`revocation_scale::Report`]).
    RevocationScale,
}

named!(Kind ("result kind") {
    Handshake => "handshake",
    Memory => "memory",
    Bulk => "bulk",
    Page => "page",
    Limbo => "limbo",
    Capture => "capture",
    Icount => "icount",
    RevocationScale => "revocation-scale",
});

/// What every result file starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// What the file holds.
    pub kind: Kind,
    /// The records' schema version ([`RECORDS_VERSION`] when written).
    pub schema: u32,
}

/// A record type and the kind of file that holds it.
pub trait Record: Serialize + DeserializeOwned {
    /// The file's kind.
    const KIND: Kind;
}

/// A list of records under its header.
#[derive(Serialize, Deserialize)]
struct List<T> {
    #[serde(flatten)]
    header: Header,
    records: T,
}

/// A document under its header, its fields after the header's.
#[derive(Serialize, Deserialize)]
struct Doc<T> {
    #[serde(flatten)]
    header: Header,
    #[serde(flatten)]
    body: T,
}

fn header(kind: Kind) -> Header {
    Header {
        kind,
        schema: RECORDS_VERSION,
    }
}

/// `records` as their file: the header, then the list; pretty-printed, with a final newline.
pub fn write_list<R: Record>(records: &[R]) -> String {
    let list = List {
        header: header(R::KIND),
        records,
    };
    serde_json::to_string_pretty(&list).expect("records serialize") + "\n"
}

/// `doc` as its file: the header, then the document's fields; pretty-printed, with a final
/// newline.
pub fn write_doc<R: Record>(doc: &R) -> String {
    let doc = Doc {
        header: header(R::KIND),
        body: doc,
    };
    serde_json::to_string_pretty(&doc).expect("a document serializes") + "\n"
}

/// Why a file could not be read as records.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Not JSON, or not the shape its kind says.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// A later certbench's records.
    #[error("{kind} records of schema {schema}: this certbench reads schema {RECORDS_VERSION}")]
    Newer {
        /// The file's kind.
        kind: Kind,
        /// Its schema version.
        schema: u32,
    },
    /// The file is of another kind.
    #[error("a {found} file, not {wanted}")]
    OtherKind {
        /// What it holds.
        found: Kind,
        /// What was asked for.
        wanted: Kind,
    },
}

impl Header {
    /// The header of a file's `bytes`: its tag, or for a file without one, what its fields
    /// say (a JSON array of page loads, bulk transfers or handshake runs, or a limbo result
    /// file); `None` for anything else (JSON lines of samples, say).
    pub fn of(bytes: &[u8]) -> Option<Header> {
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
        match first {
            b'{' => {
                // A tagged file parses whole as a header (its other fields ignored); one JSON
                // line of a samples file has no `kind`.
                let tagged = serde_json::from_slice::<Header>(bytes).ok();
                tagged.or_else(|| Header::legacy(bytes))
            }
            b'[' => Header::legacy(bytes),
            _ => None,
        }
    }

    /// What an untagged file holds, by its fields, as certbench told them before files had a
    /// header: an array whose first element is an array (instruction counts), or has `page`
    /// (page loads), `mb_per_s` (bulk), `allocator` (memory), or else handshake runs; an
    /// object with `harness` and `results` (a limbo result file, upstream's or ours), or with
    /// `rows` and `cold_runs` (a revocation-scale run).
    pub fn legacy(bytes: &[u8]) -> Option<Header> {
        let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        let has = |v: &serde_json::Value, f: &str| v.get(f).is_some();
        let kind = match &value {
            serde_json::Value::Array(items) => match items.first() {
                Some(f) if f.is_array() => Kind::Icount,
                Some(f) if has(f, "page") => Kind::Page,
                Some(f) if has(f, "mb_per_s") => Kind::Bulk,
                Some(f) if has(f, "allocator") => Kind::Memory,
                _ => Kind::Handshake,
            },
            v if has(v, "harness") && has(v, "results") => Kind::Limbo,
            v if has(v, "rows") && has(v, "cold_runs") => Kind::RevocationScale,
            _ => return None,
        };
        Some(Header { kind, schema: 1 })
    }
}

/// The records of a file of `R`'s kind: a tagged list, or an untagged array an earlier
/// certbench wrote.
pub fn read_list<R: Record>(bytes: &[u8]) -> Result<Vec<R>, ReadError> {
    let untagged = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    if untagged {
        return Ok(serde_json::from_slice(bytes)?);
    }
    check(serde_json::from_slice(bytes)?, R::KIND)?;
    let list: List<Vec<R>> = serde_json::from_slice(bytes)?;
    Ok(list.records)
}

/// The document of a file of `R`'s kind: tagged, or untagged as an earlier certbench (or an
/// upstream limbo harness) wrote it.
pub fn read_doc<R: Record>(bytes: &[u8]) -> Result<R, ReadError> {
    if let Ok(h) = serde_json::from_slice::<Header>(bytes) {
        check(h, R::KIND)?;
    }
    Ok(serde_json::from_slice(bytes)?)
}

fn check(h: Header, wanted: Kind) -> Result<(), ReadError> {
    if h.kind != wanted {
        return Err(ReadError::OtherKind {
            found: h.kind,
            wanted,
        });
    }
    if h.schema > RECORDS_VERSION {
        return Err(ReadError::Newer {
            kind: h.kind,
            schema: h.schema,
        });
    }
    Ok(())
}
