//! The revocation data `--revocation` checks against when no `--revocation-data` is given:
//! made offline from the corpus' issuers (and the mirror's, with `--mirror`), padded to a
//! realistic scale, cached like the mirror under `.certbench-cache/revocation/<key>/` and
//! reused while fresh, in the layout [`DataFiles::in_dir`] reads:
//! - `crlset`: Chrome's CRLSet at its real size ([`crlset::Scale::CHROME`]) holding every
//!   issuer, revoked.badssl.com's leaf listed; `NotAfter` [`CRLSET_DAYS`] after it was made;
//! - `crlite.filter` and `upki/`: a clubcard CRLite filter over every issuer plus a synthetic
//!   population ([`Scale`]), covering the logs of the issuers' SCTs up to the time it was made;
//! - `crls/*.crl`: the mirror's CRLs, signed by its CAs (a corpus CA's key is not ours, so the
//!   corpus' issuers have none, and `crl` soft-fails there as an issuer without a CRL does);
//! - `PROVENANCE.md`: what was made, from what, at which scale, and how long it took.
//!
//! Invariant: a cache is reused only when it was made by this generator from the same issuers
//! at the same scale, and is still fresh for a check now (Firefox uses a filter for 10 days,
//! Chrome a CRLSet until its `NotAfter`); otherwise it is made anew.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use certbench_core::ct::sha256;
use certbench_core::revocation::DataFiles;

pub use super::generate::{CRLSET_DAYS, Scale};

use super::generate::{self, Spec, WriteError};
use super::issuers::{self, Leaf};
use super::{Issuer, crlite, crlset};
use crate::mirror::MirrorSet;

/// Bumped whenever what is generated changes.
const GENERATOR_VERSION: u32 = 1;
/// A cache older than this is made anew: a filter must stay fresh (Gecko: 10 days) for a
/// run that starts now.
const MAX_CACHE_AGE: Duration = Duration::from_secs(7 * 86_400);

/// Where the data is cached by default.
pub fn cache_dir() -> PathBuf {
    PathBuf::from(".certbench-cache/revocation")
}

/// Data made or found in the cache.
pub struct Made {
    /// Its files.
    pub files: DataFiles,
    /// Its folder.
    pub dir: PathBuf,
    /// Read from the cache (nothing generated).
    pub from_cache: bool,
    /// How long making it took (zero from the cache).
    pub took: Duration,
}

impl Made {
    /// One line for the run's notes.
    pub fn describe(&self) -> String {
        match self.from_cache {
            true => format!("revocation data: {} (cached)", self.dir.display()),
            false => format!(
                "revocation data: made in {:.1} s into {} (cached for later runs)",
                self.took.as_secs_f64(),
                self.dir.display()
            ),
        }
    }
}

/// Why the data cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// A leaf whose issuer cannot be read.
    #[error("revocation data: {0}")]
    Issuer(#[from] issuers::IssuerError),
    /// The CRLSet generator refused its input.
    #[error("revocation data: CRLSet: {0}")]
    CrlSet(#[from] crlset::CrlSetError),
    /// The filter builder refused its input.
    #[error("revocation data: CRLite: {0}")]
    Crlite(#[from] crlite::GenError),
    /// A file could not be read or written.
    #[error("revocation data: {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The corpus could not be read.
    #[error("revocation data: the corpus: {0}")]
    Corpus(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BundleError + '_ {
    move |source| BundleError::Io {
        path: path.to_owned(),
        source,
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The data for the bundled corpus (and `mirror`'s hosts) at `scale`, cached under `base`.
pub fn ensure(
    base: &Path,
    mirror: Option<&MirrorSet>,
    scale: Scale,
    note: &dyn Fn(&str),
) -> Result<Made, BundleError> {
    let corpus = certbench_core::corpus::Corpus::bundled()
        .map_err(|e| BundleError::Corpus(e.to_string()))?;
    let mut leaves: Vec<Leaf<'_>> = issuers::corpus_leaves(&corpus);
    if let Some(set) = mirror {
        leaves.extend(issuers::mirror_leaves(set));
    }
    let issuers = issuers::issuers(&leaves)?;
    let mirror_crls: Vec<PathBuf> =
        mirror.map_or_else(Vec::new, |set| DataFiles::in_dir(&set.dir, "").crls);
    let key = cache_key(&issuers, &mirror_crls, scale);
    let dir = base.join(&key);
    if fresh(&dir) {
        return Ok(Made {
            files: DataFiles::in_dir(&dir, origin(mirror, scale)),
            dir,
            from_cache: true,
            took: Duration::ZERO,
        });
    }
    note(&format!(
        "revocation data: making it at {} scale into {} (once; cached for later runs)",
        scale.name(),
        dir.display()
    ));
    let started = Instant::now();
    make(&dir, &issuers, &mirror_crls, scale)?;
    Ok(Made {
        files: DataFiles::in_dir(&dir, origin(mirror, scale)),
        dir,
        from_cache: false,
        took: started.elapsed(),
    })
}

fn origin(mirror: Option<&MirrorSet>, scale: Scale) -> String {
    let of = if mirror.is_some() {
        "corpus+mirror"
    } else {
        "corpus"
    };
    format!("certbench's revocation data ({of}, {} scale)", scale.name())
}

/// The key of a cache: the generator, the issuers (keys, serials, revocations, SCTs), the
/// mirror's CRLs and the scale.
fn cache_key(issuers: &[Issuer], crls: &[PathBuf], scale: Scale) -> String {
    let mut text = format!("v{GENERATOR_VERSION} {}\n", scale.name());
    for i in issuers {
        text.push_str(&hex(&sha256(&i.spki)));
        for c in &i.issued {
            text.push_str(&format!(
                " {}:{}:{}",
                hex(&c.serial),
                c.revoked,
                c.scts.len()
            ));
        }
        text.push('\n');
    }
    for p in crls {
        let bytes = std::fs::read(p).unwrap_or_default();
        text.push_str(&hex(&sha256(&bytes)));
    }
    hex(&sha256(text.as_bytes())[..8])
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Whether `dir` holds complete data made less than [`MAX_CACHE_AGE`] ago.
fn fresh(dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join("made-at")) else {
        return false;
    };
    text.trim()
        .parse::<u64>()
        .is_ok_and(|at| now().saturating_sub(at) < MAX_CACHE_AGE.as_secs())
}

/// Makes the data into `dir` (written into a folder of this process's own beside it, then
/// renamed in, so a run cut short never leaves a half-made cache that looks complete, and two
/// processes making the same data do not write into one folder; the second to finish keeps
/// the first's).
fn make(dir: &Path, issuers: &[Issuer], crls: &[PathBuf], scale: Scale) -> Result<(), BundleError> {
    let made_at = now();
    let tmp = dir.with_extension(format!("tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("crls")).map_err(io(&tmp))?;
    let sizes = scale.sizes();
    let (crlset_scale, crlite_scale) = (sizes.crlset, sizes.filter);
    let spec = Spec {
        crlset: (issuers, crlset_scale, made_at + CRLSET_DAYS * 86_400),
        filter: (issuers, crlite_scale),
        made_at,
    };
    let written = generate::write(&tmp, spec).map_err(|e| match e {
        WriteError::CrlSet(e) => BundleError::CrlSet(e),
        WriteError::Filter(e) | WriteError::Upki(e) => BundleError::Crlite(e),
        WriteError::Io { path, source, .. } => BundleError::Io { path, source },
    })?;

    for p in crls {
        let to = tmp.join("crls").join(p.file_name().unwrap_or_default());
        std::fs::copy(p, &to).map_err(io(p))?;
    }
    let revoked: usize = issuers
        .iter()
        .map(|i| i.issued.iter().filter(|c| c.revoked).count())
        .sum();
    let leaves: usize = issuers.iter().map(|i| i.issued.len()).sum();
    let provenance = format!(
        "# Revocation data made by certbench (generator v{GENERATOR_VERSION})\n\n\
         Made at {made_at} (Unix seconds) from {n} issuers of {leaves} leaves ({revoked} revoked: revoked.badssl.com's), scale `{scale}`.\n\n\
         - `crlset`: Chrome's CRLSet format, {crlset_bytes} bytes ({crlset_scale:?}), made in {crlset_ms:.1} ms; NotAfter {CRLSET_DAYS} days on.\n\
         - `crlite.filter`: a clubcard CRLite filter, {filter_bytes} bytes, {synthetic} synthetic certificates beside the issuers' ({crlite_scale:?}; published: {p0} certificates, {p1} revoked, {p2} bytes, ePrint 2025/610), built in {filter_s:.1} s; coverage: {logs} CT logs up to the time it was made.\n\
         - `upki/`: the same filter as upki's store.\n\
         - `crls/`: {ncrls} CRLs of the mirror's CAs.\n",
        n = issuers.len(),
        scale = scale.name(),
        crlset_bytes = written.crlset_bytes,
        crlset_ms = written.crlset_took.as_secs_f64() * 1e3,
        filter_bytes = written.filter_bytes,
        synthetic = crlite_scale.certificates(),
        p0 = crlite::PUBLISHED.0,
        p1 = crlite::PUBLISHED.1,
        p2 = crlite::PUBLISHED.2,
        filter_s = written.filter_took.as_secs_f64(),
        logs = written.logs,
        ncrls = crls.len(),
    );
    std::fs::write(tmp.join("PROVENANCE.md"), provenance).map_err(io(&tmp))?;
    std::fs::write(tmp.join("made-at"), made_at.to_string()).map_err(io(&tmp))?;
    if fresh(dir) {
        // Another process made it meanwhile.
        let _ = std::fs::remove_dir_all(&tmp);
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(dir);
    match std::fs::rename(&tmp, dir) {
        Ok(()) => Ok(()),
        Err(_) if fresh(dir) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(())
        }
        Err(e) => Err(io(dir)(e)),
    }
}
