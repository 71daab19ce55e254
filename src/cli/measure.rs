//! A driver run as the CLI shows it: `--resume FILE` (the first part's samples, its lines
//! that were not samples, whether its options could be checked) and the measurement with a
//! progress bar and Ctrl-C watched.

use std::path::Path;

use anyhow::Result;
use certbench_analysis::Sample;

use super::output::{self, OutputArgs};
use super::runtime;
use crate::driver::{self, DrivePlan, RunControl};
use crate::run::resume::{self, Unchecked};

/// The samples already taken (kept for the tables, skipped by the driver), after checking
/// that this run's options `now` measure what the first part measured.
pub(super) fn resumed(
    out: &OutputArgs,
    path: &Path,
    now: &[(String, String)],
) -> Result<(Vec<Sample>, RunControl)> {
    let stored = resume::read(path)?;
    let file = path.display();
    for e in &stored.bad_lines {
        out.error(&format!(
            "certbench: error: {file}: {e} (skipped; measured again)"
        ));
    }
    match stored.check(path, now)? {
        None => {}
        Some(Unchecked::NoHeader(header)) => out.error(&format!(
            "certbench: warning: no run header beside {file} ({}): cannot check that this run's options match the first part's",
            header.display()
        )),
        Some(Unchecked::NoOptions(first)) => out.error(&format!(
            "certbench: warning: --resume {file}: cannot read the first part's options ({}); not checking that the options match",
            first.join(" ")
        )),
    }
    let n = stored.samples.len();
    out.note(&format!(
        "certbench: resuming {file}: {n} samples already taken"
    ));
    let done = stored
        .samples
        .iter()
        .map(crate::driver::sample_key)
        .collect();
    let control = RunControl {
        done,
        ..RunControl::default()
    };
    Ok((stored.samples, control))
}

/// The measurement on the async runtime, with Ctrl-C watched and a progress bar; `false`
/// when interrupted.
pub(super) fn measure(
    plan: &DrivePlan,
    control: &RunControl,
    out: &OutputArgs,
    mut sink: impl FnMut(Sample),
) -> Result<bool> {
    let bar = out.progress(plan.total());
    bar.inc(control.done.len() as u64);
    let finished = runtime()?.block_on(async {
        output::watch_ctrl_c(control.stop.clone(), out.quiet);
        driver::measure(plan, control, |s| {
            bar.inc(1);
            sink(s);
        })
        .await
    })?;
    bar.finish_and_clear();
    Ok(finished)
}
