//! Start-up, once per process, in markdown: one line per mechanism (median and range over the
//! fresh processes), and whether a browser's first connection waits for it.

use crate::startup::StartUp;
use crate::units::human;

use super::revocation::bytes;

/// The start-up section: a heading, then a bullet per mechanism measured over enough
/// processes; empty when none was.
pub(crate) fn section(items: &[StartUp]) -> String {
    let lines: Vec<String> = items
        .iter()
        .filter_map(|s| {
            let f = crate::startup::figures(s)?;
            let rss = |v: f64| if v < 0.0 { format!("−{}", bytes(-v as u64)) } else { bytes(v as u64) };
            let waits = crate::startup::waits(&s.what).unwrap_or(
                "a rustls user loads it before connecting: the figure is its start-up",
            );
            Some(format!(
                "- {}: {} wall ({}–{}), {} CPU ({}–{}), +{} resident ({}–{}), median (range) over {} fresh processes; {}.",
                s.what,
                human(f.wall.median),
                human(f.wall.lo),
                human(f.wall.hi),
                human(f.cpu.median),
                human(f.cpu.lo),
                human(f.cpu.hi),
                rss(f.rss.median),
                rss(f.rss.lo),
                rss(f.rss.hi),
                f.n,
                waits
            ))
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "### start-up, once per process\n\nLoading each mechanism's revocation data, in fresh processes apart from every connection (no sample above pays it):\n\n{}\n",
        lines.join("\n")
    )
}
