//! The cache of `revocation-scale`: `<cache>/v<VERSION>/`, the CA and its leaves kept (made
//! once), and how long each data set took to make (`made.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::error::{ScaleError, ca_err, io};
use super::options::ScaleOptions;
use crate::certs::scale_ca::ScaleCa;

/// Bumped whenever what is generated changes.
const VERSION: u32 = 1;

/// The CA and its two leaves, made once per cache.
pub(super) type Ca = ScaleCa;

/// The CA's files in the cache folder, in [`read_ca`]'s order.
const CA_FILES: [&str; 5] = ["ca.key.pem", "ca.der", "good.der", "revoked.der", "made-at"];

/// The CA kept in `dir`, if it is all there.
fn read_ca(dir: &Path) -> Option<Ca> {
    let [key, der, good, revoked, at] = CA_FILES.map(|f| std::fs::read(dir.join(f)).ok());
    ScaleCa::from_parts(
        std::str::from_utf8(&key?).ok()?,
        der?,
        good?,
        revoked?,
        std::str::from_utf8(&at?).ok()?.trim().parse().ok()?,
    )
}

/// A new CA ([`ScaleCa::make`]), kept in `dir`.
fn make_ca(dir: &Path) -> Result<Ca, ScaleError> {
    let made_at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let ca = ScaleCa::make(made_at).map_err(ca_err)?;
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let contents = [
        ca.key_pem().into_bytes(),
        ca.der.clone(),
        ca.good.clone(),
        ca.revoked.clone(),
        made_at.to_string().into_bytes(),
    ];
    for (f, bytes) in CA_FILES.iter().zip(contents) {
        std::fs::write(dir.join(f), bytes).map_err(io(&dir.join(f)))?;
    }
    Ok(ca)
}

/// How long each data set took to make, ms (`made.json`).
pub(super) type Made = BTreeMap<String, f64>;

/// The cache's folder for this generator's version.
pub(super) fn dir(opts: &ScaleOptions) -> PathBuf {
    opts.cache.join(format!("v{VERSION}"))
}

/// The CA kept in `dir`, or a new one (the folder emptied first: what it held was made by
/// another CA).
pub(super) fn ca(dir: &Path) -> Result<Ca, ScaleError> {
    match read_ca(dir) {
        Some(ca) => Ok(ca),
        None => {
            let _ = std::fs::remove_dir_all(dir);
            make_ca(dir)
        }
    }
}

/// How long each data set in `dir` took to make (none known: empty).
pub(super) fn made(dir: &Path) -> Made {
    std::fs::read(dir.join("made.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Keeps `made` in `dir` (`made.json`).
pub(super) fn keep_made(dir: &Path, made: &Made) -> Result<(), ScaleError> {
    let made_path = dir.join("made.json");
    let json = serde_json::to_vec_pretty(made).unwrap_or_default();
    std::fs::write(&made_path, json).map_err(io(&made_path))
}
