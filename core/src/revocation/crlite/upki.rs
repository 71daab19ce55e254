//! [`UpkiStore`]: CRLite through the rustls project's `upki` crate (1.0, no features: no
//! fetching), whose `Store::check` opens `index.bin`, reads the entries of the leaf's logs,
//! then reads and deserialises every filter file whose coverage holds one of the leaf's SCTs,
//! on every check (`upki::revocation::Index::check`). That per-check I/O is its cost model and
//! is kept: [`UpkiStore::check`] is one `Store::check`.
//!
//! The directory is upki's `cache-dir`: upki reads `<dir>/revocation/index.bin`, the filter
//! files the index names and (for `verify`, with its fetch feature) `manifest.json`.
//!
//! Invariant: [`UpkiStore::open`] accepts a store only when every file the manifest lists has
//! the manifest's SHA-256, every filter deserialises with its index inside its matrices, and
//! the index (read here with its documented format, `upki::revocation::index`) names only
//! those files, sorted, with every entry inside the file; anything else is
//! [`RevocationError::Corrupt`]. upki itself does not check the hashes at check time, and a
//! clubcard with a bad offset panics inside its query: both are caught here once, at open.

use std::path::{Path, PathBuf};

use upki::revocation::{
    CertSerial, CtTimestamp, Error as UpkiError, RevocationCheckInput, RevocationStatus, Store,
};

use super::leaf::{Leaf, corrupt, hex, validate};
use crate::ct::sha256;
use crate::revocation::types::{Mechanism, RevocationError, SoftFail, Status, VerifiedPath};

/// upki's store over a cache directory (module docs).
pub struct UpkiStore {
    store: Store,
    dir: PathBuf,
    bytes: u64,
}

impl UpkiStore {
    /// Opens the store in upki's cache directory `dir` and checks it (see the invariant):
    /// certbench's own integrity pass ([`UpkiStore::integrity`]), then what upki does
    /// ([`UpkiStore::open_as_upki`]).
    pub fn open(dir: &Path) -> Result<UpkiStore, RevocationError> {
        let bytes = UpkiStore::integrity(dir)?;
        let mut store = UpkiStore::open_as_upki(dir)?;
        store.bytes = bytes;
        Ok(store)
    }

    /// certbench's own integrity pass over the store in `dir` (upki 1.0 does none of it): every
    /// file the manifest lists read and hashed against the manifest, every filter deserialised
    /// and its index checked, `index.bin` checked against them. Returns the bytes read.
    pub fn integrity(dir: &Path) -> Result<u64, RevocationError> {
        let rev = dir.join("revocation");
        let read = |name: &str| {
            let p = rev.join(name);
            std::fs::read(&p).map_err(|e| RevocationError::Unreadable {
                mechanism: Mechanism::Upki,
                detail: format!("{}: {e}", p.display()),
            })
        };
        let bad = |detail: String| corrupt(Mechanism::Upki, detail);
        let manifest = read("manifest.json")?;
        let manifest: serde_json::Value =
            serde_json::from_slice(&manifest).map_err(|e| bad(format!("manifest.json: {e}")))?;
        let files = manifest
            .get("files")
            .or_else(|| manifest.get("filters"))
            .and_then(|f| f.as_array())
            .ok_or_else(|| bad("manifest.json: no files".into()))?;
        let mut names = Vec::with_capacity(files.len());
        let mut bytes = 0;
        for f in files {
            let (Some(name), Some(hash)) = (
                f.get("filename").and_then(|n| n.as_str()),
                f.get("hash").and_then(|h| h.as_str()),
            ) else {
                return Err(bad("manifest.json: a file without filename or hash".into()));
            };
            if name.contains(['/', '\\']) || name.starts_with('.') {
                return Err(bad(format!("manifest.json: file name {name:?}")));
            }
            let data = read(name)?;
            if hex(&sha256(&data)) != hash.to_ascii_lowercase() {
                return Err(bad(format!("{name}: SHA-256 differs from the manifest's")));
            }
            let card = clubcard_crlite::CRLiteClubcard::from_bytes(&data)
                .map_err(|e| bad(format!("{name}: {e}")))?;
            validate(&card).map_err(|d| bad(format!("{name}: {d}")))?;
            bytes += data.len() as u64;
            names.push(name.to_owned());
        }
        let index = read("index.bin")?;
        check_index(&index, &names).map_err(|d| bad(format!("index.bin: {d}")))?;
        bytes += (index.len() + manifest.to_string().len()) as u64;
        Ok(bytes)
    }

    /// What upki itself does to open the store in `dir`: its configuration, then
    /// `Store::validate` (which reads the index header only). Unchecked by certbench: only
    /// [`UpkiStore::open`] (with [`UpkiStore::integrity`] first) is used to check against.
    pub fn open_as_upki(dir: &Path) -> Result<UpkiStore, RevocationError> {
        let rev = dir.join("revocation");
        let bad = |detail: String| corrupt(Mechanism::Upki, detail);
        let config = serde_json::json!({
            "cache-dir": dir,
            "revocation": { "fetch-url": "https://upki.invalid/" },
        });
        let config: upki::Config =
            serde_json::from_value(config).map_err(|e| bad(format!("upki configuration: {e}")))?;
        let store = Store::from_config(&config);
        store.validate().map_err(|e| map_error(e, &rev))?;
        Ok(UpkiStore {
            store,
            dir: rev,
            bytes: 0,
        })
    }

    /// One `Store::check` of the path's end entity: its serial, its issuer's key hash and its
    /// SCTs (an SCT that does not decode is an error, as upki's
    /// `RevocationCheckInput::from_certificates` makes it).
    pub fn check(&self, path: &VerifiedPath<'_>) -> Result<Status, RevocationError> {
        let leaf = Leaf::read(path)?;
        let scts = leaf
            .strict_scts()?
            .into_iter()
            .map(|(log, t)| CtTimestamp {
                log_id: log.0,
                timestamp: t.0,
            })
            .collect();
        let input = RevocationCheckInput::new(CertSerial(leaf.serial.to_vec()), leaf.issuer, scts);
        match self.store.check(&input) {
            Ok(RevocationStatus::CertainlyRevoked) => Ok(Status::Revoked { depth: 0 }),
            Ok(RevocationStatus::NotRevoked) => Ok(Status::Good),
            Ok(RevocationStatus::NotCoveredByRevocationData) => {
                Ok(Status::SoftFail(SoftFail::NotCovered))
            }
            // The files went away after open: upki's "no revocation data" (its soft-fail).
            Err(UpkiError::NoData { .. }) => Ok(Status::SoftFail(SoftFail::NoData)),
            Err(e) => Err(map_error(e, &self.dir)),
        }
    }

    /// Bytes of the store's files (manifest, index and filters): what a check may read.
    pub fn data_bytes(&self) -> u64 {
        self.bytes
    }
}

fn map_error(e: UpkiError, dir: &Path) -> RevocationError {
    let detail = format!("{}: {e}", dir.display());
    match e {
        UpkiError::FileRead { .. } => RevocationError::Unreadable {
            mechanism: Mechanism::Upki,
            detail,
        },
        _ => corrupt(Mechanism::Upki, detail),
    }
}

/// Reads an index (`upkiidx1`, or the legacy `upkiidx0`) as upki's `Index` doc comment
/// describes it, and checks every table and entry (module invariant).
fn check_index(b: &[u8], files: &[String]) -> Result<(), String> {
    let be = |at: usize, n: usize| -> Result<u64, String> {
        let s = b.get(at..at + n).ok_or("truncated")?;
        Ok(s.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x)))
    };
    let (name_width, header) = match b.get(..8) {
        Some(b"upkiidx1") => (2, 14),
        Some(b"upkiidx0") => (1, 13),
        _ => return Err("not an upki index (magic)".into()),
    };
    let num_files = be(8, name_width)? as usize;
    let num_logs = be(8 + name_width, 4)? as usize;
    let entry = name_width + 16;
    let logs_at = header + num_files * 32;
    if logs_at + num_logs.saturating_mul(42) > b.len() {
        return Err("tables truncated".into());
    }
    for i in 0..num_files {
        let slot = &b[header + i * 32..header + (i + 1) * 32];
        let name = &slot[..slot.iter().position(|&c| c == 0).unwrap_or(32)];
        if !files.iter().any(|f| f.as_bytes() == name) {
            return Err(format!("file {i} is not in the manifest"));
        }
    }
    let mut previous: Option<&[u8]> = None;
    for l in 0..num_logs {
        let at = logs_at + l * 42;
        let id = &b[at..at + 32];
        if previous.is_some_and(|p| p >= id) {
            return Err("log ids not sorted".into());
        }
        previous = Some(id);
        let offset = be(at + 32, 8)? as usize;
        let count = be(at + 40, 2)? as usize;
        for e in 0..count {
            let e = offset
                .checked_add(e * entry)
                .ok_or("entry offset overflow")?;
            if be(e, name_width)? as usize >= num_files {
                return Err("an entry names no file".into());
            }
            if be(e + name_width, 8)? > be(e + name_width + 8, 8)? {
                return Err("an entry's window ends before it starts".into());
            }
        }
    }
    Ok(())
}
