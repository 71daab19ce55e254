//! `certbench limbo FILE`: every method over an x509-limbo file; results in the limbo result
//! format, a tally per method and family, and where verdicts differ (between methods, and
//! from the upstream harness of the same library).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use certbench_analysis::limbo::{
    Agreement, LimboResult, Summary, render_agreements, render_summaries,
};
use clap::Args;
use serde::Serialize;

use super::args::{MethodArg, methods};
use super::output::Outcome;
use crate::limbo::{LimboFile, MethodRun, expectations};
use crate::methods::Method;

#[derive(Args, Debug)]
pub(super) struct LimboArgs {
    /// An x509-limbo file (schema version 1), e.g. corpus/x509-limbo/limbo-sample.json or
    /// corpus/real-chains.limbo.json.
    file: PathBuf,
    /// Methods, comma-separated (or repeated): any of the possible values.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    method: Vec<MethodArg>,
    /// Write the results in the limbo result format: with one method, to the file PATH;
    /// with several, one `<method>.json` per method into the folder PATH.
    #[arg(long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// For each pair of methods, list the testcases where their verdicts differ.
    #[arg(long)]
    compare: bool,
    /// Folder of upstream harness results (limbo result format, e.g.
    /// ../shared/data/x509-limbo/results): compare each method with its library's harness.
    #[arg(long, value_name = "DIR")]
    upstream: Option<PathBuf>,
    /// Summary format: md or json (json lists every difference).
    #[arg(long, default_value = "md")]
    format: SummaryFormat,
    /// Differing testcases listed per pair in markdown.
    #[arg(long, default_value_t = 25)]
    show: usize,
    /// Per-testcase verify time: a table of each method's slowest testcases (the
    /// slowest single calls, each verified again `--timing-repeats` times, ranked by median).
    #[arg(long)]
    timings: bool,
    /// Testcases in each method's slowest table (with --timings).
    #[arg(long, default_value_t = 20, requires = "timings")]
    timings_top: usize,
    /// Times each candidate is verified again (with --timings).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..), requires = "timings")]
    timing_repeats: u16,
    /// No progress or notes on standard error.
    #[arg(long)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SummaryFormat {
    Md,
    Json,
}

#[derive(Serialize)]
struct JsonSummary<'a> {
    file: &'a Path,
    testcases: usize,
    bad_testcases: Vec<(&'a str, &'a str)>,
    wall_seconds: f64,
    verify_seconds: Vec<(String, f64)>,
    summaries: &'a [Summary],
    method_pairs: &'a [Agreement],
    upstream: &'a [Agreement],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    slowest: Vec<JsonSlow>,
}

/// One of a method's slowest testcases, in the JSON summary.
#[derive(Serialize)]
struct JsonSlow {
    method: String,
    rank: usize,
    id: String,
    family: String,
    median_ns: u64,
    again_ns: Vec<u64>,
    first_ns: u64,
    actual_result: &'static str,
}

/// Each method's slowest testcases (`--timings`), timed again.
fn slowest_tables(
    file: &LimboFile,
    runs: &[MethodRun],
    top: usize,
    repeats: usize,
) -> Vec<(Method, Vec<crate::limbo::run::SlowCase>)> {
    runs.iter()
        .map(|r| (r.method, crate::limbo::run::slowest(file, r, top, repeats)))
        .collect()
}

/// Markdown: per method, its slowest testcases.
fn render_slowest(slow: &[(Method, Vec<crate::limbo::run::SlowCase>)], repeats: usize) -> String {
    use certbench_analysis::units::human;
    let mut out = format!(
        "\n### Slowest testcases per method (verify call; median of {repeats} calls made again, min–max)\n"
    );
    for (method, cases) in slow {
        out.push_str(&format!("\n#### {method}\n\n"));
        if cases.is_empty() {
            out.push_str("No testcase ran.\n");
            continue;
        }
        let rows = cases
            .iter()
            .enumerate()
            .map(|(i, c)| {
                vec![
                    (i + 1).to_string(),
                    c.id.clone(),
                    certbench_analysis::limbo::family(&c.id).to_owned(),
                    human(c.median_ns() as f64),
                    match (c.again_ns.first(), c.again_ns.last()) {
                        (Some(lo), Some(hi)) => {
                            format!("{}–{}", human(*lo as f64), human(*hi as f64))
                        }
                        _ => "—".to_owned(),
                    },
                    human(c.first_ns as f64),
                    c.actual.as_str().to_owned(),
                ]
            })
            .collect();
        out.push_str(&certbench_analysis::export::markdown::plain_table(
            &[
                "#",
                "testcase",
                "family",
                "median",
                "min–max",
                "first call",
                "verdict",
            ],
            rows,
            3,
        ));
        out.push('\n');
    }
    out
}

/// Loads every `*.json` file of `dir` that is a limbo result document, in name order.
fn load_upstream(dir: &Path) -> Result<Vec<LimboResult>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let parsed = std::fs::read_to_string(&p)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<LimboResult>(&t).map_err(|e| e.to_string()));
        match parsed {
            Ok(r) => out.push(r),
            // A warning: shown even with --quiet.
            Err(e) => eprintln!(
                "certbench: warning: {}: not a limbo result file, ignored: {e}",
                p.display()
            ),
        }
    }
    if out.is_empty() {
        bail!("{}: no limbo result file found", dir.display());
    }
    Ok(out)
}

fn write_results(runs: &[MethodRun], path: &Path) -> Result<()> {
    let write = |p: &Path, r: &LimboResult| -> Result<()> {
        let text = serde_json::to_string_pretty(r).expect("results serialize");
        std::fs::write(p, text + "\n").with_context(|| format!("writing {}", p.display()))
    };
    match runs {
        [one] => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            write(path, &one.result)
        }
        _ => {
            std::fs::create_dir_all(path)
                .with_context(|| format!("creating {}", path.display()))?;
            for r in runs {
                write(&path.join(format!("{}.json", r.method)), &r.result)?;
            }
            Ok(())
        }
    }
}

pub(super) fn run(args: LimboArgs) -> Result<Outcome> {
    let methods: Vec<Method> = methods(&args.method);
    let note = |msg: &str| {
        if !args.quiet {
            eprintln!("{msg}");
        }
    };
    let file = LimboFile::load(&args.file)?;
    let upstream = match &args.upstream {
        Some(dir) => load_upstream(dir)?,
        None => Vec::new(),
    };
    let bad: Vec<_> = file.cases.iter().filter_map(|c| c.as_ref().err()).collect();
    for b in &bad {
        // An error: shown even with --quiet.
        eprintln!(
            "certbench: error: {}: testcase {}: {}",
            args.file.display(),
            b.id,
            b.message
        );
    }
    note(&format!(
        "certbench limbo: {} testcases × {} method(s) from {}",
        file.cases.len(),
        methods.len(),
        args.file.display()
    ));

    let bar = if !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        indicatif::ProgressBar::new(file.cases.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let started = Instant::now();
    let runs = crate::limbo::run::run(&file, &methods, || bar.inc(1));
    let wall = started.elapsed().as_secs_f64();
    bar.finish_and_clear();

    if let Some(path) = &args.output {
        write_results(&runs, path)?;
        note(&format!(
            "certbench limbo: results written to {}",
            path.display()
        ));
    }

    // Upstream results cover the whole corpus: keep the testcases of this file.
    let ids: std::collections::HashSet<&str> =
        file.cases.iter().flatten().map(|c| c.id.as_str()).collect();
    let upstream: Vec<LimboResult> = upstream
        .into_iter()
        .map(|mut u| {
            u.results.retain(|r| ids.contains(r.id.as_str()));
            u
        })
        .collect();

    let exp = expectations(&file);
    let mut summaries: Vec<Summary> = runs.iter().map(|r| Summary::of(&r.result, &exp)).collect();
    summaries.extend(upstream.iter().map(|u| Summary::of(u, &exp)));

    let mut pairs = Vec::new();
    if args.compare {
        for (i, a) in runs.iter().enumerate() {
            for b in &runs[i + 1..] {
                pairs.push(Agreement::of(&a.result, &b.result));
            }
        }
    }
    let mut vs_upstream = Vec::new();
    for r in &runs {
        let lib = r.method.verifier().library();
        match upstream
            .iter()
            .find(|u| lib.limbo_harness.is_some_and(|h| u.harness.starts_with(h)))
        {
            Some(u) => vs_upstream.push(Agreement::of(&r.result, u)),
            None if args.upstream.is_some() => note(&match lib.limbo_harness {
                Some(h) => format!(
                    "certbench limbo: no upstream result for {} (harness `{h}*`)",
                    r.method
                ),
                None => format!(
                    "certbench limbo: {} ({}) has no upstream harness",
                    r.method, lib.name
                ),
            }),
            None => {}
        }
    }

    let repeats = usize::from(args.timing_repeats);
    let slowest = if args.timings {
        note("certbench limbo: timing the slowest testcases again");
        slowest_tables(&file, &runs, args.timings_top, repeats)
    } else {
        Vec::new()
    };

    let verify_seconds: Vec<(String, f64)> = runs
        .iter()
        .map(|r| (r.method.to_string(), r.verify_ns as f64 / 1e9))
        .collect();
    let text = match args.format {
        SummaryFormat::Json => {
            let doc = JsonSummary {
                file: &args.file,
                testcases: file.cases.len(),
                bad_testcases: bad
                    .iter()
                    .map(|b| (b.id.as_str(), b.message.as_str()))
                    .collect(),
                wall_seconds: wall,
                verify_seconds,
                summaries: &summaries,
                method_pairs: &pairs,
                upstream: &vs_upstream,
                slowest: slowest
                    .iter()
                    .flat_map(|(m, cases)| {
                        cases.iter().enumerate().map(move |(i, c)| JsonSlow {
                            method: m.to_string(),
                            rank: i + 1,
                            id: c.id.clone(),
                            family: certbench_analysis::limbo::family(&c.id).to_owned(),
                            median_ns: c.median_ns(),
                            again_ns: c.again_ns.clone(),
                            first_ns: c.first_ns,
                            actual_result: c.actual.as_str(),
                        })
                    })
                    .collect(),
            };
            serde_json::to_string_pretty(&doc).expect("summary serializes") + "\n"
        }
        SummaryFormat::Md => {
            let mut out = format!(
                "## x509-limbo: {} ({} testcases)\n\n",
                args.file.display(),
                file.cases.len()
            );
            out.push_str(&render_summaries(&summaries));
            out.push_str(&format!(
                "\nWall time {wall:.1} s; in verify calls: {}.\n",
                runs.iter()
                    .map(|r| format!(
                        "{} {:.2} s over {} testcases",
                        r.method,
                        r.verify_ns as f64 / 1e9,
                        r.ran
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            if !bad.is_empty() {
                out.push_str(&format!(
                    "\n{} testcase(s) could not be read (SKIPPED by every method; see standard error).\n",
                    bad.len()
                ));
            }
            if args.compare {
                out.push_str("\n### Verdicts that differ between methods\n\n");
                out.push_str(&render_agreements(&pairs, args.show));
            }
            if !vs_upstream.is_empty() {
                out.push_str("\n### Verdicts that differ from the upstream harness\n\n");
                out.push_str(&render_agreements(&vs_upstream, args.show));
            }
            if args.timings {
                out.push_str(&render_slowest(&slowest, repeats));
            }
            out
        }
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(Outcome::partial_if(!bad.is_empty()))
}
