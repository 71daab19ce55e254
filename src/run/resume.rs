//! `--resume FILE`: continuing a cut run from what it stored — its samples (a line cut short
//! by a hard stop is ended, so the next sample starts a line) and its run header, whose
//! options must be those of the resumed run, or the two parts would not be one experiment.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use certbench_analysis::Sample;
use certbench_analysis::io::{read_jsonl, read_run_info, run_info_path};
use certbench_analysis::schema::RunInfo;

/// Why a run cannot be resumed.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The file could not be read or its cut line ended (the I/O error is the source).
    #[error("--resume {}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The first part measured something else than this run would.
    #[error(
        "--resume {}: this run's options differ from the first part's, so its samples would measure something else ({}); give the same options as the first time: {}",
        .path.display(), .differ.join("; "), .first_command.join(" ")
    )]
    OptionsDiffer {
        path: PathBuf,
        /// One `FLAG was X, now Y` per option that differs.
        differ: Vec<String>,
        first_command: Vec<String>,
    },
}

/// What the first part of a run left: its samples, the lines that were not samples (each
/// an error text; those samples are measured again), and its run header if it has one.
pub struct Stored {
    pub samples: Vec<Sample>,
    pub bad_lines: Vec<String>,
    header: Option<RunInfo>,
}

/// Why the first part's options could not be compared with this run's.
pub enum Unchecked {
    /// No run header beside the file (at this path).
    NoHeader(PathBuf),
    /// A run header without the driver's options (an older certbench, or another command):
    /// its command line.
    NoOptions(Vec<String>),
}

/// Reads the first part of the run in `path`, ending a line cut short by a hard stop.
pub fn read(path: &Path) -> Result<Stored, ResumeError> {
    let io = |source| ResumeError::Io {
        path: path.to_owned(),
        source,
    };
    let bytes = std::fs::read(path).map_err(io)?;
    let (samples, errors) = read_jsonl(bytes.as_slice());
    let bad_lines = errors.iter().map(ToString::to_string).collect();
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        std::fs::File::options()
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(b"\n"))
            .map_err(io)?;
    }
    Ok(Stored {
        samples,
        bad_lines,
        header: read_run_info(path),
    })
}

impl Stored {
    /// Checks that `now` — this run's measurement options, as (flag, value) — are those the
    /// first part (in `path`) was measured with: an error when they differ, `Some` when its
    /// header cannot tell.
    pub fn check(
        &self,
        path: &Path,
        now: &[(String, String)],
    ) -> Result<Option<Unchecked>, ResumeError> {
        match &self.header {
            None => Ok(Some(Unchecked::NoHeader(run_info_path(path)))),
            Some(info) if info.measured_with.is_empty() => {
                Ok(Some(Unchecked::NoOptions(info.command.clone())))
            }
            Some(info) => check(path, info, now).map(|()| None),
        }
    }
}

/// Refuses when the first part's options (from its header) differ from `now`.
fn check(path: &Path, first: &RunInfo, now: &[(String, String)]) -> Result<(), ResumeError> {
    let then = &first.measured_with;
    let differ: Vec<String> = then
        .iter()
        .filter(|o| !now.contains(o))
        .map(|(flag, was)| {
            let is = now
                .iter()
                .find(|(f, _)| f == flag)
                .map_or("(not applicable)", |(_, v)| v.as_str());
            format!("{flag} was {was}, now {is}")
        })
        .chain(
            now.iter()
                .filter(|(f, _)| !then.iter().any(|(g, _)| g == f))
                .map(|(flag, is)| format!("{flag} was not applicable, now {is}")),
        )
        .collect();
    if differ.is_empty() {
        Ok(())
    } else {
        Err(ResumeError::OptionsDiffer {
            path: path.to_owned(),
            differ,
            first_command: first.command.clone(),
        })
    }
}
