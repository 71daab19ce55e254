//! What a `--pq` run measured of the post-quantum twins beside today's chains
//! (`config.profile`): per site and profile the bytes on the wire and the server's first flight
//! against TCP's initial window; per method and profile the verification's cost as a ratio to
//! today's, and the connection; and the answer's lines.
//!
//! A ratio is taken per site (median own cost on the twin ÷ median own cost on today's chain,
//! same method, same run) and summarised as the median over sites with its range: two
//! profiles' samples are never pooled.

use serde::Serialize;

use crate::schema::{Sample, Stage, Verdict};
use crate::units::human;

/// TCP's initial congestion window, in segments (RFC 6928).
pub const INITIAL_WINDOW: u32 = 10;
/// A segment's payload on Ethernet (1,500-byte MTU less IPv4 and TCP headers without options),
/// as RFC 6928 counts its 14,600 bytes.
pub const MSS: u32 = 1460;
/// The name today's chains have in a `--pq` run.
pub const CLASSICAL: &str = "classical";

/// The segments a flight of `bytes` takes.
pub fn segments(bytes: u64) -> u64 {
    bytes.div_ceil(u64::from(MSS))
}

/// The round trips a first flight of `segments` costs beyond its own, in slow start from the
/// initial window with no loss: after r round trips the sender has sent `IW · (2^r − 1)`.
pub fn extra_round_trips(segments: u64) -> u32 {
    let mut sent = 0u64;
    let mut window = u64::from(INITIAL_WINDOW);
    let mut rounds = 0;
    while sent + window < segments {
        sent += window;
        window *= 2;
        rounds += 1;
    }
    rounds
}

/// What a connection over an emulated link should take, by the link's model: what the same
/// connection took on loopback, plus a round trip each for TCP's handshake, TLS 1.3's and the
/// HTTP request, plus one per window the server's first flight overflows
/// ([`extra_round_trips`]), plus the first flight's time on the wire at `bandwidth` bits per
/// second (the other flights are a few hundred bytes). Nanoseconds.
pub fn model_connection_ns(
    loopback_ns: f64,
    rtt_ns: f64,
    first_flight_bytes: u64,
    bandwidth: Option<u64>,
) -> f64 {
    let rounds = 3 + extra_round_trips(segments(first_flight_bytes));
    let on_wire = bandwidth.map_or(0.0, |bps| {
        first_flight_bytes as f64 * 8.0 / bps as f64 * 1e9
    });
    loopback_ns + f64::from(rounds) * rtt_ns + on_wire
}

/// One site under one profile: what its chain costs on the wire.
#[derive(Clone, Debug, Serialize)]
pub struct FlightRow {
    /// The site id.
    pub site: String,
    /// The profile (`classical` for today's chain).
    pub profile: String,
    /// The certificates' DER bytes.
    pub chain_bytes: Option<u64>,
    /// Their TLS 1.3 Certificate message.
    pub cert_message_bytes: Option<u64>,
    /// The server's first flight (median over the samples that counted it).
    pub first_flight_bytes: Option<u64>,
}

impl FlightRow {
    /// The first flight's segments.
    pub fn segments(&self) -> Option<u64> {
        self.first_flight_bytes.map(segments)
    }

    /// Round trips the first flight adds beyond the initial window.
    pub fn extra_round_trips(&self) -> Option<u32> {
        self.segments().map(extra_round_trips)
    }
}

/// One method on one post-quantum profile against today's chains.
#[derive(Clone, Debug, Serialize)]
pub struct CostRow {
    /// The method.
    pub method: String,
    /// The profile.
    pub profile: String,
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
    /// Why the method measured nothing on the twins (`unsupported algorithm: ML-DSA-44`).
    pub unsupported: Option<String>,
}

/// A `--pq` run's figures.
#[derive(Clone, Debug, Serialize)]
pub struct PqSummary {
    /// The profiles, today's first, in order of first appearance.
    pub profiles: Vec<String>,
    /// The emulated link the samples crossed (`config.link`), if any.
    pub link: Option<String>,
    /// Per site and profile.
    pub flights: Vec<FlightRow>,
    /// Per method and post-quantum profile.
    pub costs: Vec<CostRow>,
    /// Per method that measured twins, and profile: its verdicts on them against today's.
    pub verdicts: Vec<VerdictCheck>,
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
}

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
    };
    for row in rows {
        let twin = first_verdict(&of(row, Some(method), profile));
        let today = first_verdict(&of(row, Some(method), CLASSICAL));
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

fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

fn profile(s: &Sample) -> Option<&str> {
    s.config.profile.as_deref()
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
    let (mut sites, mut methods): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for s in &samples {
        let Some(p) = profile(s) else { continue };
        if !profiles.iter().any(|q| q == p) {
            profiles.push(p.to_owned());
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
    profiles.sort_by_key(|p| p != CLASSICAL);
    let of = |site: &str, method: Option<&str>, p: &str| -> Vec<&Sample> {
        (samples.iter().copied())
            .filter(|s| row_key(s) == site && profile(s) == Some(p))
            .filter(|s| method.is_none_or(|m| s.method == m))
            .collect()
    };
    let flights = (sites.iter())
        .flat_map(|site| profiles.iter().map(move |p| (p, site)))
        .filter_map(|(p, site)| flight(site, p, &of(site, None, p)))
        .collect();
    let costs = (methods.iter())
        .flat_map(|m| {
            profiles
                .iter()
                .filter(|p| *p != CLASSICAL)
                .map(move |p| (m, p))
        })
        .map(|(m, p)| cost(m, p, &sites, &of))
        .collect();
    let verdicts = (methods.iter())
        .flat_map(|m| {
            profiles
                .iter()
                .filter(|p| *p != CLASSICAL)
                .map(move |p| (m, p))
        })
        .filter_map(|(m, p)| verdicts(m, p, &sites, &of))
        .collect();
    let link = samples.iter().find_map(|s| s.config.link.clone());
    Some(PqSummary {
        profiles,
        link,
        flights,
        costs,
        verdicts,
    })
}

fn flight(site: &str, profile: &str, group: &[&Sample]) -> Option<FlightRow> {
    let med = |f: fn(&Sample) -> Option<u64>| {
        let mut v: Vec<f64> = group
            .iter()
            .filter_map(|s| f(s))
            .map(|b| b as f64)
            .collect();
        median(&mut v).map(|m| m.round() as u64)
    };
    let row = FlightRow {
        site: site.to_owned(),
        profile: profile.to_owned(),
        chain_bytes: med(|s| s.meta.chain_bytes),
        cert_message_bytes: med(|s| s.meta.cert_message_bytes),
        first_flight_bytes: med(|s| s.meta.first_flight_bytes),
    };
    (row.chain_bytes.is_some() || row.first_flight_bytes.is_some()).then_some(row)
}

/// Median of a stage (or the own cost, `None`) over `group`'s measured samples.
fn stage_median(group: &[&Sample], stage: Option<Stage>) -> Option<f64> {
    let mut v: Vec<f64> = (group.iter())
        .filter(|s| s.verdict.measured())
        .filter_map(|s| match stage {
            Some(st) => s.stage(st),
            None => s.own_cost(),
        })
        .map(|ns| ns as f64)
        .collect();
    median(&mut v)
}

fn cost<'a>(
    method: &str,
    profile: &str,
    sites: &[String],
    of: &impl Fn(&str, Option<&str>, &str) -> Vec<&'a Sample>,
) -> CostRow {
    let (mut ratios, mut own, mut classical) = (Vec::new(), Vec::new(), Vec::new());
    let (mut conn, mut classical_conn) = (Vec::new(), Vec::new());
    let mut unsupported = None;
    for site in sites {
        let twin = of(site, Some(method), profile);
        let today = of(site, Some(method), CLASSICAL);
        if let Some(Verdict::Unsupported(why)) = twin.first().map(|s| &s.verdict) {
            unsupported.get_or_insert_with(|| why.clone());
        }
        let (t, c) = (stage_median(&twin, None), stage_median(&today, None));
        if let (Some(t), Some(c)) = (t, c) {
            ratios.push(t / c.max(1.0));
            own.push(t);
            classical.push(c);
        }
        conn.extend(stage_median(&twin, Some(Stage::Connection)));
        classical_conn.extend(stage_median(&today, Some(Stage::Connection)));
    }
    let range = (
        ratios.iter().copied().fold(f64::INFINITY, f64::min),
        ratios.iter().copied().fold(0.0, f64::max),
    );
    CostRow {
        method: method.to_owned(),
        profile: profile.to_owned(),
        sites: ratios.len(),
        ratio: median(&mut ratios),
        range,
        own_ns: median(&mut own),
        classical_own_ns: median(&mut classical),
        connection_ns: (median(&mut conn), median(&mut classical_conn)),
        unsupported,
    }
}

/// `ML-DSA-44` for `mldsa44`, the profile's own name otherwise.
pub fn profile_label(profile: &str) -> String {
    match profile.strip_prefix("mldsa") {
        Some(level) => format!("ML-DSA-{level}"),
        None if profile == "mixed" => "mixed (ML-DSA-44 leaf, ML-DSA-65 CAs)".to_owned(),
        None => profile.to_owned(),
    }
}

impl PqSummary {
    fn flights_of(&self, profile: &str) -> Vec<&FlightRow> {
        self.flights
            .iter()
            .filter(|f| f.profile == profile)
            .collect()
    }

    /// The answer's lines: per profile, what verification costs against today's with
    /// `reference` (the method the run's answer names, when it measured the twins) and the
    /// others, the bytes the first flight adds and the sites it costs a round trip; the
    /// methods that do not implement ML-DSA; on an emulated link, the connection and
    /// verification's share of it.
    pub fn answer(&self, reference: Option<&str>) -> Vec<String> {
        let reference = self.reference(reference);
        let reference = reference.as_deref();
        let mut lines = Vec::new();
        let today = self.flights_of(CLASSICAL);
        for p in self.profiles.iter().filter(|p| *p != CLASSICAL) {
            let rows: Vec<&CostRow> = (self.costs.iter())
                .filter(|c| c.profile == *p && c.ratio.is_some())
                .collect();
            let Some(main) = (rows.iter()).find(|c| Some(c.method.as_str()) == reference) else {
                continue;
            };
            let others: Vec<String> = (rows.iter())
                .filter(|c| c.method != main.method)
                .map(|c| format!("{} ×{:.2}", c.method, c.ratio.unwrap_or(0.0)))
                .collect();
            let mut line = format!(
                "With {} chains verification costs ×{:.2} of today's ({}, median over {} sites, ×{:.2}–×{:.2}{})",
                profile_label(p),
                main.ratio.unwrap_or(0.0),
                main.method,
                main.sites,
                main.range.0,
                main.range.1,
                if others.is_empty() {
                    String::new()
                } else {
                    format!("; {}", others.join(", "))
                }
            );
            line.push_str(&self.bytes_clause(p, &today));
            lines.push(line + ".");
        }
        let mut unsupported: Vec<String> = Vec::new();
        for c in self.costs.iter().filter(|c| c.unsupported.is_some()) {
            if !unsupported.contains(&c.method) {
                unsupported.push(c.method.clone());
            }
        }
        if !unsupported.is_empty() {
            lines.push(format!(
                "Without ML-DSA (unsupported algorithm, so no figure): {}.",
                unsupported.join(", ")
            ));
        }
        lines.extend(self.verdict_line());
        lines.extend(self.link_line(reference));
        lines
    }

    /// Whether every method that verified twins accepted exactly what it accepted of today's
    /// chains.
    fn verdict_line(&self) -> Option<String> {
        let first = self.verdicts.first()?;
        let differ: Vec<String> = (self.verdicts.iter())
            .flat_map(|v| {
                v.differ
                    .iter()
                    .map(move |d| format!("{} on {}: {d}", v.method, v.profile))
            })
            .collect();
        if differ.is_empty() {
            let mut methods: Vec<&str> = Vec::new();
            for v in &self.verdicts {
                if !methods.contains(&v.method.as_str()) {
                    methods.push(&v.method);
                }
            }
            let same_n = self.verdicts.iter().all(|v| v.of == first.of);
            return Some(format!(
                "Verdicts on the twins equal today's for every method that implements ML-DSA ({}): {} each.",
                methods.join(", "),
                if same_n {
                    format!("{} of {}", first.equal, first.of)
                } else {
                    "every row".to_owned()
                }
            ));
        }
        let shown: Vec<&String> = differ.iter().take(5).collect();
        Some(format!(
            "Verdicts on the twins differ from today's in {} cases: {}{}.",
            differ.len(),
            shown
                .iter()
                .map(|d| d.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            if differ.len() > 5 { "; …" } else { "" }
        ))
    }

    /// The method the answer speaks of: `preferred` if it measured the twins, else the one
    /// of those that did that is cheapest on today's chains.
    fn reference(&self, preferred: Option<&str>) -> Option<String> {
        let measured = |c: &&CostRow| c.ratio.is_some();
        if let Some(p) = preferred
            && self.costs.iter().filter(measured).any(|c| c.method == p)
        {
            return Some(p.to_owned());
        }
        (self.costs.iter().filter(measured))
            .min_by(|a, b| {
                let today = |c: &CostRow| c.classical_own_ns.unwrap_or(f64::INFINITY);
                today(a).total_cmp(&today(b))
            })
            .map(|c| c.method.clone())
    }

    /// `; the server's first flight carries B KB more …`, when the flights were counted.
    fn bytes_clause(&self, profile: &str, today: &[&FlightRow]) -> String {
        let twins = self.flights_of(profile);
        let mut more: Vec<f64> = Vec::new();
        for t in &twins {
            let c = today.iter().find(|c| c.site == t.site);
            if let (Some(a), Some(b)) = (t.first_flight_bytes, c.and_then(|c| c.first_flight_bytes))
            {
                more.push(a as f64 - b as f64);
            }
        }
        let over = |rows: &[&FlightRow]| {
            let counted = rows
                .iter()
                .filter(|r| r.first_flight_bytes.is_some())
                .count();
            let over = rows
                .iter()
                .filter(|r| r.extra_round_trips() > Some(0))
                .count();
            (over, counted)
        };
        let (twin_over, counted) = over(&twins);
        let (today_over, _) = over(today);
        match median(&mut more) {
            Some(m) => format!(
                "; the server's first flight carries {:.1} KB more (median over {} sites), {twin_over} of {counted} sites needing an extra round trip (a first flight over TCP's initial window of {INITIAL_WINDOW} × {MSS} B), against {today_over} today",
                m / 1000.0,
                more.len()
            ),
            None => String::new(),
        }
    }

    /// On an emulated link: the connection with today's chains and each profile's, and
    /// verification's share of it, for `reference`.
    fn link_line(&self, reference: Option<&str>) -> Option<String> {
        let link = self.link.as_ref()?;
        let rows: Vec<&CostRow> = (self.costs.iter())
            .filter(|c| Some(c.method.as_str()) == reference && c.connection_ns.0.is_some())
            .collect();
        let first = rows.first()?;
        let (_, today) = first.connection_ns;
        let share = |own: Option<f64>, conn: Option<f64>| match (own, conn) {
            (Some(o), Some(c)) if c > 0.0 => format!("{:.1} %", 100.0 * o / c),
            _ => "—".to_owned(),
        };
        let mut parts = vec![format!(
            "today's chains {} (verification {})",
            today.map_or("—".into(), human),
            share(first.classical_own_ns, today)
        )];
        for c in &rows {
            parts.push(format!(
                "{} {} (verification {})",
                profile_label(&c.profile),
                c.connection_ns.0.map_or("—".into(), human),
                share(c.own_ns, c.connection_ns.0)
            ));
        }
        Some(format!(
            "On the emulated link ({link}) a connection with {} takes (median over sites): {}.",
            first.method,
            parts.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flight_over_the_window_costs_a_round_trip_per_doubling() {
        assert_eq!(segments(14_600), 10);
        assert_eq!(segments(14_601), 11);
        assert_eq!(extra_round_trips(1), 0);
        assert_eq!(extra_round_trips(10), 0);
        assert_eq!(extra_round_trips(11), 1);
        assert_eq!(extra_round_trips(30), 1);
        assert_eq!(extra_round_trips(31), 2);
        assert_eq!(extra_round_trips(70), 2);
        assert_eq!(extra_round_trips(71), 3);
    }
}
