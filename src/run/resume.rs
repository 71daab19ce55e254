//! `--resume FILE`: continuing a cut run from what it stored — its samples (a line cut short
//! by a hard stop is ended, so the next sample starts a line) and its run header, whose
//! [`RunSpec`] must be the resumed run's, field by field, or the two parts would not be one
//! experiment.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use certbench_schema::RunInfo;
use certbench_schema::Sample;
use certbench_schema::io::{read_jsonl, read_run_info, run_info_path};

use super::spec::{Difference, Field, RunSpec};

/// Why a run cannot be resumed. The CLI tells it with the option's name (`--resume FILE`).
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The file could not be read or its cut line ended (the I/O error is the source).
    #[error("{}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The first part measured something else than this run would.
    #[error("{}: this run's options differ from the first part's", .path.display())]
    OptionsDiffer {
        path: PathBuf,
        /// Each field that differs, in the first part's order, then those only this run has.
        differ: Vec<Difference>,
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
    /// A run header without the driver's options (an older certbench, or another command),
    /// or with a spec this certbench cannot read: its command line.
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
    /// Checks that `now` — what this run measures — is what the first part (in `path`) was
    /// measured with, field by field: an error when they differ, `Some` when its header
    /// cannot tell.
    pub fn check(&self, path: &Path, now: &RunSpec) -> Result<Option<Unchecked>, ResumeError> {
        let Some(info) = &self.header else {
            return Ok(Some(Unchecked::NoHeader(run_info_path(path))));
        };
        let Some(first) = first_fields(info) else {
            return Ok(Some(Unchecked::NoOptions(info.command.clone())));
        };
        let differ = now.differences(&first);
        if differ.is_empty() {
            return Ok(None);
        }
        Err(ResumeError::OptionsDiffer {
            path: path.to_owned(),
            differ,
            first_command: info.command.clone(),
        })
    }
}

/// The first part's fields, from its header's spec, or from the (flag, value) pairs an older
/// certbench wrote (a flag no field names is left out); `None` when it has neither, or a
/// spec this certbench cannot read.
fn first_fields(info: &RunInfo) -> Option<Vec<(Field, String)>> {
    if let Some(spec) = &info.spec {
        let spec: RunSpec = serde_json::from_value(spec.clone()).ok()?;
        return Some(spec.fields());
    }
    if info.measured_with.is_empty() {
        return None;
    }
    let fields = (info.measured_with.iter())
        .filter_map(|(flag, was)| Some((Field::from_flag(flag)?, was.clone())))
        .collect();
    Some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use certbench_schema::Hook;
    use certbench_schema::Transport;

    fn spec() -> RunSpec {
        RunSpec {
            mirror: true,
            ..RunSpec::plain(Transport::Openssl, Hook::Callback)
        }
    }

    fn stored(header: RunInfo) -> Stored {
        Stored {
            samples: vec![],
            bad_lines: vec![],
            header: Some(header),
        }
    }

    fn differ(r: Result<Option<Unchecked>, ResumeError>) -> Vec<Field> {
        match r {
            Err(ResumeError::OptionsDiffer { differ, .. }) => {
                differ.into_iter().map(|d| d.field).collect()
            }
            Err(e) => panic!("{e}"),
            Ok(_) => vec![],
        }
    }

    #[test]
    fn the_first_parts_spec_or_older_flags_are_compared_field_by_field() {
        let path = Path::new("r.jsonl");
        let now = spec();
        let with_spec = |s: &RunSpec| RunInfo {
            spec: Some(serde_json::to_value(s).unwrap()),
            ..RunInfo::default()
        };
        assert!(matches!(
            stored(with_spec(&now)).check(path, &now),
            Ok(None)
        ));
        let rustls = RunSpec {
            stack: Transport::Rustls,
            hook: None,
            ..spec()
        };
        let told = differ(stored(with_spec(&rustls)).check(path, &now));
        assert_eq!(told, [Field::Transport, Field::Hook]);
        // An older certbench's header: its (flag, value) pairs, read back into fields.
        let older = RunInfo {
            measured_with: (now.fields().into_iter())
                .map(|(f, v)| (format!("--{}", f.name()), v))
                .collect(),
            ..RunInfo::default()
        };
        assert!(matches!(stored(older.clone()).check(path, &now), Ok(None)));
        let cached = RunSpec {
            cache_roots: true,
            ..spec()
        };
        assert_eq!(
            differ(stored(older).check(path, &cached)),
            [Field::CacheRoots]
        );
        // Neither, or a spec this certbench cannot read: cannot tell.
        let unreadable = RunInfo {
            spec: Some(serde_json::json!({"stack": "quic"})),
            ..RunInfo::default()
        };
        for info in [RunInfo::default(), unreadable] {
            let r = stored(info).check(path, &now);
            assert!(matches!(r, Ok(Some(Unchecked::NoOptions(_)))));
        }
    }
}
