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
//!
//! By role: `options.rs` what to measure, `error.rs` why it cannot be, `catalogue.rs` the
//! data sets (their files and labels), `cache.rs` the cache (the CA, what took how long to
//! make), `generate.rs` each data set made, `measure.rs` loads and checks timed, `report.rs`
//! the table's rows.
//!
//! [`crlset::Scale::CHROME`]: super::crlset::Scale::CHROME
//! [`crlset::Scale::LIMIT`]: super::crlset::Scale::LIMIT
//! [`crlite::Scale`]: super::crlite::Scale
//! [`Filter::check_gecko`]: certbench_core::revocation::crlite::Filter::check_gecko
//! [`Filter::check_rustls`]: certbench_core::revocation::crlite::Filter::check_rustls
//! [`UpkiStore::check`]: certbench_core::revocation::crlite::UpkiStore::check

mod cache;
mod catalogue;
mod error;
mod generate;
mod measure;
mod options;
mod report;

pub use error::ScaleError;
pub use options::{MAX_CRL_SERIALS, ScaleOptions};

use certbench_schema::records::revocation_scale::Report;

use measure::Measured;

/// Makes (or finds) the data, then measures it (see the module docs).
pub fn run(opts: &ScaleOptions, note: &dyn Fn(&str)) -> Result<Report, ScaleError> {
    options::check(opts)?;
    let dir = cache::dir(opts);
    let ca = cache::ca(&dir)?;
    let mut made = cache::made(&dir);
    let mut measured = Vec::new();
    for set in catalogue::sets(opts) {
        let (data, check, ..) = set.labels();
        if !dir.join(set.file()).exists() {
            note(&format!(
                "revocation-scale: making {data} for {check} (once; cached in {})",
                dir.display()
            ));
        }
        let generated = generate::ensure(&dir, &ca, set, &mut made)?;
        cache::keep_made(&dir, &made)?;
        measured.push(Measured::first_load(&dir, set, generated, opts.cold_runs)?);
    }
    note("revocation-scale: measuring");
    measure::cold(&dir, &mut measured, opts.cold_runs)?;
    let verdicts = measure::warm(&ca, &mut measured, opts.warm_runs)?;
    Ok(report::report(opts, measured, verdicts, &dir))
}
