//! [`RevocationData`]: the revocation data a process checks against, loaded once, on the
//! first check that needs it (the cold `revocation-load` stage), then shared by every check
//! (the warm `revocation` stage), as a browser loads its CRLSet or filter once per process.
//!
//! Invariant: a mechanism's data is loaded at most once per [`RevocationData`]; a load that
//! fails is remembered and every check of that mechanism is then a rejection (fail closed),
//! except data that is absent, which each browser soft-fails (its [`Status::SoftFail`]).

use std::path::PathBuf;
use std::sync::OnceLock;

use certbench_schema::{RevocationOutcome, Stage};

use super::types::{Mechanism, RevocationError, SoftFail, Status};
use crate::stages::Recorder;

/// Where each mechanism's data is, for one run.
#[derive(Clone, Debug, Default)]
pub struct DataFiles {
    /// Chrome's CRLSet file.
    pub crlset: Option<PathBuf>,
    /// The CRLite filter (clubcard) file, loaded into memory.
    pub crlite: Option<PathBuf>,
    /// `upki`'s cache directory (its `index.bin`, manifest and filter files).
    pub upki: Option<PathBuf>,
    /// The CRLs (DER), one per issuer.
    pub crls: Vec<PathBuf>,
    /// Where the data came from, for samples (e.g. `certbench revocation data, corpus+mirror`).
    pub origin: String,
}

impl DataFiles {
    /// The data in `dir`, laid out as certbench writes it: `crlset` (Chrome's CRLSet),
    /// `crlite.filter` (a clubcard filter), `upki/` (upki's store) and `crls/*.crl` (DER, in
    /// name order). A file that is not there is absent data: the browser's soft-fail.
    pub fn in_dir(dir: &std::path::Path, origin: impl Into<String>) -> DataFiles {
        let mut crls: Vec<PathBuf> = std::fs::read_dir(dir.join("crls"))
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "crl"))
                    .collect()
            })
            .unwrap_or_default();
        crls.sort();
        DataFiles {
            crlset: Some(dir.join("crlset")),
            crlite: Some(dir.join("crlite.filter")),
            upki: Some(dir.join("upki")),
            crls,
            origin: origin.into(),
        }
    }

    /// Bytes on disk of `mechanism`'s data (0 when absent; for `ocsp`, the staples come with
    /// each connection).
    pub fn bytes(&self, mechanism: Mechanism) -> u64 {
        let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
        match mechanism {
            Mechanism::CrlSet => self.crlset.as_ref().map_or(0, size),
            Mechanism::Crlite => self.crlite.as_ref().map_or(0, size),
            Mechanism::Upki => self.upki.as_deref().map_or(0, files_under),
            Mechanism::Crl => self.crls.iter().map(size).sum(),
            Mechanism::Ocsp => 0,
        }
    }
}

/// The bytes of the files under `dir`, its sub-folders included (upki keeps its store in
/// `revocation/` under its cache folder).
fn files_under(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(|e| e.ok())
            .map(|e| match e.file_type() {
                Ok(t) if t.is_dir() => files_under(&e.path()),
                _ => e.metadata().map_or(0, |m| m.len()),
            })
            .sum()
    })
}

/// One mechanism's data, as loaded.
pub enum Loaded {
    /// A parsed CRLSet.
    CrlSet(super::crlset::CrlSet),
    /// A CRLite filter in memory.
    Crlite(super::crlite::Filter),
    /// `upki`'s store (its files are read per check).
    Upki(super::crlite::UpkiStore),
    /// Parsed CRLs.
    Crls(super::crl::Crls),
    /// Nothing to load (a stapled response comes with each connection).
    Nothing,
}

impl Loaded {
    /// Bytes of data read, and bytes kept in memory between checks.
    fn sizes(&self) -> (u64, u64) {
        match self {
            Loaded::CrlSet(d) => (d.data_bytes(), d.resident_bytes()),
            Loaded::Crlite(d) => (d.data_bytes(), d.resident_bytes()),
            Loaded::Upki(d) => (d.data_bytes(), 0),
            Loaded::Crls(d) => (d.data_bytes(), d.resident_bytes()),
            Loaded::Nothing => (0, 0),
        }
    }
}

/// The revocation data of a run (see the module docs).
pub struct RevocationData {
    files: DataFiles,
    loaded: [OnceLock<Result<Option<Loaded>, RevocationError>>; Mechanism::KNOWN.len()],
    /// Each mechanism's [`RevocationData::label`], made once (every sample's configuration
    /// names it; its size is read from the files).
    labels: [OnceLock<String>; Mechanism::KNOWN.len()],
}

impl std::fmt::Debug for RevocationData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RevocationData")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl RevocationData {
    /// Data from `files`, for every mechanism (each method checks with the one its
    /// [`crate::checks::Checks`] names).
    pub fn new(files: DataFiles) -> RevocationData {
        RevocationData {
            files,
            loaded: Default::default(),
            labels: Default::default(),
        }
    }

    /// The files.
    pub fn files(&self) -> &DataFiles {
        &self.files
    }

    /// How a sample's configuration names `mechanism` with this data: the mechanism, its
    /// data's size and origin (`crlset: 249.8 KB of certbench revocation data …`), the files'
    /// sizes read the first time it is asked for.
    pub fn label(&self, mechanism: Mechanism) -> String {
        self.labels[mechanism as usize]
            .get_or_init(|| self.describe(mechanism))
            .clone()
    }

    fn describe(&self, mechanism: Mechanism) -> String {
        match mechanism {
            Mechanism::Ocsp => format!("{mechanism}: the response stapled"),
            _ => {
                let bytes = self.files.bytes(mechanism);
                let size = if bytes >= 1 << 20 {
                    format!("{:.1} MB", bytes as f64 / 1e6)
                } else {
                    format!("{:.1} KB", bytes as f64 / 1e3)
                };
                let n = match mechanism {
                    Mechanism::Crl => format!(" in {} CRLs", self.files.crls.len()),
                    _ => String::new(),
                };
                format!("{mechanism}: {size}{n} of {}", self.files.origin)
            }
        }
    }

    fn load(&self, mechanism: Mechanism) -> Result<Option<Loaded>, RevocationError> {
        let unreadable = |p: &PathBuf, e: std::io::Error| RevocationError::Unreadable {
            mechanism,
            detail: format!("{}: {e}", p.display()),
        };
        // Absent data (no file given, or none at the path) is `None`: the browser's soft-fail.
        let read = |p: &Option<PathBuf>| -> Result<Option<Vec<u8>>, RevocationError> {
            match p {
                None => Ok(None),
                Some(p) => match std::fs::read(p) {
                    Ok(b) => Ok(Some(b)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(e) => Err(unreadable(p, e)),
                },
            }
        };
        Ok(match mechanism {
            Mechanism::CrlSet => match read(&self.files.crlset)? {
                Some(b) => Some(Loaded::CrlSet(super::crlset::CrlSet::parse(&b)?)),
                None => None,
            },
            Mechanism::Crlite => match read(&self.files.crlite)? {
                Some(b) => Some(Loaded::Crlite(super::crlite::Filter::load(&b)?)),
                None => None,
            },
            Mechanism::Upki => match &self.files.upki {
                Some(dir) if dir.exists() => {
                    Some(Loaded::Upki(super::crlite::UpkiStore::open(dir)?))
                }
                _ => None,
            },
            Mechanism::Crl => {
                let mut ders = Vec::new();
                for p in &self.files.crls {
                    ders.push(std::fs::read(p).map_err(|e| unreadable(p, e))?);
                }
                (!ders.is_empty())
                    .then(|| super::crl::Crls::parse(&ders))
                    .transpose()?
                    .map(Loaded::Crls)
            }
            Mechanism::Ocsp => Some(Loaded::Nothing),
        })
    }

    /// Loads `mechanism`'s data if this process has not yet, recording the load as
    /// `revocation-load` in `rec`: a runner calls it before timing a sample, so that the load
    /// stays out of `total-verification` (as `library-init` does). The sample whose check
    /// first needed the data is the cold one.
    pub fn preload(&self, mechanism: Mechanism, rec: &mut Recorder) {
        let cell = &self.loaded[mechanism as usize];
        if mechanism == Mechanism::Ocsp {
            // Nothing to load: the response comes with the connection.
            let _ = cell.set(Ok(Some(Loaded::Nothing)));
            return;
        }
        // `get_or_init`: a second thread asking while the first loads waits for that load
        // (one load per process, as a browser makes it); only the loading thread records it.
        let mut took = None;
        cell.get_or_init(|| {
            let span = rec.start();
            let loaded = self.load(mechanism);
            took = Some(span.elapsed_ns());
            loaded
        });
        if let Some(ns) = took {
            rec.add(Stage::RevocationLoad, ns);
        }
    }

    /// Runs one check of `mechanism` for a verified path: the data's load the first time in
    /// this process (`revocation-load`), then `check` over it (`revocation`), noting what it
    /// found in `rec` (with `staple`, the stapled response checked, as the data's bytes).
    /// `check` gets `None` when the data is absent. A revoked certificate and unusable data
    /// are a [`Refusal`] (the method's rejection); a soft-fail is an accept that the sample
    /// records.
    pub fn run(
        &self,
        mechanism: Mechanism,
        staple: Option<&[u8]>,
        rec: &mut Recorder,
        check: impl FnOnce(Option<&Loaded>) -> Result<Status, RevocationError>,
    ) -> Result<(), Refusal> {
        let cell = &self.loaded[mechanism as usize];
        self.preload(mechanism, rec);
        let cold = rec.get(Stage::RevocationLoad).is_some();
        let loaded = match cell.get().expect("set above") {
            Ok(l) => l.as_ref(),
            Err(e) => return Err(Refusal::Unusable(e.clone())),
        };
        let span = rec.start();
        let status = check(loaded);
        rec.stop(Stage::Revocation, span);
        let status = status.map_err(Refusal::Unusable)?;
        let (mut data_bytes, resident_bytes) = loaded.map_or((0, 0), Loaded::sizes);
        if let Some(staple) = staple {
            data_bytes = staple.len() as u64;
        }
        rec.note_revocation(RevocationOutcome {
            mechanism: mechanism.into(),
            status,
            data_bytes,
            resident_bytes,
            cold,
        });
        match status {
            Status::Revoked { depth } => Err(Refusal::Revoked { mechanism, depth }),
            Status::Good | Status::SoftFail(_) => Ok(()),
        }
    }
}

/// Why a revocation check refuses a connection: the method turns it into its rejection (in
/// these words; tests and the answer read the `revoked (` prefix).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A certificate of the path is revoked.
    #[error("revoked ({mechanism}): the certificate at depth {depth}")]
    Revoked {
        /// The mechanism that said so.
        mechanism: Mechanism,
        /// The certificate's position in the path (0: the leaf).
        depth: usize,
    },
    /// The data, or the response, cannot be used (fail closed).
    #[error("{0}")]
    Unusable(RevocationError),
}

/// The soft-fail every mechanism gives for absent data.
pub fn no_data() -> Result<Status, RevocationError> {
    Ok(Status::SoftFail(SoftFail::NoData))
}
