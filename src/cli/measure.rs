//! A driver run as the CLI shows it: `--resume FILE` (the first part's samples, its lines
//! that were not samples, whether its options could be checked) and the measurement with a
//! progress bar and Ctrl-C watched.

use std::path::Path;

use anyhow::Result;
use certbench_schema::Sample;

use super::output::{self, OutputArgs};
use super::runtime;
use crate::driver::{self, DrivePlan, RunControl};
use crate::run::resume::{self, ResumeError, Unchecked};
use crate::run::spec::RunSpec;

/// The samples already taken (kept for the tables, skipped by the driver), after checking
/// that this run (`now`) measures what the first part measured.
pub(super) fn resumed(
    out: &OutputArgs,
    path: &Path,
    now: &RunSpec,
) -> Result<(Vec<Sample>, RunControl)> {
    let stored = resume::read(path).map_err(refusal)?;
    let file = path.display();
    for e in &stored.bad_lines {
        out.error(&format!(
            "certbench: error: {file}: {e} (skipped; measured again)"
        ));
    }
    match stored.check(path, now).map_err(refusal)? {
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

/// A resume refused, in the options' words: `--resume FILE: …`, each field that differs
/// named by its option.
fn refusal(e: ResumeError) -> anyhow::Error {
    match e {
        ResumeError::Io { path, source } => {
            anyhow::Error::new(source).context(format!("--resume {}", path.display()))
        }
        ResumeError::OptionsDiffer {
            path,
            differ,
            first_command,
        } => {
            let told: Vec<String> = (differ.iter())
                .map(|d| {
                    let was = d.was.as_deref().unwrap_or("not applicable");
                    let now = d.now.as_deref().unwrap_or("(not applicable)");
                    format!("--{} was {was}, now {now}", d.field.name())
                })
                .collect();
            anyhow::anyhow!(
                "--resume {}: this run's options differ from the first part's, so its samples would measure something else ({}); give the same options as the first time: {}",
                path.display(),
                told.join("; "),
                first_command.join(" ")
            )
        }
    }
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

/// The note when Ctrl-C stopped `plan`'s run after `samples` samples: how to go on.
pub(super) fn interrupted(plan: &DrivePlan, samples: usize) -> String {
    let raw = plan.raw_path.display();
    format!(
        "certbench: interrupted: {samples} samples in {raw}; `--resume {raw}` continues the run"
    )
}
