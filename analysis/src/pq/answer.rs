//! The figures of a `--pq` run's answer: per profile, the cost against today's and the bytes
//! and round trips the first flight adds; the methods without ML-DSA; whether the verdicts
//! held; on an emulated link, the connection and verification's share of it.
//! `export::markdown::pq` words them.

use super::scenarios::ScenarioRange;
use super::{CLASSICAL, CostRow, FlightRow, PqSummary, TcpWindow, quic, split_key};
use crate::stats::Spread;

/// The Merkle Tree Certificates profile's name, and the one method that verifies them.
const MTC: &str = "mtc";

/// What the first flight adds on one profile's twins.
#[derive(Clone, Debug, PartialEq)]
pub struct BytesMore {
    /// The median over rows of the twin's first flight − today's, bytes.
    pub more: f64,
    /// Rows with both counted.
    pub n: usize,
    /// Rows whose twin's first flight needs an extra round trip.
    pub twin_over: usize,
    /// Rows whose twin's first flight was counted.
    pub counted: usize,
    /// Rows whose first flight today needs one.
    pub today_over: usize,
    /// The TCP window they were counted against.
    pub window: TcpWindow,
    /// Over QUIC against Chrome's Initials (`quic::CHROME`): rows whose twin's first flight
    /// needs an extra round trip, rows counted (their handshake bytes known), and today's.
    pub quic: Option<QuicOver>,
}

/// Rows whose first flight over QUIC overflows the amplification budget.
#[derive(Clone, Debug, PartialEq)]
pub struct QuicOver {
    /// The browser whose Initials the budget is of.
    pub browser: &'static str,
    /// Its budget, bytes.
    pub budget: u64,
    /// Twins needing an extra round trip.
    pub twin_over: usize,
    /// Twins counted.
    pub counted: usize,
    /// Today's chains needing one.
    pub today_over: usize,
}

/// One post-quantum profile's line.
#[derive(Clone, Debug)]
pub struct ProfileAnswer {
    /// The profile.
    pub profile: String,
    /// The reference method's cost row.
    pub main: CostRow,
    /// The other methods' ratios, in the rows' order.
    pub others: Vec<(String, f64)>,
    /// What the first flight adds, when the flights were counted.
    pub bytes: Option<BytesMore>,
}

/// The verdicts on the twins against today's.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdicts {
    /// Every method accepted exactly what it accepted today: the methods, and the rows
    /// (equal, of) when every check had the same number.
    Equal(Vec<String>, Option<(usize, usize)>),
    /// The cases that differ: (method, profile, the row's verdicts).
    Differ(Vec<(String, String, String)>),
}

/// On an emulated link, for the reference method.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkAnswer {
    /// The link.
    pub link: String,
    /// The method.
    pub method: String,
    /// Today's chains: (connection, own cost), medians over sites.
    pub today: (Option<f64>, Option<f64>),
    /// Each set of chains.
    pub profiles: Vec<LinkSet>,
}

/// One set of chains on the emulated link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSet {
    /// The set's key (profile and scenario).
    pub profile: String,
    /// The connection, median over sites.
    pub connection_ns: Option<f64>,
    /// The own cost, median over sites.
    pub own_ns: Option<f64>,
    /// The method that measured it, when not the answer's (a set it cannot verify: `mtc`).
    pub by: Option<String>,
}

/// The figures of a `--pq` run's answer.
#[derive(Clone, Debug)]
pub struct PqAnswer {
    /// What a row is (`sites`, `chains`).
    pub rows: &'static str,
    /// One per post-quantum set the reference method measured; of a profile measured under
    /// several scenarios, only the set of its first scenario (its range is in `ranges`).
    pub profiles: Vec<ProfileAnswer>,
    /// Each profile measured under several scenarios: its range over them.
    pub ranges: Vec<ScenarioRange>,
    /// The methods that do not implement ML-DSA (on the ML-DSA profiles; `mtc`, which
    /// verifies no X.509 chain, is not one of them).
    pub unsupported: Vec<String>,
    /// The methods that verify no Merkle Tree Certificate (on the `mtc` profile).
    pub unsupported_mtc: Vec<String>,
    /// The verdicts, when any method verified twins.
    pub verdicts: Option<Verdicts>,
    /// On an emulated link.
    pub link: Option<LinkAnswer>,
    /// The certificate compression the figures were measured under (`--compress-certs`):
    /// the summary's first ([`PqSummary::compressions`]); `None`: none.
    pub compression: Option<String>,
}

impl PqSummary {
    fn flights_of(&self, profile: &str) -> Vec<&FlightRow> {
        self.flights
            .iter()
            .filter(|f| f.profile == profile)
            .collect()
    }

    /// The answer's figures: per profile, what verification costs against today's with
    /// `reference` (the method the run's answer names, when it measured the twins) and the
    /// others, the bytes the first flight adds and the rows it costs a round trip; the
    /// methods that do not implement ML-DSA; on an emulated link, the connection and
    /// verification's share of it.
    pub fn answer(&self, reference: Option<&str>) -> PqAnswer {
        if self.compressions.len() > 1 {
            // One configuration's figures: never two compressions' rows together.
            return self.only(self.compressions[0].clone()).answer(reference);
        }
        let reference = self.reference(reference);
        let reference = reference.as_deref();
        let today = self.flights_of(CLASSICAL);
        let ranges = self.scenario_ranges(reference);
        let mut profiles = Vec::new();
        let mut lined: Vec<&str> = Vec::new();
        for p in self.profiles.iter().filter(|p| *p != CLASSICAL) {
            let base = split_key(p).0;
            if ranges.iter().any(|r| r.profile == base) {
                // One line per profile: its first scenario's; the range says the rest.
                if lined.contains(&base) {
                    continue;
                }
                lined.push(base);
            }
            let rows: Vec<&CostRow> = (self.costs.iter())
                .filter(|c| c.profile == *p && c.ratio.is_some())
                .collect();
            // A profile the reference method cannot verify (`mtc`): the first method that can.
            let Some(main) = (rows.iter())
                .find(|c| Some(c.method.as_str()) == reference)
                .or_else(|| rows.first())
            else {
                continue;
            };
            profiles.push(ProfileAnswer {
                profile: p.clone(),
                main: (*main).clone(),
                others: (rows.iter())
                    .filter(|c| c.method != main.method)
                    .map(|c| (c.method.clone(), c.ratio.unwrap_or(0.0)))
                    .collect(),
                bytes: self.bytes_more(p, &today),
            });
        }
        let (mut unsupported, mut unsupported_mtc): (Vec<String>, Vec<String>) = Default::default();
        for c in self.costs.iter().filter(|c| c.unsupported.is_some()) {
            let list = match split_key(&c.profile).0 {
                MTC => &mut unsupported_mtc,
                _ if c.method == MTC => continue,
                _ => &mut unsupported,
            };
            if !list.contains(&c.method) {
                list.push(c.method.clone());
            }
        }
        PqAnswer {
            rows: self.rows,
            profiles,
            ranges,
            unsupported,
            unsupported_mtc,
            verdicts: self.verdicts(),
            link: self.link_answer(reference),
            compression: self.compressions.first().cloned().flatten(),
        }
    }

    /// The summary of `compression`'s rows alone.
    fn only(&self, compression: Option<String>) -> PqSummary {
        let mut one = self.clone();
        one.flights.retain(|f| f.compression == compression);
        one.costs.retain(|c| c.compression == compression);
        one.compressions = vec![compression];
        one
    }

    /// Whether every method that verified twins accepted exactly what it accepted of today's
    /// chains.
    fn verdicts(&self) -> Option<Verdicts> {
        let first = self.verdicts.first()?;
        let differ: Vec<(String, String, String)> = (self.verdicts.iter())
            .flat_map(|v| {
                (v.differ.iter()).map(move |d| (v.method.clone(), v.profile.clone(), d.clone()))
            })
            .collect();
        if !differ.is_empty() {
            return Some(Verdicts::Differ(differ));
        }
        let mut methods: Vec<String> = Vec::new();
        for v in &self.verdicts {
            if !methods.contains(&v.method) {
                methods.push(v.method.clone());
            }
        }
        let same_n = self.verdicts.iter().all(|v| v.of == first.of);
        Some(Verdicts::Equal(
            methods,
            same_n.then_some((first.equal, first.of)),
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

    /// What `profile`'s first flights add to `today`'s, when the flights were counted.
    fn bytes_more(&self, profile: &str, today: &[&FlightRow]) -> Option<BytesMore> {
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
        let client = &quic::CHROME;
        let quic_over = |rows: &[&FlightRow]| {
            let fits: Vec<bool> = (rows.iter())
                .filter_map(|r| r.quic(client))
                .map(|f| f.fits())
                .collect();
            (fits.iter().filter(|f| !**f).count(), fits.len())
        };
        let (quic_twin, quic_counted) = quic_over(&twins);
        let quic = (quic_counted > 0).then(|| QuicOver {
            browser: client.name,
            budget: client.budget(),
            twin_over: quic_twin,
            counted: quic_counted,
            today_over: quic_over(today).0,
        });
        Some(BytesMore {
            more: Spread::of(&more)?.median,
            n: more.len(),
            twin_over,
            counted,
            today_over,
            window: self.window,
            quic,
        })
    }

    /// On an emulated link: the connection with today's chains and each profile's, and the
    /// own cost, for `reference`.
    fn link_answer(&self, reference: Option<&str>) -> Option<LinkAnswer> {
        let link = self.link.as_ref()?;
        let connected = |c: &&CostRow| c.connection_ns.0.is_some();
        let first = (self.costs.iter())
            .filter(connected)
            .find(|c| Some(c.method.as_str()) == reference)?;
        // Each set by the reference method; a set it cannot verify (`mtc`) by the first
        // method that can, named.
        let profiles = (self.profiles.iter().filter(|p| *p != CLASSICAL))
            .filter_map(|p| {
                let rows: Vec<&CostRow> = (self.costs.iter())
                    .filter(|c| c.profile == *p)
                    .filter(connected)
                    .collect();
                let row = (rows.iter())
                    .find(|c| c.method == first.method)
                    .or_else(|| rows.first())?;
                let by = (row.method != first.method).then(|| row.method.clone());
                Some(LinkSet {
                    profile: row.profile.clone(),
                    connection_ns: row.connection_ns.0,
                    own_ns: row.own_ns,
                    by,
                })
            })
            .collect();
        Some(LinkAnswer {
            link: link.clone(),
            method: first.method.clone(),
            today: (first.connection_ns.1, first.classical_own_ns),
            profiles,
        })
    }
}
