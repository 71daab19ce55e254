//! `certbench start-up` (hidden): one fresh process's load of one mechanism's revocation data,
//! printed as one JSON figure for the run that spawned it ([`crate::startup::measure`]).

use std::path::PathBuf;

use anyhow::Result;
use certbench_schema::Mechanism;
use clap::Args;

use super::output::{Outcome, print};

#[derive(Args, Debug)]
pub(super) struct StartUpArgs {
    /// The mechanism whose data to load (crlset, crlite, upki, crl): any mechanism, the
    /// CRLSet too (`--revocation`'s values are the rustls methods' only).
    #[arg(long, value_parser = |s: &str| s.parse::<Mechanism>())]
    mechanism: Mechanism,
    /// The data's folder.
    #[arg(long, value_name = "DIR")]
    revocation_data: PathBuf,
}

pub(super) fn run(args: StartUpArgs) -> Result<Outcome> {
    let run = crate::startup::one(args.mechanism, &args.revocation_data);
    print(&(serde_json::to_string(&run)? + "\n"));
    // upki: certbench's own integrity pass, apart from what upki does (above).
    if args.mechanism == Mechanism::Upki {
        let pass = crate::startup::integrity(&args.revocation_data);
        print(&(serde_json::to_string(&pass)? + "\n"));
    }
    Ok(Outcome::Complete)
}
