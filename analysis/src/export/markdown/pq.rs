//! A `--pq` run in markdown: the bytes each profile puts on the wire per site, then each
//! method's cost on the twins against today's chains.

use super::table::plain_table;
use crate::pq::{INITIAL_WINDOW, MSS, PqSummary};
use crate::units::human;

/// A `--pq` run's tables: the bytes on the wire per site and profile, then each method on
/// the twins against today's chains.
pub(crate) fn tables(pq: &PqSummary) -> String {
    let kb =
        |b: Option<u64>| b.map_or("—".to_owned(), |b| format!("{:.1} KB", b as f64 / 1000.0));
    let rows: Vec<Vec<String>> = (pq.flights.iter())
        .map(|f| {
            vec![
                f.site.clone(),
                f.profile.clone(),
                kb(f.chain_bytes),
                kb(f.cert_message_bytes),
                kb(f.first_flight_bytes),
                f.segments().map_or("—".into(), |s| s.to_string()),
                f.extra_round_trips()
                    .map_or("—".into(), |r| format!("+{r}")),
            ]
        })
        .collect();
    let mut out = format!(
        "\n### post-quantum twins: bytes on the wire (first flight: the server's bytes from ServerHello to Finished, as the client's TCP stream counted them; segments of {MSS} B against TCP's initial window of {INITIAL_WINDOW})\n\n"
    );
    out.push_str(&plain_table(
        &[
            "site",
            "chains",
            "certificates",
            "Certificate message",
            "first flight",
            "segments",
            "extra RTT",
        ],
        rows,
        2,
    ));
    out.push('\n');
    let time = |ns: Option<f64>| ns.map_or("—".to_owned(), human);
    let rows: Vec<Vec<String>> = (pq.costs.iter())
        .map(|c| match (&c.unsupported, c.ratio) {
            (Some(why), None) => {
                let mut r = vec![c.method.clone(), c.profile.clone(), why.clone()];
                r.extend(std::iter::repeat_n("—".to_owned(), 4));
                r
            }
            _ => vec![
                c.method.clone(),
                c.profile.clone(),
                c.ratio.map_or("—".into(), |r| {
                    format!(
                        "×{r:.2} (×{:.2}–×{:.2}, {} sites)",
                        c.range.0, c.range.1, c.sites
                    )
                }),
                time(c.classical_own_ns),
                time(c.own_ns),
                time(c.connection_ns.1),
                time(c.connection_ns.0),
            ],
        })
        .collect();
    out.push_str(&format!(
        "\n### post-quantum twins against today's chains: own cost ratio (median over sites of the per-site ratio of medians, with its range), own cost and connection (medians over sites){}\n\n",
        pq.link.as_ref().map_or(String::new(), |l| format!(", link {l}"))
    ));
    out.push_str(&plain_table(
        &[
            "method",
            "chains",
            "own cost ÷ today's",
            "own cost today",
            "own cost",
            "connection today",
            "connection",
        ],
        rows,
        2,
    ));
    out.push('\n');
    out
}
