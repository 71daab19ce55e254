//! Everything the commands write, and the exit code: progress and notes on standard error,
//! the tables on standard output or `--output`, every sample to the raw JSONL file as it is
//! taken. Nothing else in the CLI prints, and [`exit_code`] is the one place that turns how a
//! run ended into the process's exit code.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, atomic::AtomicBool, atomic::Ordering};

use anyhow::{Context, Result};
use certbench_analysis::export::{Format, render_samples};
use certbench_schema::{RunInfo, Sample};
use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser as _};

pub(super) use crate::run::Outcome;
use certbench_core::methods::Method;

/// Exit code of a run stopped by Ctrl-C (SIGINT), as shells report it (128 + 2).
const EXIT_INTERRUPTED: u8 = 130;

/// The exit code of a command's result: 0 complete, 1 fatal error, 2 usage (`usage::Usage`;
/// clap's own exit before a command runs), 3 partial, 130 interrupted.
pub(super) fn exit_code(result: Result<Outcome>) -> ExitCode {
    match result {
        Ok(Outcome::Complete) => ExitCode::SUCCESS,
        Ok(Outcome::Partial) => ExitCode::from(3),
        Ok(Outcome::Interrupted) => ExitCode::from(EXIT_INTERRUPTED),
        Err(e) => {
            warn(&format!("certbench: error: {e:#}"));
            ExitCode::from(1 + u8::from(e.downcast_ref::<super::usage::Usage>().is_some()))
        }
    }
}

/// Watches for Ctrl-C: the first sets `stop` (the run ends after the current sample and prints
/// its tables), a second quits at once (every finished sample is already in the raw file).
pub(super) fn watch_ctrl_c(stop: Arc<AtomicBool>, quiet: bool) {
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
        stop.store(true, Ordering::SeqCst);
        note(
            quiet,
            "certbench: interrupted: stopping after the current sample (Ctrl-C again to quit at once)",
        );
        if tokio::signal::ctrl_c().await.is_ok() {
            warn("certbench: interrupted again: quitting; finished samples are in the raw file");
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
    });
}

/// Text for standard output (commands without `--output`, e.g. the mirror's address).
pub(super) fn print(text: &str) {
    let _ = print_checked(text); // a closed pipe (`| head`) is not an error worth a panic
}

/// A line on standard error that `--quiet` does not silence (errors, warnings).
pub(super) fn warn(msg: &str) {
    eprintln!("{msg}");
}

/// A note on standard error unless `quiet`.
pub(super) fn note(quiet: bool, msg: &str) {
    if !quiet {
        eprintln!("{msg}");
    }
}

/// A progress bar on standard error when it is a terminal and not `quiet`.
pub(super) fn progress(quiet: bool, total: u64) -> indicatif::ProgressBar {
    if !quiet && std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(total)
    } else {
        indicatif::ProgressBar::hidden()
    }
}

/// Writes `text` to standard output, for the commands without [`OutputArgs`]; unlike
/// [`print`], a write error (a closed pipe) is the command's error.
pub(super) fn print_checked(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    Ok(stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())?)
}

/// Output options of the measuring commands.
#[derive(Args, Debug)]
pub(super) struct OutputArgs {
    /// Table format.
    #[arg(long, default_value = "md", value_parser = PossibleValuesParser::new(Format::NAMES)
        .map(|s| s.parse::<Format>().unwrap_or(Format::Markdown)))]
    pub(super) format: Format,
    /// Write the tables to FILE instead of standard output.
    #[arg(long)]
    pub(super) output: Option<PathBuf>,
    /// No progress or notes on standard error (errors and warnings are still shown).
    #[arg(long)]
    pub(super) quiet: bool,
}

impl OutputArgs {
    /// A note on standard error, unless `--quiet`.
    pub(super) fn note(&self, msg: &str) {
        note(self.quiet, msg);
    }

    /// An error or a warning on standard error, even with `--quiet` (it silences progress).
    pub(super) fn error(&self, msg: &str) {
        warn(msg);
    }

    /// A progress bar on standard error when it is a terminal and not `--quiet`.
    pub(super) fn progress(&self, total: u64) -> indicatif::ProgressBar {
        progress(self.quiet, total)
    }

    /// The tables of `samples` (`title` in markdown; `other_hook` for the answer's last line).
    pub(super) fn tables(
        &self,
        title: &str,
        samples: &[Sample],
        methods: &[Method],
        other_hook: Option<&str>,
    ) -> String {
        let order: Vec<&str> = methods.iter().map(|m| m.name()).collect();
        render_samples(title, samples, &order, other_hook, self.format)
    }

    /// Writes `text` to `--output` with its run header `info` beside it, or to stdout.
    pub(super) fn write_with_header(&self, text: &str, info: &RunInfo) -> Result<()> {
        self.write(text)?;
        match &self.output {
            Some(p) => Ok(crate::run::sink::write_header(p, info)?),
            None => Ok(()),
        }
    }

    /// Writes `text` to `--output`, or to stdout.
    pub(super) fn write(&self, text: &str) -> Result<()> {
        match &self.output {
            Some(p) => std::fs::write(p, text).with_context(|| format!("writing {}", p.display())),
            None => print_checked(text),
        }
    }
}
