//! `certbench revocation-scale`: lookup cost against data size, per revocation data set (args
//! → [`crate::revocation::scale::ScaleOptions`] → [`crate::revocation::scale::run`] → the table).

use std::path::PathBuf;

use anyhow::{Result, bail};
use certbench_analysis::export::{Format, render_revocation_scale};
use clap::{Args, ValueEnum};

use super::output::{Outcome, OutputArgs};
use crate::revocation::crlite::Scale;
use crate::revocation::scale::{ScaleOptions, run as measure};

/// A CRLite filter scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum CrliteScale {
    /// 20 k synthetic certificates (tests).
    Tiny,
    /// 10 M certificates.
    Small,
    /// 100 M certificates.
    Medium,
    /// 900 M certificates, the published filter's (minutes to build, once).
    Large,
}

impl From<CrliteScale> for Scale {
    fn from(s: CrliteScale) -> Scale {
        match s {
            CrliteScale::Tiny => Scale::TINY,
            CrliteScale::Small => Scale::SMALL,
            CrliteScale::Medium => Scale::MEDIUM,
            CrliteScale::Large => Scale::LARGE,
        }
    }
}

/// A run count's parser: 0 runs would measure nothing, so it is a usage error (clap's, exit 2).
fn at_least_one() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..)
}

#[derive(Args, Debug)]
pub(super) struct RevocationScaleArgs {
    /// CRLite filter scales, comma-separated, each checked in memory as Gecko and as a rustls
    /// user (clubcard-crlite) do, and through upki [default: small,large; --quick: tiny,small].
    #[arg(long, value_enum, value_delimiter = ',')]
    crlite_scales: Vec<CrliteScale>,
    /// CRL sizes in revoked serials, comma-separated, one CRL each [default:
    /// 2000,100000,1000000; --quick: 2000,20000].
    #[arg(long, value_delimiter = ',')]
    crl_sizes: Vec<usize>,
    /// Fresh loads per data set (cold) [default: 5; --quick: 3].
    #[arg(long, value_parser = at_least_one())]
    cold_runs: Option<usize>,
    /// Checks per leaf and data set (warm) [default: 200; --quick: 20].
    #[arg(long, value_parser = at_least_one())]
    warm_runs: Option<usize>,
    /// Small data and few runs, for tests: the defaults marked --quick above.
    #[arg(long)]
    quick: bool,
    /// Where the generated data is cached (made once, then only measured).
    #[arg(
        long,
        value_name = "DIR",
        default_value = ".certbench-cache/revocation-scale"
    )]
    cache: PathBuf,
    #[command(flatten)]
    out: OutputArgs,
}

impl RevocationScaleArgs {
    fn options(&self) -> ScaleOptions {
        let (scales, sizes, cold, warm) = match self.quick {
            true => (vec![Scale::TINY, Scale::SMALL], vec![2_000, 20_000], 3, 20),
            false => (
                vec![Scale::SMALL, Scale::LARGE],
                vec![2_000, 100_000, 1_000_000],
                5,
                200,
            ),
        };
        ScaleOptions {
            crlite: match self.crlite_scales.is_empty() {
                true => scales,
                false => self.crlite_scales.iter().map(|&s| s.into()).collect(),
            },
            crl_sizes: match self.crl_sizes.is_empty() {
                true => sizes,
                false => self.crl_sizes.clone(),
            },
            cold_runs: self.cold_runs.unwrap_or(cold),
            warm_runs: self.warm_runs.unwrap_or(warm),
            cache: self.cache.clone(),
        }
    }
}

pub(super) fn run(args: RevocationScaleArgs) -> Result<Outcome> {
    let out = &args.out;
    if out.format == Format::Csv {
        bail!("revocation-scale writes md or json, not csv");
    }
    let report = measure(&args.options(), &|m| out.note(m))?;
    out.write(&render_revocation_scale(&report, out.format))?;
    Ok(Outcome::Complete)
}
