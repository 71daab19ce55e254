//! The report of a patched Servo's samples (those with [`crate::servo::ServoMeta`]): what
//! verification costs per connection, per origin and per page load, and its share of the
//! connection, with each process's first (cold) apart from the later (warm) ones.
//!
//! Everything is grouped by [`Group`] (method, configuration — which names the trust set —
//! and Servo's choice of verifier): no figure mixes two groups. Within a process, a
//! verification belongs to the connection whose id it carries, a connection to the page
//! load whose id it carries ([`crate::servo`]); figures per connection and per page sum the
//! verifications that name them. Medians are [`crate::stats::middle`].

use std::collections::BTreeMap;

use crate::schema::{Config, Sample, Stage};
use crate::servo::{ServoChoice, ServoEvent, ServoMeta};
use crate::stats::middle;
use crate::units::human;

/// What figures are never mixed across.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Group {
    /// The method that verified (`servo`: Servo's own verifier).
    pub method: String,
    /// The configuration, trust set included.
    pub config: Config,
    /// Servo's choice of verifier.
    pub choice: Option<ServoChoice>,
}

impl Group {
    fn label(&self) -> String {
        let choice = self.choice.map_or("?", |c| c.name());
        let roots = self
            .config
            .roots
            .as_deref()
            .unwrap_or("trust set not recorded");
        format!("{} · {choice} · {roots}", self.method)
    }
}

struct Taken<'a> {
    sample: &'a Sample,
    meta: &'a ServoMeta,
}

/// One connection of one process, with what was verified in it.
#[derive(Default)]
struct Conn {
    handshake: Option<u64>,
    resumed: bool,
    verified: Vec<u64>,
    page: Option<u64>,
    origin: String,
    first: bool,
}

fn ms(ns: Option<f64>) -> String {
    ns.map_or_else(|| "–".to_owned(), human)
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "–".to_owned(), |v| format!("{:.1} %", v * 100.0))
}

fn median(v: impl IntoIterator<Item = f64>) -> Option<f64> {
    middle(&mut v.into_iter().collect::<Vec<_>>())
}

/// The markdown section for `samples`' Servo samples; `None` when there are none.
pub fn render_markdown(samples: &[Sample]) -> Option<String> {
    let mut groups: BTreeMap<Group, Vec<Taken>> = BTreeMap::new();
    let mut by_process_choice: BTreeMap<(u32, String), Option<ServoChoice>> = BTreeMap::new();
    for s in samples {
        let Some(meta) = s.meta.servo.as_ref() else {
            continue;
        };
        if meta.choice.is_some() {
            by_process_choice.insert((meta.pid, s.method.clone()), meta.choice);
        }
    }
    for s in samples {
        let Some(meta) = s.meta.servo.as_ref() else {
            continue;
        };
        // Connections carry no choice: theirs is their process's.
        let choice = meta.choice.or_else(|| {
            by_process_choice
                .get(&(meta.pid, s.method.clone()))
                .copied()
                .flatten()
        });
        let group = Group {
            method: s.method.clone(),
            config: s.config.clone(),
            choice,
        };
        groups
            .entry(group)
            .or_default()
            .push(Taken { sample: s, meta });
    }
    if groups.is_empty() {
        return None;
    }
    let mut out = String::from("### Servo: verification per connection and per page load\n\n");
    out.push_str(
        "Cold: a process's first (verification, connection, page load); warm: the later ones. \
         Share: the connection's verification time over its handshake (TCP connect + TLS).\n\n",
    );
    out.push_str("| method · Servo's choice · trust set | processes | store builds | roots-creation (median build) | verifications cold | verification cold | verifications warm | verification warm | exception-accepted |\n|---|---|---|---|---|---|---|---|---|\n");
    for (g, taken) in &groups {
        out.push_str(&store_and_verification_row(g, taken));
    }
    out.push_str("\n| method · Servo's choice · trust set | connections | resumed | connection | handshake | verifications | verification per connection | share |\n|---|---|---|---|---|---|---|---|\n");
    for (g, taken) in &groups {
        let conns = connections(taken);
        for (label, first) in [("cold", true), ("warm", false)] {
            let c: Vec<&Conn> = conns.values().filter(|c| c.first == first).collect();
            if !c.is_empty() {
                out.push_str(&connection_row(&g.label(), label, &c));
            }
        }
    }
    out.push_str("\n| method · Servo's choice · trust set | connections | resumed | origin | handshake | verifications | verification per connection | share |\n|---|---|---|---|---|---|---|---|\n");
    for (g, taken) in &groups {
        let mut origins: BTreeMap<&str, Vec<&Conn>> = BTreeMap::new();
        let conns = connections(taken);
        for c in conns.values() {
            origins.entry(c.origin.as_str()).or_default().push(c);
        }
        for (origin, c) in &origins {
            out.push_str(&connection_row(&g.label(), origin, c));
        }
    }
    out.push_str("\n| method · Servo's choice · trust set | page loads | load | connections per page | resumed per page | verifications per page | verification per page | handshakes per page | share |\n|---|---|---|---|---|---|---|---|---|\n");
    for (g, taken) in &groups {
        let conns = connections(taken);
        let mut pages: BTreeMap<(u32, u64), Vec<&Conn>> = BTreeMap::new();
        for ((pid, _), c) in &conns {
            if let Some(page) = c.page {
                pages.entry((*pid, page)).or_default().push(c);
            }
        }
        for (label, first) in [("first of process", true), ("later", false)] {
            let p: Vec<&Vec<&Conn>> = (pages.iter())
                .filter(|((_, page), _)| (*page == 1) == first)
                .map(|(_, c)| c)
                .collect();
            if !p.is_empty() {
                out.push_str(&page_row(&g.label(), label, &p));
            }
        }
    }
    Some(out)
}

fn store_and_verification_row(g: &Group, taken: &[Taken]) -> String {
    let mut builds: BTreeMap<u32, u64> = BTreeMap::new();
    let mut build_ns = Vec::new();
    let (mut cold, mut warm, mut exceptions) = (Vec::new(), Vec::new(), 0);
    for t in taken {
        match t.meta.event {
            ServoEvent::Verifier => {
                let n = builds.entry(t.meta.pid).or_default();
                if !t.sample.meta.roots_cached {
                    *n += 1;
                    build_ns.extend(t.sample.stage(Stage::RootsCreation).map(|v| v as f64));
                }
            }
            ServoEvent::Verification => {
                if t.meta.exception.is_some() {
                    exceptions += 1;
                }
                if let Some(v) = t.sample.stage(Stage::TotalVerification) {
                    if t.sample.warmup {
                        &mut cold
                    } else {
                        &mut warm
                    }
                    .push(v as f64);
                }
            }
            _ => {}
        }
    }
    let per_process: Vec<u64> = builds.values().copied().collect();
    let range = match (per_process.iter().min(), per_process.iter().max()) {
        (Some(a), Some(b)) if a == b => format!("{a} per process"),
        (Some(a), Some(b)) => format!("{a}–{b} per process"),
        _ => "–".to_owned(),
    };
    format!(
        "| {} | {} | {range} | {} | {} | {} | {} | {} | {exceptions} |\n",
        g.label(),
        builds.len(),
        ms(median(build_ns)),
        cold.len(),
        ms(median(cold.iter().copied())),
        warm.len(),
        ms(median(warm.iter().copied())),
    )
}

/// Connections per (pid, connection id), with the verifications naming them.
fn connections(taken: &[Taken]) -> BTreeMap<(u32, u64), Conn> {
    let mut conns: BTreeMap<(u32, u64), Conn> = BTreeMap::new();
    for t in taken {
        let Some(id) = t.meta.connection else {
            continue;
        };
        let c = conns.entry((t.meta.pid, id)).or_default();
        match t.meta.event {
            ServoEvent::Connection => {
                c.handshake = t.sample.stage(Stage::Handshake);
                c.resumed = t.sample.meta.resumed == Some(true);
                c.page = t.meta.page;
                c.origin = t.sample.site_id();
                c.first = t.sample.warmup;
            }
            ServoEvent::Verification => {
                c.verified.extend(t.sample.stage(Stage::TotalVerification));
            }
            _ => {}
        }
    }
    // Only connections that were recorded as up (a handshake time) are counted.
    conns.retain(|_, c| c.handshake.is_some());
    conns
}

fn connection_row(group: &str, label: &str, conns: &[&Conn]) -> String {
    let resumed = conns.iter().filter(|c| c.resumed).count();
    let handshake = median(conns.iter().filter_map(|c| c.handshake).map(|v| v as f64));
    let verified: Vec<&&Conn> = conns.iter().filter(|c| !c.verified.is_empty()).collect();
    let per_conn = median(
        verified
            .iter()
            .map(|c| c.verified.iter().sum::<u64>() as f64),
    );
    let share = median(verified.iter().filter_map(|c| {
        let h = c.handshake? as f64;
        (h > 0.0).then(|| c.verified.iter().sum::<u64>() as f64 / h)
    }));
    let n: usize = conns.iter().map(|c| c.verified.len()).sum();
    format!(
        "| {group} | {} | {resumed} | {label} | {} | {n} | {} | {} |\n",
        conns.len(),
        ms(handshake),
        ms(per_conn),
        pct(share)
    )
}

fn page_row(group: &str, label: &str, pages: &[&Vec<&Conn>]) -> String {
    let per = |f: &dyn Fn(&[&Conn]) -> f64| median(pages.iter().map(|p| f(p)));
    let conns = per(&|p| p.len() as f64);
    let resumed = per(&|p| p.iter().filter(|c| c.resumed).count() as f64);
    let verifications = per(&|p| p.iter().map(|c| c.verified.len()).sum::<usize>() as f64);
    let verified = |p: &[&Conn]| -> u64 { p.iter().flat_map(|c| c.verified.iter()).sum() };
    let handshakes = |p: &[&Conn]| -> u64 { p.iter().filter_map(|c| c.handshake).sum() };
    let share = median(pages.iter().filter_map(|p| {
        let h = handshakes(p) as f64;
        (h > 0.0).then(|| verified(p) as f64 / h)
    }));
    let num = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v}"));
    format!(
        "| {group} | {} | {label} | {} | {} | {} | {} | {} | {} |\n",
        pages.len(),
        num(conns),
        num(resumed),
        num(verifications),
        ms(per(&|p| verified(p) as f64)),
        ms(per(&|p| handshakes(p) as f64)),
        pct(share)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{SCHEMA_VERSION, SampleMeta, Source, Verdict};

    struct Take {
        pid: u32,
        seq: u64,
    }

    impl Take {
        fn next(
            &mut self,
            event: ServoEvent,
            stages: &[(Stage, u64)],
            connection: Option<u64>,
            page: Option<u64>,
            warmup: bool,
        ) -> Sample {
            self.seq += 1;
            Sample {
                schema: SCHEMA_VERSION,
                source: Source::Servo,
                method: "servo".into(),
                config: Config {
                    roots: Some("system (140)".into()),
                    ..Config::default()
                },
                site: "a.example".into(),
                port: None,
                path: None,
                chain: None,
                run: 0,
                warmup,
                stages: stages.iter().copied().collect(),
                verdict: Verdict::Ok,
                meta: SampleMeta {
                    roots_cached: self.seq > 1 && event == ServoEvent::Verifier,
                    resumed: (event == ServoEvent::Connection).then_some(connection == Some(3)),
                    servo: Some(ServoMeta {
                        pid: self.pid,
                        seq: self.seq,
                        since_start_ns: self.seq * 1000,
                        event,
                        choice: (event != ServoEvent::Connection)
                            .then_some(ServoChoice::PlatformCached),
                        connection,
                        page,
                        page_url: page.map(|_| "https://a.example/".into()),
                        exception: None,
                    }),
                    ..SampleMeta::default()
                },
            }
        }
    }

    #[test]
    fn servo_report_sums_verifications_per_connection_and_page_cold_apart() {
        let mut t = Take { pid: 9, seq: 0 };
        let v = ServoEvent::Verification;
        let c = ServoEvent::Connection;
        let samples = vec![
            t.next(
                ServoEvent::Verifier,
                &[(Stage::RootsCreation, 5_000_000)],
                None,
                None,
                false,
            ),
            t.next(
                ServoEvent::Verifier,
                &[(Stage::RootsCreation, 0)],
                None,
                None,
                false,
            ),
            // Page 1: connection 1 (cold), one verification of 400 µs in a 4 ms handshake.
            t.next(
                v,
                &[(Stage::TotalVerification, 400_000)],
                Some(1),
                Some(1),
                true,
            ),
            t.next(c, &[(Stage::Handshake, 4_000_000)], Some(1), Some(1), true),
            // Page 2: connection 2 (100 µs in 2 ms) and connection 3, resumed.
            t.next(
                v,
                &[(Stage::TotalVerification, 100_000)],
                Some(2),
                Some(2),
                false,
            ),
            t.next(c, &[(Stage::Handshake, 2_000_000)], Some(2), Some(2), false),
            t.next(c, &[(Stage::Handshake, 1_000_000)], Some(3), Some(2), false),
        ];
        let text = render_markdown(&samples).unwrap();
        let row = |needle: &str| {
            (text.lines())
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("no `{needle}` in {text}"))
                .to_owned()
        };
        // One store build in the process, the second call cached.
        assert!(row("| 1 per process |").contains("5.00 ms"), "{text}");
        assert!(
            row("| cold | 4.00 ms |").contains("| 400 µs | 10.0 % |"),
            "{text}"
        );
        let warm = row("| warm | 1.50 ms |");
        assert!(warm.contains("| 2 | 1 | warm |"), "{warm}");
        assert!(warm.contains("| 100 µs | 5.0 % |"), "{warm}");
        let first = row("| first of process |");
        assert!(
            first.contains("| 1 | first of process | 1 | 0 | 1 | 400 µs | 4.00 ms | 10.0 % |"),
            "{first}"
        );
        let later = row("| later |");
        assert!(
            later.contains("| 1 | later | 2 | 1 | 1 | 100 µs | 3.00 ms | 3.3 % |"),
            "{later}"
        );
        // Per origin: the three connections to a.example, one resumed.
        let origin = row("| a.example |");
        assert!(
            origin.contains("| 3 | 1 | a.example | 2.00 ms | 2 | 250 µs | 7.5 % |"),
            "{origin}"
        );
        crate::export::golden::check("servo.md", &text);
        assert!(render_markdown(&[]).is_none());
    }
}
