//! The answer to the run's question, as figures, every one computed from the [`Comparison`]:
//! who is fastest by own cost, on how many sites and by what median ratio; who is fastest in
//! the 2017 view and what the callback hook adds; verification's share of the connection;
//! with `--ct` what each browser pays and what CT would cost Servo; Servo's verifiers against
//! the other browsers'; what the comparison covers. `export::markdown::answer` words it (the
//! HTML report shows the same sentences).
//!
//! Every range is a [`Spread`] (the median, the least and the greatest value); a ratio over
//! sites is the median of the per-site ratios of medians, never a ratio of pooled figures.

use crate::comparison::{Comparison, ComparisonCell, ComparisonRow};
use crate::pq::answer::PqAnswer;
use crate::stats::Spread;

/// On how many sites each column is fastest, most first: `[("rustlsserial", 9), …]`.
pub type Tally = Vec<(String, usize)>;

/// Servo's verifiers (its default, its webpki-roots path, the parallel one).
pub const SERVO: [&str; 3] = ["platform", "webpki", "rustlsparallel"];
/// The other browsers' verifiers.
pub const BROWSERS: [&str; 3] = ["chrome", "firefox", "gnutls"];

/// The fastest method against OpenSSL (or, when OpenSSL is fastest, the best other method
/// against it).
#[derive(Clone, Debug, PartialEq)]
pub struct Against {
    /// OpenSSL's column, or `the fastest other method`.
    pub who: String,
    /// Per site, its own cost ÷ the fastest's.
    pub ratio: Spread,
    /// Sites.
    pub sites: usize,
}

/// The 2017 view (what the handshake paid) against the own cost.
#[derive(Clone, Debug, PartialEq)]
pub enum View2017 {
    /// No method paid OpenSSL's verification on top of its own: the view is the own cost.
    Same,
    /// Under the callback hook: `openssl-verify` over the webpki methods' cells, and whether
    /// that makes OpenSSL look fastest in the 2017 view though it is not by own cost.
    Differs {
        /// `openssl-verify`'s medians.
        added: Spread,
        /// OpenSSL fastest in the 2017 view, another method by own cost.
        explains: bool,
    },
    /// Nothing to say (no connection, no `openssl-verify`).
    Unknown,
}

/// What one browser pays per cold connection in a `--ct` run.
#[derive(Clone, Debug, PartialEq)]
pub struct BrowserPays {
    /// Its column.
    pub column: String,
    /// Its own cost: median over sites.
    pub own: f64,
    /// Of which CT, when it checks CT.
    pub ct: Option<f64>,
    /// Sites.
    pub sites: usize,
}

/// One of Servo's verifiers against the other browsers': (browser column, median per-site
/// ratio of own costs, sites).
#[derive(Clone, Debug, PartialEq)]
pub struct ServoAgainst {
    /// Servo's verifier's column.
    pub servo: String,
    /// Against each browser that shares sites with it.
    pub browsers: Vec<(String, f64, usize)>,
}

/// What checking CT as Chrome does would cost one of Servo's verifiers.
#[derive(Clone, Debug, PartialEq)]
pub struct CtCost {
    /// Its column.
    pub column: String,
    /// Own cost with CT ÷ the same samples without the `ct` stage: median over sites.
    pub ratio: f64,
    /// The `ct` stage: median over sites.
    pub ct: f64,
    /// Sites.
    pub sites: usize,
}

/// The answer's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// Sites compared.
    pub sites: usize,
    /// Fastest by own cost, per column.
    pub own: Tally,
    /// Fastest in the 2017 view, per column.
    pub paid: Tally,
    /// The column fastest by own cost on the most sites.
    pub winner: String,
    /// Sites where the fastest by own cost is not OpenSSL.
    pub not_openssl: usize,
    /// The winner against OpenSSL, when they shared sites.
    pub against: Option<Against>,
    /// The 2017 view.
    pub view: View2017,
    /// Verification's share of the connection with the winner, and the emulated link.
    pub share: Option<(Spread, Option<String>)>,
    /// The connections were QUIC's (the share's denominator: the QUIC handshake, not TCP's
    /// and TLS's).
    pub over_quic: bool,
    /// The run checked CT (`--ct`).
    pub ct: bool,
    /// The run checked revocation (`--revocation`).
    pub revocation: bool,
    /// With `--ct`: what each browser pays (empty without a browser).
    pub browsers_pay: Vec<BrowserPays>,
    /// Servo's verifiers against the other browsers' by own cost, each method checking what
    /// it checked in the run (as shipped, by default) (empty unless one of each ran).
    pub servo_against: Vec<ServoAgainst>,
    /// The same by the cost of the path alone (own cost less the `ct` and `revocation`
    /// stages), when a compared method checked more than the path (empty otherwise).
    pub servo_against_path: Vec<ServoAgainst>,
    /// What each compared column checked beyond the path (`path only` when nothing), in
    /// column order.
    pub checks: Vec<(String, String)>,
    /// The browsers' columns that did not accept every chain: (column, [(site, verdict)]).
    pub rejections: Vec<(String, Vec<(String, String)>)>,
    /// With `--ct`: what CT would cost Servo's verifiers.
    pub ct_costs: Vec<CtCost>,
    /// The command that measures the other hook, when the caller knows it.
    pub other_hook: Option<String>,
}

/// What a run's answer holds: the comparison's, then (`--pq`) the twins'.
#[derive(Clone, Debug, Default)]
pub struct Answers {
    /// The comparison's, when two methods or more were compared.
    pub comparison: Option<Answer>,
    /// A `--pq` run's.
    pub pq: Option<PqAnswer>,
}

/// On how many sites each column is fastest by `pick`, most first.
fn tally(rows: &[ComparisonRow], pick: fn(&ComparisonRow) -> &String) -> Tally {
    let mut t: Tally = Vec::new();
    for r in rows {
        match t.iter_mut().find(|(m, _)| m == pick(r)) {
            Some((_, c)) => *c += 1,
            None => t.push((pick(r).clone(), 1)),
        }
    }
    t.sort_by_key(|e| std::cmp::Reverse(e.1));
    t
}

/// The method fastest by own cost on the most sites (a column's method, without its
/// configuration).
pub fn fastest(cmp: &Comparison) -> String {
    let own = tally(&cmp.rows, |r| &r.fastest_own);
    let column = own.first().map_or(String::new(), |(m, _)| m.clone());
    column.split(' ').next().unwrap_or_default().to_owned()
}

/// The winner against OpenSSL (or, when OpenSSL wins, the best other method against it).
fn against(cmp: &Comparison, winner: &str) -> Option<Against> {
    let mut ratios: Vec<f64> = Vec::new();
    let mut who = String::new();
    for r in &cmp.rows {
        let w = r.cells.iter().find(|c| c.method == winner);
        let o = r.cells.iter().find(|c| c.is_openssl && c.method != winner);
        match (w, o) {
            (Some(w), Some(o)) => {
                who = o.method.clone();
                ratios.push(o.own.median / w.own.median.max(1.0));
            }
            (Some(w), None) if w.is_openssl => {
                if let Some(next) = (r.cells.iter())
                    .filter(|c| c.method != winner)
                    .min_by(|a, b| a.own.median.total_cmp(&b.own.median))
                {
                    who = "the fastest other method".to_owned();
                    ratios.push(next.own.median / w.own.median.max(1.0));
                }
            }
            _ => {}
        }
    }
    Some(Against {
        who,
        ratio: Spread::of(&ratios)?,
        sites: ratios.len(),
    })
}

/// The 2017 view against the own cost.
fn view(cmp: &Comparison, paid: &Tally, winner: &str) -> View2017 {
    let cells = || cmp.rows.iter().flat_map(|r| &r.cells);
    let added: Vec<f64> = cells()
        .filter(|c| !c.is_openssl)
        .filter_map(|c| c.openssl_verify.as_ref().map(|s| s.median))
        .collect();
    let Some(added) = Spread::of(&added) else {
        return if cells().any(|c| c.share.is_some()) {
            View2017::Same
        } else {
            View2017::Unknown
        };
    };
    let openssl_wins_2017 = (cmp.rows.iter())
        .find(|r| r.fastest_paid == paid[0].0)
        .and_then(|r| r.cells.iter().find(|c| c.method == paid[0].0))
        .is_some_and(|c| c.is_openssl);
    View2017::Differs {
        added,
        explains: openssl_wins_2017 && paid[0].0 != winner,
    }
}

/// The answer's figures; `other_hook` is the command that measures the other hook, when the
/// caller knows it.
pub fn answer(cmp: &Comparison, other_hook: Option<&str>) -> Answer {
    let own = tally(&cmp.rows, |r| &r.fastest_own);
    let paid = tally(&cmp.rows, |r| &r.fastest_paid);
    let winner = own[0].0.clone();
    let not_openssl = (cmp.rows.iter())
        .filter(|r| (r.cells.iter()).any(|c| c.method == r.fastest_own && !c.is_openssl))
        .count();
    let shares: Vec<f64> = (cmp.rows.iter())
        .filter_map(|r| r.cells.iter().find(|c| c.method == winner)?.share)
        .collect();
    let ct = cmp
        .rows
        .iter()
        .flat_map(|r| &r.cells)
        .any(|c| c.ct.is_some());
    Answer {
        sites: cmp.rows.len(),
        against: against(cmp, &winner),
        view: view(cmp, &paid, &winner),
        share: Spread::of(&shares).map(|s| (s, cmp.link.clone())),
        over_quic: cmp.over_quic,
        ct,
        revocation: false,
        browsers_pay: if ct { browsers_pay(cmp) } else { Vec::new() },
        servo_against: servo_against(cmp, |c| Some(c.own.median)),
        servo_against_path: match cmp
            .rows
            .iter()
            .flat_map(|r| &r.cells)
            .any(|c| c.checks.is_some())
        {
            true => servo_against(cmp, |c| Some(c.own_path.as_ref().unwrap_or(&c.own).median)),
            false => Vec::new(),
        },
        checks: checks(cmp),
        rejections: rejections(cmp),
        ct_costs: if ct { ct_costs(cmp) } else { Vec::new() },
        other_hook: other_hook.map(str::to_owned),
        own,
        paid,
        winner,
        not_openssl,
    }
}

/// Whether column `column` is method `method` (a column may add its configuration).
fn is_method(column: &str, method: &str) -> bool {
    column == method || column.starts_with(&format!("{method} "))
}

/// The columns of `methods` that the comparison has, in that order.
fn columns<'c>(cmp: &'c Comparison, methods: &[&str]) -> Vec<&'c String> {
    (methods.iter())
        .filter_map(|m| cmp.methods.iter().find(|c| is_method(c, m)))
        .collect()
}

/// The median over sites of a column's figure `f`, and the sites.
fn over_sites(
    cmp: &Comparison,
    col: &str,
    f: impl Fn(&ComparisonCell) -> Option<f64>,
) -> Option<(f64, usize)> {
    let v: Vec<f64> = (cmp.rows.iter())
        .filter_map(|r| f(r.cells.iter().find(|c| c.method == col)?))
        .collect();
    Some((Spread::of(&v)?.median, v.len()))
}

/// In a `--ct` run: what each browser pays per cold connection (its own cost: path, CT and
/// host), and how much of it is CT.
fn browsers_pay(cmp: &Comparison) -> Vec<BrowserPays> {
    (columns(cmp, &BROWSERS).into_iter())
        .filter_map(|col| {
            let (own, sites) = over_sites(cmp, col, |c| Some(c.own.median))?;
            let ct = over_sites(cmp, col, |c| c.ct.as_ref().map(|s| s.median));
            Some(BrowserPays {
                column: col.clone(),
                own,
                ct: ct.map(|c| c.0),
                sites,
            })
        })
        .collect()
}

/// In a `--ct` run: what checking CT as Chrome does would cost Servo's verifiers: per site the
/// own cost with CT ÷ the same samples' own cost without the `ct` stage, and the `ct` stage.
fn ct_costs(cmp: &Comparison) -> Vec<CtCost> {
    (columns(cmp, &SERVO).into_iter())
        .filter_map(|col| {
            let (ratio, sites) = over_sites(cmp, col, |c| {
                Some(c.own.median / c.own_without_ct.as_ref()?.median.max(1.0))
            })?;
            let (ct, _) = over_sites(cmp, col, |c| c.ct.as_ref().map(|s| s.median))?;
            Some(CtCost {
                column: col.clone(),
                ratio,
                ct,
                sites,
            })
        })
        .collect()
}

/// Each of Servo's verifiers against each other browser's by own cost, as the median over
/// sites of the per-site ratio of medians (below ×1: Servo's is cheaper); empty unless the
/// comparison holds one of each.
fn servo_against(
    cmp: &Comparison,
    cost: impl Fn(&ComparisonCell) -> Option<f64>,
) -> Vec<ServoAgainst> {
    let (servo, browsers) = (columns(cmp, &SERVO), columns(cmp, &BROWSERS));
    if servo.is_empty() || browsers.is_empty() {
        return Vec::new();
    }
    let own = |r: &ComparisonRow, col: &str| cost(r.cells.iter().find(|c| c.method == col)?);
    (servo.into_iter())
        .map(|s| ServoAgainst {
            servo: s.clone(),
            browsers: (browsers.iter())
                .filter_map(|b| {
                    let ratios: Vec<f64> = (cmp.rows.iter())
                        .filter_map(|r| Some(own(r, s)? / own(r, b)?.max(1.0)))
                        .collect();
                    Some(((*b).clone(), Spread::of(&ratios)?.median, ratios.len()))
                })
                .collect(),
        })
        .collect()
}

/// What each column checked beyond the path, in column order: the checks its cells name
/// (the first site's that names any), else `path only`.
fn checks(cmp: &Comparison) -> Vec<(String, String)> {
    (cmp.methods.iter())
        .map(|col| {
            let named = (cmp.rows.iter())
                .filter_map(|r| r.cells.iter().find(|c| &c.method == col))
                .find_map(|c| c.checks.clone());
            (col.clone(), named.unwrap_or_else(|| "path only".to_owned()))
        })
        .collect()
}

/// The browsers' columns that rejected a chain, with the sites and verdicts: a rejection
/// costs what the verifier spent, and counts in the ratios like an accept.
fn rejections(cmp: &Comparison) -> Vec<(String, Vec<(String, String)>)> {
    (columns(cmp, &BROWSERS).into_iter())
        .filter_map(|col| {
            let sites: Vec<(String, String)> = (cmp.rows.iter())
                .filter_map(|r| {
                    let c = r.cells.iter().find(|c| &c.method == col)?;
                    Some((r.label.clone(), c.rejected.clone()?))
                })
                .collect();
            (!sites.is_empty()).then(|| (col.clone(), sites))
        })
        .collect()
}
