//! `certbench start-up` (hidden): one fresh process's load of one mechanism's revocation data,
//! printed as one JSON figure for the run that spawned it ([`crate::startup::measure`]).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::output::{Outcome, print};

#[derive(Args, Debug)]
pub(super) struct StartUpArgs {
    /// The mechanism whose data to load (crlset, crlite, upki, crl).
    #[arg(long)]
    mechanism: certbench_core::revocation::Mechanism,
    /// The data's folder.
    #[arg(long, value_name = "DIR")]
    revocation_data: PathBuf,
}

pub(super) fn run(args: StartUpArgs) -> Result<Outcome> {
    let run = crate::startup::one(args.mechanism, &args.revocation_data);
    print(&(serde_json::to_string(&run)? + "\n"));
    // upki: certbench's own integrity pass, apart from what upki does (above).
    if args.mechanism == certbench_core::revocation::Mechanism::Upki {
        let pass = crate::startup::integrity(&args.revocation_data);
        print(&(serde_json::to_string(&pass)? + "\n"));
    }
    Ok(Outcome::Complete)
}
