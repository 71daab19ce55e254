//! A patched Servo's figures ([`crate::servo_report`]) in the report's CSV, long form like
//! its other records: one record per group × row × figure, in the same columns. `method`
//! holds the group (method · Servo's choice · trust set); `site` the row (`cold`, `warm`, an
//! origin as host or host:port, or a kind of page load); `chain` the handshake kind (`full`,
//! `resumed`) of a connection row, or `servo-store`/`servo-first`/`servo-page`; `stage` the figure
//! (`connect`, `handshake`, `page-load`, … or a share, `share-of-handshake`); `n` the
//! connections, verifications or page loads the median is over; `median_ns` the median
//! (a share: a fraction). The other statistics are empty: these are medians of per-process
//! figures.

use crate::export::markdown::servo::kind;
use crate::servo_report::GroupFigures;

/// Columns of the report's CSV before `stage` (method … chain).
const BEFORE_STAGE: usize = 10;

fn record(
    w: &mut csv::Writer<Vec<u8>>,
    (group, site, chain): (&str, &str, &str),
    stage: &str,
    n: usize,
    median: Option<f64>,
) {
    let Some(median) = median else { return };
    let mut rec = vec![String::new(); BEFORE_STAGE];
    rec[0] = group.to_owned();
    rec[8] = site.to_owned();
    rec[9] = chain.to_owned();
    rec.extend([stage.to_owned(), n.to_string(), String::new()]);
    rec.push(format!("{median:.4}"));
    rec.extend(std::iter::repeat_n(String::new(), 7));
    rec.extend([String::new(), "ok".to_owned()]);
    w.write_record(&rec).expect("writing to memory");
}

/// Appends `groups`' records to the report's CSV writer.
pub(crate) fn records(w: &mut csv::Writer<Vec<u8>>, groups: &[GroupFigures]) {
    for g in groups {
        let at = |site| (g.label.as_str(), site, "servo-store");
        let s = &g.store;
        record(
            w,
            at("(startup)"),
            "roots-creation",
            s.processes,
            s.build_ns,
        );
        record(w, at("cold"), "total-verification", s.cold.0, s.cold.1);
        record(w, at("warm"), "total-verification", s.warm.0, s.warm.1);
        let at = |site| (g.label.as_str(), site, "servo-first");
        let f = &g.first;
        record(
            w,
            at("(startup)"),
            "library-init",
            f.processes,
            f.library_init,
        );
        record(
            w,
            at("(startup)"),
            "roots-creation",
            f.processes,
            f.first_build,
        );
        record(
            w,
            at("first"),
            "total-verification-extra",
            f.processes,
            f.verification_extra,
        );
        record(
            w,
            at("first"),
            "handshake-extra",
            f.processes,
            f.handshake_extra,
        );
        for c in g.connections.iter().chain(&g.origins) {
            let at = (g.label.as_str(), c.label.as_str(), kind(c.resumed));
            record(w, at, "connect", c.connections, c.connect);
            record(w, at, "handshake", c.connections, c.handshake);
            record(
                w,
                at,
                "total-verification",
                c.verifications,
                c.per_connection,
            );
            record(w, at, "share-of-handshake", c.verifications, c.share);
        }
        for p in &g.pages {
            let at = (g.label.as_str(), p.label, "servo-page");
            record(w, at, "page-load", p.pages, p.page_load);
            record(w, at, "total-verification", p.pages, p.verification);
            record(w, at, "handshake", p.pages, p.handshakes);
            record(w, at, "share-of-handshake", p.pages, p.share);
            record(w, at, "share-of-page-load", p.pages, p.load_share);
        }
    }
}
