//! The raw samples file: every sample appended as one JSON line as it is taken, and the run
//! header ([`RunInfo`]) beside it.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use certbench_schema::RunInfo;
use certbench_schema::Sample;
use certbench_schema::io::run_info_path;

/// Why the raw file could not be opened or its header written (the I/O error is its
/// source, shown after it).
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("creating {}", .path.display())]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("opening {}", .path.display())]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing {}", .path.display())]
    Header {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A new run's raw file when none is given: `results/run-<Unix seconds>.jsonl`.
pub fn default_path() -> PathBuf {
    default_path_for("run")
}

/// A new raw file of `kind`'s when none is given: `results/<kind>-<Unix seconds>.jsonl`.
pub fn default_path_for(kind: &str) -> PathBuf {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    PathBuf::from(format!("results/{kind}-{t}.jsonl"))
}

/// Every sample appended as one JSON line, in one `write` call as it is taken (no buffer),
/// so that a run cut short — even by a second Ctrl-C that exits at once — keeps every
/// finished sample and never a half line. After a write error it writes nothing more and
/// [`RawSink::error`] tells of it.
pub struct RawSink {
    path: PathBuf,
    writer: Option<File>,
    error: Option<std::io::Error>,
}

impl RawSink {
    /// Opens `path` for appending (creating its folder), with `info` as its run header beside
    /// it unless it has one (a resumed run keeps the first); `None` writes nothing.
    pub fn open(path: Option<&Path>, info: &RunInfo) -> Result<RawSink, SinkError> {
        let Some(path) = path else {
            return Ok(RawSink {
                path: PathBuf::new(),
                writer: None,
                error: None,
            });
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| SinkError::Folder {
                path: dir.to_owned(),
                source,
            })?;
        }
        let file = File::options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| SinkError::Open {
                path: path.to_owned(),
                source,
            })?;
        let header = run_info_path(path);
        if !header.exists() {
            let json = serde_json::to_string_pretty(info).expect("run headers serialize");
            std::fs::write(&header, json).map_err(|source| SinkError::Header {
                path: header.clone(),
                source,
            })?;
        }
        Ok(RawSink {
            path: path.to_owned(),
            writer: Some(file),
            error: None,
        })
    }

    /// Appends one sample; after a write error, writes nothing more.
    pub fn write(&mut self, sample: &Sample) {
        if let (Some(w), None) = (self.writer.as_mut(), self.error.as_ref()) {
            let mut line = serde_json::to_string(sample).expect("samples serialize");
            line.push('\n');
            if let Err(e) = w.write_all(line.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    /// The write error that stopped the file, if there was one: `writing FILE: …`.
    pub fn error(&self) -> Option<String> {
        self.error
            .as_ref()
            .map(|e| format!("writing {}: {e}", self.path.display()))
    }
}

/// Writes the run header for a results file written whole (`handshake --output`): the
/// header beside `path`, replacing any older one, as `certbench report` reads it.
pub fn write_header(path: &Path, info: &RunInfo) -> Result<(), SinkError> {
    let header = run_info_path(path);
    let json = serde_json::to_string_pretty(info).expect("run headers serialize") + "\n";
    std::fs::write(&header, json).map_err(|source| SinkError::Header {
        path: header.clone(),
        source,
    })
}
