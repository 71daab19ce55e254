//! `certbench revocation-scale`: what a revocation lookup costs against the size of its data.
//!
//! The data sets: Chrome's CRLSet at its real size and at its 250 KB limit
//! ([`crlset::Scale::CHROME`], [`crlset::Scale::LIMIT`]); CRLite filters at given scales
//! ([`crlite::Scale`]), each checked in memory as Gecko checks it ([`Filter::check_gecko`]),
//! in memory as a rustls user with `clubcard-crlite` ([`Filter::check_rustls`]) and through
//! upki, which reads its files per check ([`UpkiStore::check`]); one CRL per size, parsed with
//! rustls-webpki's owned parser and checked as `Crls::check_path` does (the CRL's signature
//! verified per lookup). Everything is issued by one CA (ECDSA P-256, made in
//! [`crate::certs::scale_ca`]): two leaves, one revoked in every data set and one not, each
//! with an SCT from a test log that every filter covers, so every check answers for a covered
//! leaf and its verdict is checked.
//!
//! Measured per data set: cold (a fresh load: read the file, parse, deserialise or open),
//! [`ScaleOptions::cold_runs`] times, the data sets in turn; resident bytes (the structure's own
//! estimate, and the RSS growth around its first load from `/proc/self/statm`); warm (one check
//! of each leaf) [`ScaleOptions::warm_runs`] times, the data sets interleaved. Generation time is
//! reported, from the cache when the data was made by an earlier run.
//!
//! Cache: `<cache>/v<VERSION>/`: the CA (`ca.der`, `ca.key.pem`), the leaves, one file (or
//! folder) per data set, `made.json` (how long each took to make) and `made-at` (checks run at
//! that time, so a cache never goes stale: the cost measured does not depend on it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use certbench_core::methods::rustls_serial::signature_algorithms;
use certbench_core::revocation::crl::Crls;
use certbench_core::revocation::crlite::{Filter, UpkiStore};
use certbench_core::revocation::crlset::CrlSet;
use certbench_core::revocation::{PathParts, RevocationError, Status, VerifiedPath};
use certbench_schema::records::revocation_scale::{Quantiles as Spread, Report, Row};

use super::{Issued, Issuer, crlite, crlset, issuers};
use crate::certs::crl;
use crate::certs::scale_ca::{GOOD_SERIAL, REVOKED_SERIAL, ScaleCa};

/// Bumped whenever what is generated changes.
const VERSION: u32 = 1;
/// The largest CRL made (webpki parses it whole in memory; the generator builds it whole too).
pub const MAX_CRL_SERIALS: usize = 5_000_000;

/// What to measure.
#[derive(Clone, Debug)]
pub struct ScaleOptions {
    /// CRLite filter scales, each checked three ways.
    pub crlite: Vec<crlite::Scale>,
    /// CRL sizes, in revoked serials.
    pub crl_sizes: Vec<usize>,
    /// Fresh loads per data set (K).
    pub cold_runs: usize,
    /// Warm checks per leaf and data set (N).
    pub warm_runs: usize,
    /// The cache's folder (`.certbench-cache/revocation-scale`).
    pub cache: PathBuf,
}

/// Why the table cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ScaleError {
    /// Options that measure nothing or cannot be made.
    #[error("revocation-scale: {0}")]
    BadInput(String),
    /// A file could not be read or written.
    #[error("revocation-scale: {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The CA, the log or a leaf could not be made or read back.
    #[error("revocation-scale: the test CA: {0}")]
    Ca(String),
    /// The CRLSet generator refused.
    #[error("revocation-scale: CRLSet: {0}")]
    CrlSet(#[from] crlset::CrlSetError),
    /// The filter builder refused.
    #[error("revocation-scale: {0}")]
    Crlite(#[from] crlite::GenError),
    /// The CRL generator refused.
    #[error("revocation-scale: CRL: {0}")]
    Crl(#[from] crl::CrlGenError),
    /// A data set could not be loaded or checked.
    #[error("revocation-scale: {data}: {source}")]
    Check {
        /// The data set.
        data: String,
        /// Why.
        source: RevocationError,
    },
    /// A check's verdict was not the leaf's.
    #[error("revocation-scale: {data}: the {leaf} leaf's check said {got:?}, not {want:?}")]
    Verdict {
        /// The data set.
        data: String,
        /// `not-revoked` or `revoked`.
        leaf: &'static str,
        /// What the check said.
        got: Status,
        /// What it should have said.
        want: Status,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ScaleError + '_ {
    move |source| ScaleError::Io {
        path: path.to_owned(),
        source,
    }
}

fn ca_err(e: impl std::fmt::Display) -> ScaleError {
    ScaleError::Ca(e.to_string())
}

/// One data set and how it is checked.
#[derive(Clone, Copy, Debug)]
enum Data {
    CrlSet(&'static str, crlset::Scale),
    Gecko(crlite::Scale),
    Rustls(crlite::Scale),
    Upki(crlite::Scale),
    Crl(usize),
}

impl Data {
    /// Its file (or folder) in the cache.
    fn file(self) -> String {
        match self {
            Data::CrlSet(name, _) => format!("crlset-{name}"),
            Data::Gecko(s) | Data::Rustls(s) => format!("crlite-{}.filter", s.name),
            Data::Upki(s) => format!("upki-{}", s.name),
            Data::Crl(n) => format!("crl-{n}.crl"),
        }
    }

    /// (data, check, holds, published).
    fn labels(self) -> (String, &'static str, String, String) {
        let (p0, p1, p2) = crlite::PUBLISHED;
        let crlite = |s: crlite::Scale, check| {
            (
                format!("CRLite, {}", s.name),
                check,
                format!("{} certificates + 2", thousands(s.certificates())),
                format!(
                    "{} M certificates, {} M revoked, {} MB (ePrint 2025/610)",
                    p0 / 1_000_000,
                    p1 / 1_000_000,
                    p2 as f64 / 1e6
                ),
            )
        };
        match self {
            Data::CrlSet(name, s) => (
                format!("CRLSet, {name}"),
                "crlset",
                format!(
                    "{} parents, {} serials",
                    s.parents,
                    thousands(s.serials as u64)
                ),
                match name {
                    "chrome" => "Chrome's, July 2025: 21.7 KB".into(),
                    _ => "≤ 250 KB (Chromium's CRLSets page)".into(),
                },
            ),
            Data::Gecko(s) => crlite(s, "crlite (gecko)"),
            Data::Rustls(s) => crlite(s, "crlite (rustls)"),
            Data::Upki(s) => crlite(s, "upki"),
            Data::Crl(n) => (
                format!("CRL, {} serials", thousands(n as u64)),
                "crl",
                format!("{} serials", thousands(n as u64)),
                "webpki parse: 0.19 / 184 / 502 ms at 2 k / 600 k / 1.5 M serials (rustls-webpki PR #108)"
                    .into(),
            ),
        }
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn sets(opts: &ScaleOptions) -> Vec<Data> {
    let mut sets = vec![
        Data::CrlSet("chrome", crlset::Scale::CHROME),
        Data::CrlSet("limit", crlset::Scale::LIMIT),
    ];
    for &s in &opts.crlite {
        sets.extend([Data::Gecko(s), Data::Rustls(s), Data::Upki(s)]);
    }
    sets.extend(opts.crl_sizes.iter().map(|&n| Data::Crl(n)));
    sets
}

fn check_options(opts: &ScaleOptions) -> Result<(), ScaleError> {
    let bad = |s: String| Err(ScaleError::BadInput(s));
    if opts.cold_runs == 0 || opts.warm_runs == 0 {
        return bad("cold and warm runs must be at least 1".into());
    }
    if let Some(&n) = opts
        .crl_sizes
        .iter()
        .find(|&&n| n == 0 || n > MAX_CRL_SERIALS)
    {
        return bad(format!(
            "a CRL of {n} serials: sizes are 1..={MAX_CRL_SERIALS} (the revoked leaf is one of them)"
        ));
    }
    let mut names: Vec<_> = opts.crlite.iter().map(|s| s.name).collect();
    names.sort();
    names.dedup();
    if names.len() != opts.crlite.len() {
        return bad("a CRLite scale is named twice".into());
    }
    Ok(())
}

/// The CA and its two leaves, made once per cache.
type Ca = ScaleCa;

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

/// The CA as the generators see it: both leaves (one revoked, with their SCTs) and
/// `extra` synthetic serials, about 8,900 per million of them revoked.
fn issuer(ca: &Ca, extra: usize) -> Issuer {
    let mut issued = vec![
        Issued {
            serial: GOOD_SERIAL.to_vec(),
            revoked: false,
            scts: issuers::scts(&ca.good),
        },
        Issued {
            serial: REVOKED_SERIAL.to_vec(),
            revoked: true,
            scts: issuers::scts(&ca.revoked),
        },
    ];
    let serials = crl::synthetic_serials(extra, 0x5ca1e);
    issued.extend(serials.into_iter().enumerate().map(|(i, serial)| Issued {
        serial,
        revoked: i % 112 == 0,
        scts: vec![],
    }));
    Issuer {
        name: crate::certs::scale_ca::NAME.into(),
        spki: certbench_core::der::spki_tlv(&ca.der)
            .map(<[u8]>::to_vec)
            .unwrap_or_default(),
        issued,
    }
}

/// How long each data set took to make, ms (`made.json`).
type Made = BTreeMap<String, f64>;

/// Makes `set`'s file in `dir` unless it is there; its generation time and whether it was.
fn ensure(dir: &Path, ca: &Ca, set: Data, made: &mut Made) -> Result<(f64, bool), ScaleError> {
    let file = set.file();
    let path = dir.join(&file);
    if path.exists() {
        return Ok((made.get(&file).copied().unwrap_or(0.0), true));
    }
    let t = Instant::now();
    let tmp = dir.join(format!("{file}.tmp"));
    let _ = std::fs::remove_dir_all(&tmp);
    match set {
        Data::CrlSet(_, scale) => {
            let not_after = ca.made_at + super::bundle::CRLSET_DAYS * 86_400;
            let bytes = crlset::generate(&[issuer(ca, 0)], scale, 1, not_after)?;
            std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
        }
        Data::Gecko(scale) | Data::Rustls(scale) => {
            let issuer = issuer(ca, scale.certs_per_issuer);
            let sct = issuers::scts(&ca.good);
            let coverage: Vec<_> = sct
                .iter()
                .map(|&(log, ts)| (log, ts - 86_400_000, ca.made_at * 1000))
                .collect();
            let bytes = crlite::build_filter(&[issuer], &coverage, scale, 1)?;
            std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
        }
        Data::Upki(scale) => {
            // From the in-memory rows' filter: the same data, as upki's store.
            ensure(dir, ca, Data::Rustls(scale), made)?;
            let from = dir.join(Data::Rustls(scale).file());
            let filter = std::fs::read(&from).map_err(io(&from))?;
            crlite::write_upki_store(&tmp, &filter, ca.made_at)?;
        }
        Data::Crl(n) => {
            let issuer = ca.signer().map_err(ca_err)?;
            let revoked = [REVOKED_SERIAL.to_vec()];
            let (this, next) = (ca.made_at - 3600, ca.made_at + 7 * 86_400);
            let bytes = crl::synthetic(&issuer, n, n as u64, &revoked, this, next)?;
            std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
        }
    }
    std::fs::rename(&tmp, &path).map_err(io(&path))?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    made.insert(file, ms);
    Ok((ms, false))
}

/// A data set loaded.
enum Loaded {
    CrlSet(CrlSet),
    Filter(Filter),
    Upki(UpkiStore),
    Crl(Crls),
}

impl Loaded {
    /// Reads and parses (or opens) `set`'s data: what a cold check pays first.
    fn load(dir: &Path, set: Data) -> Result<Loaded, ScaleError> {
        let path = dir.join(set.file());
        let bytes = || std::fs::read(&path).map_err(io(&path));
        let loaded = match set {
            Data::CrlSet(..) => CrlSet::parse(&bytes()?).map(Loaded::CrlSet),
            Data::Gecko(_) | Data::Rustls(_) => Filter::load(&bytes()?).map(Loaded::Filter),
            Data::Upki(_) => UpkiStore::open(&path).map(Loaded::Upki),
            Data::Crl(_) => Crls::parse(&[bytes()?]).map(Loaded::Crl),
        };
        loaded.map_err(|source| ScaleError::Check {
            data: set.file(),
            source,
        })
    }

    fn check(
        &self,
        set: Data,
        path: &VerifiedPath<'_>,
        now: u64,
    ) -> Result<Status, RevocationError> {
        match (self, set) {
            (Loaded::CrlSet(s), _) => s.check_path(path, now),
            (Loaded::Filter(f), Data::Gecko(_)) => f.check_gecko(path, now),
            (Loaded::Filter(f), _) => f.check_rustls(path),
            (Loaded::Upki(u), _) => u.check(path),
            (Loaded::Crl(c), _) => c.check_path(path, signature_algorithms(), now),
        }
    }

    fn data_bytes(&self) -> u64 {
        match self {
            Loaded::CrlSet(s) => s.data_bytes(),
            Loaded::Filter(f) => f.data_bytes(),
            Loaded::Upki(u) => u.data_bytes(),
            Loaded::Crl(c) => c.data_bytes(),
        }
    }

    fn resident_bytes(&self) -> Option<u64> {
        match self {
            Loaded::CrlSet(s) => Some(s.resident_bytes()),
            Loaded::Filter(f) => Some(f.resident_bytes()),
            Loaded::Upki(_) => None,
            Loaded::Crl(c) => Some(c.resident_bytes()),
        }
    }
}

/// Resident bytes now, from `/proc/self/statm` (its second field, in pages).
fn statm_resident() -> Option<i64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: i64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

fn elapsed_ns(t: Instant) -> u64 {
    t.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64
}

/// One data set through the run.
struct Measured {
    set: Data,
    loaded: Loaded,
    generated_ms: f64,
    cached: bool,
    rss_delta: Option<i64>,
    cold: Vec<u64>,
    warm: [Vec<u64>; 2],
}

/// Makes (or finds) the data, then measures it (see the module docs).
pub fn run(opts: &ScaleOptions, note: &dyn Fn(&str)) -> Result<Report, ScaleError> {
    check_options(opts)?;
    let dir = opts.cache.join(format!("v{VERSION}"));
    let ca = match read_ca(&dir) {
        Some(ca) => ca,
        None => {
            let _ = std::fs::remove_dir_all(&dir);
            make_ca(&dir)?
        }
    };
    let made_path = dir.join("made.json");
    let mut made: Made = std::fs::read(&made_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut measured = Vec::new();
    for set in sets(opts) {
        let (data, check, ..) = set.labels();
        if !dir.join(set.file()).exists() {
            note(&format!(
                "revocation-scale: making {data} for {check} (once; cached in {})",
                dir.display()
            ));
        }
        let (generated_ms, cached) = ensure(&dir, &ca, set, &mut made)?;
        let json = serde_json::to_vec_pretty(&made).unwrap_or_default();
        std::fs::write(&made_path, json).map_err(io(&made_path))?;
        let before = statm_resident();
        let loaded = Loaded::load(&dir, set)?;
        let rss_delta = before.zip(statm_resident()).map(|(a, b)| b - a);
        measured.push(Measured {
            set,
            loaded,
            generated_ms,
            cached,
            rss_delta,
            cold: Vec::with_capacity(opts.cold_runs),
            warm: [Vec::new(), Vec::new()],
        });
    }
    note("revocation-scale: measuring");
    cold(&dir, &mut measured, opts.cold_runs)?;
    let verdicts = warm(&ca, &mut measured, opts.warm_runs)?;
    Ok(report(opts, measured, verdicts, &dir))
}

/// K fresh loads per data set, the data sets in turn.
fn cold(dir: &Path, measured: &mut [Measured], runs: usize) -> Result<(), ScaleError> {
    for _ in 0..runs {
        for m in measured.iter_mut() {
            let t = Instant::now();
            let loaded = Loaded::load(dir, m.set)?;
            m.cold.push(elapsed_ns(t));
            drop(std::hint::black_box(loaded));
        }
    }
    Ok(())
}

/// N checks of each leaf per data set, interleaved: round `i` checks every data set, starting
/// at the `i`-th; every verdict checked. The verdicts, as samples spell them.
fn warm(ca: &Ca, measured: &mut [Measured], runs: usize) -> Result<[&'static str; 2], ScaleError> {
    let good = PathParts::from_native(vec![&ca.good[..], &ca.der[..]]).map_err(ca_err)?;
    let revoked = PathParts::from_native(vec![&ca.revoked[..], &ca.der[..]]).map_err(ca_err)?;
    let paths = [
        ("not-revoked", good.view(), Status::Good),
        ("revoked", revoked.view(), Status::Revoked { depth: 0 }),
    ];
    let n = measured.len();
    for round in 0..runs {
        for j in 0..n {
            let m = &mut measured[(round + j) % n];
            for (k, (leaf, path, want)) in paths.iter().enumerate() {
                let t = Instant::now();
                let got = m.loaded.check(m.set, path, ca.made_at);
                let ns = elapsed_ns(t);
                let got = got.map_err(|source| ScaleError::Check {
                    data: m.set.file(),
                    source,
                })?;
                if got != *want {
                    return Err(ScaleError::Verdict {
                        data: m.set.file(),
                        leaf,
                        got,
                        want: *want,
                    });
                }
                m.warm[k].push(ns);
            }
        }
    }
    Ok([paths[0].2.name(), paths[1].2.name()])
}

fn report(opts: &ScaleOptions, measured: Vec<Measured>, verdicts: [&str; 2], dir: &Path) -> Report {
    let spread = |v: &[u64]| {
        Spread::of(v).unwrap_or(Spread {
            n: 0,
            median: 0.0,
            p10: 0.0,
            p90: 0.0,
        })
    };
    let rows = measured
        .into_iter()
        .map(|m| {
            let (data, check, holds, published) = m.set.labels();
            Row {
                data,
                check: check.into(),
                holds,
                published,
                generated_ms: m.generated_ms,
                cached: m.cached,
                data_bytes: m.loaded.data_bytes(),
                resident_bytes: m.loaded.resident_bytes(),
                rss_delta_bytes: m.rss_delta,
                cold: spread(&m.cold),
                warm_good: spread(&m.warm[0]),
                warm_revoked: spread(&m.warm[1]),
                verdict_good: verdicts[0].into(),
                verdict_revoked: verdicts[1].into(),
            }
        })
        .collect();
    Report {
        rows,
        cold_runs: opts.cold_runs,
        warm_runs: opts.warm_runs,
        cache: dir.display().to_string(),
    }
}
