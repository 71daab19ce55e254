//! The answer's lines of a `--pq` run: per profile, the cost against today's and the bytes
//! and round trips the first flight adds; the methods without ML-DSA; whether the verdicts
//! held; on an emulated link, the connection and verification's share of it.

use super::{CLASSICAL, CostRow, FlightRow, INITIAL_WINDOW, MSS, PqSummary, median, profile_label};
use crate::units::human;

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
                "With {} chains verification costs ×{:.2} of today's ({}, median over {} {}, ×{:.2}–×{:.2}{})",
                profile_label(p),
                main.ratio.unwrap_or(0.0),
                main.method,
                main.sites,
                self.rows,
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
        let rows = self.rows;
        match median(&mut more) {
            Some(m) => format!(
                "; the server's first flight carries {:.1} KB more (median over {} {rows}), {twin_over} of {counted} {rows} needing an extra round trip (a first flight over TCP's initial window of {INITIAL_WINDOW} × {MSS} B), against {today_over} today",
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
