//! `certbench report FILE...`: the tables of samples already taken (the driver's, `verify`'s,
//! a patched Servo's JSONL), merged. Malformed lines are reported with their line numbers and
//! skipped.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use certbench_analysis::Sample;
use clap::Args;

use super::{EXIT_PARTIAL, OutputArgs};
use crate::methods::Method;

#[derive(Args, Debug)]
pub(super) struct ReportArgs {
    /// JSONL sample files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

pub(super) fn run(args: ReportArgs) -> Result<ExitCode> {
    let mut samples: Vec<Sample> = Vec::new();
    let mut bad = 0usize;
    for path in &args.files {
        let file = std::fs::File::open(path).with_context(|| format!("{}", path.display()))?;
        let (s, errors) = certbench_analysis::schema::read_jsonl(std::io::BufReader::new(file));
        for e in &errors {
            args.out
                .note(&format!("certbench: error: {}: {e}", path.display()));
        }
        bad += errors.len();
        samples.extend(s);
    }
    let names: Vec<String> = args.files.iter().map(|p| p.display().to_string()).collect();
    args.out.emit(
        &format!(
            "certbench report — {} samples from {}",
            samples.len(),
            names.join(", ")
        ),
        &samples,
        Method::ALL,
    )?;
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_PARTIAL)
    })
}
