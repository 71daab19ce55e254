//! The files `certbench limbo` reads and writes beside the limbo file itself: upstream
//! harnesses' results ([`load_upstream`]) and its own results ([`write_results`]), both in the
//! limbo result format.

use std::path::{Path, PathBuf};

use certbench_schema::records::limbo::LimboResult;
use certbench_schema::records::read_doc;

use super::run::MethodRun;

/// A folder of results, or a result file, that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// The folder of upstream results could not be listed.
    #[error("reading {}", .0.display())]
    ReadDir(PathBuf, #[source] std::io::Error),
    /// The folder holds no limbo result document.
    #[error("{}: no limbo result file found", .0.display())]
    NoResults(PathBuf),
    /// A folder for the results could not be made.
    #[error("creating {}", .0.display())]
    Create(PathBuf, #[source] std::io::Error),
    /// A result file could not be written.
    #[error("writing {}", .0.display())]
    Write(PathBuf, #[source] std::io::Error),
}

/// Loads every `*.json` file of `dir` that is a limbo result document, in name order; each
/// other `*.json` file is passed to `ignored` with why (a warning: shown even with --quiet).
/// It is an error when none is one.
pub fn load_upstream(
    dir: &Path,
    mut ignored: impl FnMut(&Path, &str),
) -> Result<Vec<LimboResult>, FilesError> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| FilesError::ReadDir(dir.to_owned(), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let parsed = std::fs::read_to_string(&p)
            .map_err(|e| e.to_string())
            .and_then(|t| read_doc::<LimboResult>(t.as_bytes()).map_err(|e| e.to_string()));
        match parsed {
            Ok(r) => out.push(r),
            Err(e) => ignored(&p, &e),
        }
    }
    if out.is_empty() {
        return Err(FilesError::NoResults(dir.to_owned()));
    }
    Ok(out)
}

/// Writes the results: with one method, to the file `path`; with several, one
/// `<method>.json` per method into the folder `path` (folders made as needed).
pub fn write_results(runs: &[MethodRun], path: &Path) -> Result<(), FilesError> {
    let write = |p: &Path, r: &LimboResult| {
        let text = certbench_schema::records::write_doc(r);
        std::fs::write(p, text).map_err(|e| FilesError::Write(p.to_owned(), e))
    };
    let create = |dir: &Path| {
        std::fs::create_dir_all(dir).map_err(|e| FilesError::Create(dir.to_owned(), e))
    };
    match runs {
        [one] => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                create(dir)?;
            }
            write(path, &one.result)
        }
        _ => {
            create(path)?;
            for r in runs {
                write(&path.join(format!("{}.json", r.method)), &r.result)?;
            }
            Ok(())
        }
    }
}
