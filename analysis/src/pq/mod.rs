//! What a `--pq` run measured of the post-quantum twins beside today's chains
//! (`config.profile`): per site and profile the bytes on the wire and the server's first flight
//! against TCP's initial window; per method and profile the verification's cost as a ratio to
//! today's, and the connection; and the answer's lines.
//!
//! A ratio is taken per site (median own cost on the twin ÷ median own cost on today's chain,
//! same method, same run) and summarised as the median over sites with its range: two
//! profiles' samples are never pooled, nor two scenarios' (`config.scenario`): a row's
//! `profile` is the set's key, `mldsa44 (pq-scts, trimmed)` ([`set_key`]), the profile alone
//! for today's chains and samples without a scenario.
//! Nor are samples with and without certificate
//! compression (`config.compression`, `--compress-certs`): every row names its compression,
//! and a table holds a row per compression the samples were measured under.

pub mod answer;
mod label;
pub mod onwire;
pub mod quic;
pub mod scenarios;
mod wire;

pub use label::{profile_label, set_key, split_key};
pub use quic::{QuicClient, QuicFit};
pub use wire::{
    FlightRow, TcpWindow, WindowSource, extra_round_trips, model_connection_ns, rounds_beyond,
    segments,
};

use serde::Serialize;

use crate::stats::Spread;
use certbench_schema::{Sample, Stage, Verdict};

/// The name today's chains have in a `--pq` run.
pub const CLASSICAL: &str = "classical";

/// One method on one post-quantum profile against today's chains.
#[derive(Clone, Debug, Serialize)]
pub struct CostRow {
    /// The method.
    pub method: String,
    /// The profile.
    pub profile: String,
    /// The certificate compression offered (`brotli`, `zlib`); `None`: none.
    pub compression: Option<String>,
    /// Median over sites of the per-site ratio of own-cost medians (twin ÷ today's); `None`
    /// when the method measured no site on both.
    pub ratio: Option<f64>,
    /// The ratio's range over sites.
    pub range: (f64, f64),
    /// The sites in the ratio.
    pub sites: usize,
    /// Median over sites of the twin's own cost, nanoseconds.
    pub own_ns: Option<f64>,
    /// Median over sites of today's own cost, nanoseconds.
    pub classical_own_ns: Option<f64>,
    /// Median over sites of the connection on the twins, and on today's chains, nanoseconds.
    pub connection_ns: (Option<f64>, Option<f64>),
    /// Median over sites of the server's CertificateVerify checked (`certificate-verify`,
    /// apart from the chain's own cost) on the twins, and on today's chains, nanoseconds.
    pub certificate_verify_ns: (Option<f64>, Option<f64>),
    /// Median over sites of the certificates' decompression (`cert-decompression`) on the
    /// twins, and on today's chains, nanoseconds; `None` where nothing was compressed.
    pub decompression_ns: (Option<f64>, Option<f64>),
    /// Why the method measured nothing on the twins (`unsupported algorithm: ML-DSA-44`).
    pub unsupported: Option<String>,
    /// The method whose cost on today's chains the ratio divides by, when not the method
    /// itself (one that verifies no X.509 chain, `mtc`: the first of [`REFERENCES`] measured).
    pub reference: Option<String>,
}

/// A `--pq` run's figures.
#[derive(Clone, Debug, Serialize)]
pub struct PqSummary {
    /// The profiles, today's first, in order of first appearance.
    pub profiles: Vec<String>,
    /// The certificate compressions the samples were measured under, none first (`[None]`
    /// without `--compress-certs`); the answer is of the first.
    pub compressions: Vec<Option<String>>,
    /// The emulated link the samples crossed (`config.link`), if any.
    pub link: Option<String>,
    /// The TCP window the first flights were counted against (the first recorded; RFC 6928's
    /// when no sample recorded one).
    pub window: TcpWindow,
    /// Per site and profile.
    pub flights: Vec<FlightRow>,
    /// Per method and post-quantum profile.
    pub costs: Vec<CostRow>,
    /// Per method that measured twins, and profile: its verdicts on them against today's.
    pub verdicts: Vec<VerdictCheck>,
    /// What a row is: `chains` (stored chains, `verify`) or `sites` (the driver).
    pub rows: &'static str,
}

/// One method's verdicts on one profile's twins against its verdicts on today's chains.
#[derive(Clone, Debug, Serialize)]
pub struct VerdictCheck {
    /// The method.
    pub method: String,
    /// The profile.
    pub profile: String,
    /// Rows (chains or sites) where both were verified.
    pub of: usize,
    /// Those where the twin was accepted exactly when today's chain was.
    pub equal: usize,
    /// The others: `row: today's verdict → the twin's`.
    pub differ: Vec<String>,
    /// The method whose verdicts on today's chains the twins' are compared with, when not the
    /// method itself: a method that verifies no X.509 chain (`mtc`) is compared with the first
    /// of [`REFERENCES`] the run measured.
    pub reference: Option<String>,
}

/// The methods whose verdicts on today's chains stand, in this order, for those of a method
/// that cannot verify them (the `mtc` method on the `mtc` profile's twins): the browsers'
/// first (an MTC has no intermediate, so no CA name constraints: rustls-webpki's refusal of
/// DirectoryName constraints, udctest.ads.vt.edu's chain, is no verdict an MTC can repeat).
pub const REFERENCES: &[&str] = &["chrome", "firefox", "rustlsserial"];

/// The verdict of a row's first measured sample.
fn first_verdict<'a>(group: &[&'a Sample]) -> Option<&'a Verdict> {
    group.iter().map(|s| &s.verdict).find(|v| v.measured())
}

fn verdicts<'a>(
    method: &str,
    profile: &str,
    rows: &[String],
    of: &impl Fn(&str, Option<&str>, &str) -> Vec<&'a Sample>,
) -> Option<VerdictCheck> {
    let mut check = VerdictCheck {
        method: method.to_owned(),
        profile: profile.to_owned(),
        of: 0,
        equal: 0,
        differ: Vec::new(),
        reference: None,
    };
    for row in rows {
        let twin = first_verdict(&of(row, Some(method), profile));
        let mut today = first_verdict(&of(row, Some(method), CLASSICAL));
        if today.is_none() && twin.is_some() && !REFERENCES.contains(&method) {
            for r in REFERENCES {
                today = first_verdict(&of(row, Some(r), CLASSICAL));
                if today.is_some() {
                    check.reference = Some((*r).to_owned());
                    break;
                }
            }
        }
        if let (Some(t), Some(c)) = (twin, today) {
            check.of += 1;
            if t.is_ok() == c.is_ok() {
                check.equal += 1;
            } else {
                check
                    .differ
                    .push(format!("{row}: {} → {}", c.label(), t.label()));
            }
        }
    }
    (check.of > 0).then_some(check)
}

fn profile(s: &Sample) -> Option<String> {
    let p = s.config.profile.as_ref()?;
    Some(set_key(p.as_str(), s.config.scenario.as_ref()))
}

fn compression(s: &Sample) -> Option<&str> {
    s.config.compression.as_ref().map(|c| c.as_str())
}

/// What a row is: the stored chain (`verify`), else the site (the driver).
fn row_key(s: &Sample) -> String {
    s.chain.clone().unwrap_or_else(|| s.site_id())
}

/// The summary of the measured samples of a `--pq` run; `None` when no sample names a
/// profile.
pub fn summarize(samples: &[Sample]) -> Option<PqSummary> {
    let samples: Vec<&Sample> = samples.iter().filter(|s| !s.warmup).collect();
    let mut profiles: Vec<String> = Vec::new();
    let mut compressions: Vec<Option<String>> = Vec::new();
    let (mut sites, mut methods): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for s in &samples {
        let Some(p) = profile(s) else { continue };
        if !profiles.contains(&p) {
            profiles.push(p);
        }
        let c = compression(s).map(str::to_owned);
        if !compressions.contains(&c) {
            compressions.push(c);
        }
        if !sites.contains(&row_key(s)) {
            sites.push(row_key(s));
        }
        if !methods.contains(&s.method) {
            methods.push(s.method.clone());
        }
    }
    if profiles.is_empty() {
        return None;
    }
    // Today's first, then each profile in order of first appearance, its scenarios in their
    // order (as served with classical SCTs first).
    let bases: Vec<String> = profiles.iter().map(|p| split_key(p).0.to_owned()).collect();
    profiles.sort_by_key(|p| {
        let (base, scenario) = split_key(p);
        (
            p != CLASSICAL,
            bases.iter().position(|b| b == base),
            scenario,
        )
    });
    compressions.sort();
    // Each method on each post-quantum profile.
    let pairs: Vec<(&String, &String)> = (methods.iter())
        .flat_map(|m| {
            profiles
                .iter()
                .filter(|p| *p != CLASSICAL)
                .map(move |p| (m, p))
        })
        .collect();
    let (mut flights, mut costs, mut verdict_checks) = (Vec::new(), Vec::new(), Vec::new());
    for (i, c) in compressions.iter().enumerate() {
        // One compression's samples at a time: never pooled with another's.
        let of = |site: &str, method: Option<&str>, p: &str| -> Vec<&Sample> {
            (samples.iter().copied())
                .filter(|s| row_key(s) == site && profile(s).as_deref() == Some(p))
                .filter(|s| compression(s) == c.as_deref())
                .filter(|s| method.is_none_or(|m| s.method == m))
                .collect()
        };
        for (j, site) in sites.iter().enumerate() {
            for (k, p) in profiles.iter().enumerate() {
                flights.extend(flight(site, p, &of(site, None, p)).map(|f| ((j, k, i), f)));
            }
        }
        costs.extend((pairs.iter()).map(|(m, p)| cost(m, p, &sites, &of)));
        // Verdicts: of the first compression (the others' handshakes verify the same chains).
        if i == 0 {
            verdict_checks.extend((pairs.iter()).filter_map(|(m, p)| verdicts(m, p, &sites, &of)));
        }
    }
    // Per site, per profile, each compression's row beside the other's.
    flights.sort_by_key(|(key, _)| *key);
    let flights = flights.into_iter().map(|(_, f)| f).collect();
    let verdicts = verdict_checks;
    let link = samples
        .iter()
        .find_map(|s| s.config.link.clone().map(String::from));
    let window = (samples.iter())
        .find_map(|s| s.meta.tcp_window)
        .unwrap_or(TcpWindow::DEFAULT);
    let rows = match samples.iter().any(|s| s.chain.is_some()) {
        true => "chains",
        false => "sites",
    };
    Some(PqSummary {
        profiles,
        compressions,
        link,
        window,
        flights,
        costs,
        verdicts,
        rows,
    })
}

fn flight(site: &str, profile: &str, group: &[&Sample]) -> Option<FlightRow> {
    let med = |f: fn(&Sample) -> Option<u64>| {
        Spread::median_of(group.iter().filter_map(|s| f(s)).map(|b| b as f64))
            .map(|m| m.round() as u64)
    };
    let row = FlightRow {
        site: site.to_owned(),
        profile: profile.to_owned(),
        compression: group
            .first()
            .and_then(|s| compression(s))
            .map(str::to_owned),
        chain_bytes: med(|s| s.meta.chain_bytes),
        cert_message_bytes: med(|s| s.meta.cert_message_bytes),
        first_flight_bytes: med(|s| s.meta.first_flight_bytes),
        handshake_bytes: med(|s| s.meta.first_flight_handshake_bytes),
        window: (group.iter())
            .find_map(|s| s.meta.tcp_window)
            .unwrap_or(TcpWindow::DEFAULT),
        compressed_cert_message_bytes: med(|s| s.meta.compressed_cert_message_bytes),
    };
    (row.chain_bytes.is_some() || row.first_flight_bytes.is_some()).then_some(row)
}

/// Median of a stage (or the own cost, `None`) over `group`'s measured samples.
fn stage_median(group: &[&Sample], stage: Option<Stage>) -> Option<f64> {
    let v: Vec<f64> = (group.iter())
        .filter(|s| s.verdict.measured())
        .filter_map(|s| match stage {
            Some(st) => s.stage(st),
            None => s.own_cost(),
        })
        .map(|ns| ns as f64)
        .collect();
    Spread::median_of(v)
}

fn cost<'a>(
    method: &str,
    profile: &str,
    sites: &[String],
    of: &impl Fn(&str, Option<&str>, &str) -> Vec<&'a Sample>,
) -> CostRow {
    let (mut ratios, mut own, mut classical) = (Vec::new(), Vec::new(), Vec::new());
    let (mut conn, mut classical_conn) = (Vec::new(), Vec::new());
    let (mut cv, mut classical_cv) = (Vec::new(), Vec::new());
    let (mut dec, mut classical_dec) = (Vec::new(), Vec::new());
    let (mut unsupported, mut reference) = (None, None);
    let mut compressed = None;
    for site in sites {
        let twin = of(site, Some(method), profile);
        let mut today = of(site, Some(method), CLASSICAL);
        if let Some(c) = twin.iter().chain(&today).find_map(|s| compression(s)) {
            compressed.get_or_insert_with(|| c.to_owned());
        }
        if let Some(Verdict::Unsupported(why)) = twin.first().map(|s| &s.verdict) {
            unsupported.get_or_insert_with(|| why.clone());
        }
        let t = stage_median(&twin, None);
        let mut c = stage_median(&today, None);
        if c.is_none() && t.is_some() && !REFERENCES.contains(&method) {
            for r in REFERENCES {
                let theirs = of(site, Some(r), CLASSICAL);
                if let Some(m) = stage_median(&theirs, None) {
                    (c, today, reference) = (Some(m), theirs, Some((*r).to_owned()));
                    break;
                }
            }
        }
        if let (Some(t), Some(c)) = (t, c) {
            ratios.push(t / c.max(1.0));
            own.push(t);
            classical.push(c);
        }
        conn.extend(stage_median(&twin, Some(Stage::Connection)));
        classical_conn.extend(stage_median(&today, Some(Stage::Connection)));
        cv.extend(stage_median(&twin, Some(Stage::CertificateVerify)));
        classical_cv.extend(stage_median(&today, Some(Stage::CertificateVerify)));
        dec.extend(stage_median(&twin, Some(Stage::CertDecompression)));
        classical_dec.extend(stage_median(&today, Some(Stage::CertDecompression)));
    }
    let spread = Spread::of(&ratios);
    CostRow {
        method: method.to_owned(),
        profile: profile.to_owned(),
        sites: ratios.len(),
        ratio: spread.map(|s| s.median),
        // No ratio: an empty range, as a fold over none gives it.
        range: spread.map_or((f64::INFINITY, 0.0), |s| (s.lo, s.hi)),
        own_ns: Spread::median_of(own),
        classical_own_ns: Spread::median_of(classical),
        connection_ns: (Spread::median_of(conn), Spread::median_of(classical_conn)),
        certificate_verify_ns: (Spread::median_of(cv), Spread::median_of(classical_cv)),
        decompression_ns: (Spread::median_of(dec), Spread::median_of(classical_dec)),
        compression: compressed,
        unsupported,
        reference,
    }
}

#[cfg(test)]
mod tests;
