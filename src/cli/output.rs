//! Everything the commands write, and the exit code: progress and notes on standard error,
//! the tables on standard output or `--output`, every sample to the raw JSONL file as it is
//! taken. Nothing else in the CLI prints, and [`exit_code`] is the one place that turns how a
//! run ended into the process's exit code.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use certbench_analysis::Sample;
use certbench_analysis::export::{Format, Report, render};
use clap::Args;

use crate::methods::Method;

/// Exit code when the run finished but some items could not be measured.
const EXIT_PARTIAL: u8 = 3;
/// Exit code of a run stopped by Ctrl-C (SIGINT), as shells report it (128 + 2).
const EXIT_INTERRUPTED: u8 = 130;

/// How a command's run ended (a fatal error is the `Err` beside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// Everything was measured.
    Complete,
    /// The run finished, but some items could not be measured (each is an error row).
    Partial,
    /// Stopped by Ctrl-C after the current item; the tables hold what was finished.
    Interrupted,
}

impl Outcome {
    /// `Partial` when `some_failed`, else `Complete`.
    pub(super) fn partial_if(some_failed: bool) -> Outcome {
        if some_failed {
            Outcome::Partial
        } else {
            Outcome::Complete
        }
    }
}

/// The exit code of a command's result: 0 complete, 1 fatal error (printed here), 3 partial,
/// 130 interrupted. Clap's usage errors (2) exit before a command runs.
pub(super) fn exit_code(result: Result<Outcome>) -> ExitCode {
    match result {
        Ok(Outcome::Complete) => ExitCode::SUCCESS,
        Ok(Outcome::Partial) => ExitCode::from(EXIT_PARTIAL),
        Ok(Outcome::Interrupted) => ExitCode::from(EXIT_INTERRUPTED),
        Err(e) => {
            eprintln!("certbench: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// A second Ctrl-C: says so and quits at once (every finished sample is already on disk).
pub(super) fn quit_interrupted() -> ! {
    eprintln!("certbench: interrupted again: quitting; finished samples are in the raw file");
    std::process::exit(i32::from(EXIT_INTERRUPTED))
}

/// Text for standard output (commands without `--output`, e.g. the mirror's address).
pub(super) fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// A line on standard error that `--quiet` does not silence (errors, warnings), for the
/// commands without [`OutputArgs`].
pub(super) fn warn(msg: &str) {
    eprintln!("{msg}");
}

/// A note on standard error unless `quiet`, for the commands without [`OutputArgs`].
pub(super) fn note(quiet: bool, msg: &str) {
    if !quiet {
        eprintln!("{msg}");
    }
}

/// Output options of the measuring commands.
#[derive(Args, Debug)]
pub(super) struct OutputArgs {
    /// Table format: md, csv or json.
    #[arg(long, default_value = "md")]
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
        if !self.quiet {
            eprintln!("{msg}");
        }
    }

    /// An error or a warning on standard error, even with `--quiet` (which silences
    /// progress, never errors).
    pub(super) fn error(&self, msg: &str) {
        eprintln!("{msg}");
    }

    /// A progress bar on standard error when it is a terminal and not `--quiet`.
    pub(super) fn progress(&self, total: u64) -> indicatif::ProgressBar {
        if !self.quiet && std::io::stderr().is_terminal() {
            indicatif::ProgressBar::new(total)
        } else {
            indicatif::ProgressBar::hidden()
        }
    }

    /// Renders the tables of `samples` (tables in `methods` order; markdown starts with
    /// `title`; `other_hook` for the answer) and writes them to `--output` or standard output.
    pub(super) fn emit(
        &self,
        title: &str,
        samples: &[Sample],
        methods: &[Method],
        other_hook: Option<&str>,
    ) -> Result<()> {
        self.write(&self.tables(title, samples, methods, other_hook))
    }

    /// The tables of `samples` in the chosen format, under `title` in markdown; `other_hook`
    /// is the command that measures the other hook, for the answer's last line.
    pub(super) fn tables(
        &self,
        title: &str,
        samples: &[Sample],
        methods: &[Method],
        other_hook: Option<&str>,
    ) -> String {
        let order: Vec<&str> = methods.iter().map(|m| m.name()).collect();
        let report = Report::from_samples(samples, &order, other_hook);
        let mut text = String::new();
        if self.format == Format::Markdown {
            text.push_str(&format!("## {title}\n\n"));
        }
        text.push_str(&render(&report, self.format));
        text
    }

    /// Writes `text` to `--output`, or to stdout.
    pub(super) fn write(&self, text: &str) -> Result<()> {
        match &self.output {
            Some(p) => std::fs::write(p, text).with_context(|| format!("writing {}", p.display())),
            None => Ok(std::io::stdout().write_all(text.as_bytes())?),
        }
    }
}

/// The raw samples file: every sample appended as one JSON line, in one `write` call as it
/// is taken (no buffer), so that a run cut short — even by a second Ctrl-C that exits at
/// once — keeps every finished sample and never a half line.
pub(super) struct RawSink {
    path: PathBuf,
    writer: Option<File>,
    error: Option<std::io::Error>,
}

impl RawSink {
    /// Opens `path` for appending (creating its folder), with `info` as its run header beside
    /// it unless it has one; `None` writes nothing.
    pub(super) fn open(
        path: Option<&std::path::Path>,
        info: &certbench_analysis::schema::RunInfo,
    ) -> Result<RawSink> {
        let Some(path) = path else {
            return Ok(RawSink {
                path: PathBuf::new(),
                writer: None,
                error: None,
            });
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let file = File::options()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        // The run's header for reports (machine, versions, command), beside the samples; a
        // resumed run keeps the first one.
        let header = certbench_analysis::schema::run_info_path(path);
        if !header.exists() {
            let json = serde_json::to_string_pretty(info)?;
            std::fs::write(&header, json)
                .with_context(|| format!("writing {}", header.display()))?;
        }
        Ok(RawSink {
            path: path.to_owned(),
            writer: Some(file),
            error: None,
        })
    }

    /// Appends one sample; after a write error, writes nothing more (see [`RawSink::report`]).
    pub(super) fn write(&mut self, sample: &Sample) {
        if let (Some(w), None) = (self.writer.as_mut(), self.error.as_ref()) {
            let mut line = serde_json::to_string(sample).expect("samples serialize");
            line.push('\n');
            if let Err(e) = w.write_all(line.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    /// Tells of a write error, if there was one.
    pub(super) fn report(&self, out: &OutputArgs) {
        if let Some(e) = &self.error {
            out.error(&format!(
                "certbench: error: writing {}: {e}",
                self.path.display()
            ));
        }
    }
}

/// A progress bar on standard error when it is a terminal and not `quiet`, for the commands
/// without [`OutputArgs`].
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
    Ok(std::io::stdout().write_all(text.as_bytes())?)
}
