//! `certbench icount`: instructions per verification, per method and key type, under
//! callgrind (see `certbench::bench::icount`), each measured `--repeat` times to show that
//! the count is deterministic.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use certbench_analysis::export::markdown::plain_table;
use clap::Args;

use super::args::{MethodArg, methods};
use super::output::{self, Outcome};
use crate::Method;
use crate::bench::icount::{
    Count, KEY_CHAINS, Scenario, child, measure, measure_scenario, scenario_child,
};
use crate::bulk::BulkStack;

/// `--scenario`: verification alone, or a TLS scenario per stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ScenarioArg {
    /// One verification per method and key type (the corpus chains).
    Verify,
    /// One full handshake per stack.
    Handshake,
    /// One resumed handshake per stack.
    Resumed,
    /// 1 MiB of application data per stack.
    Bulk,
}

#[derive(Args, Debug)]
pub(super) struct IcountArgs {
    /// Methods, comma-separated (or repeated): any of the possible values.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    method: Vec<MethodArg>,
    /// Key types: rsa2048, p256, p384 (comma-separated) or all.
    #[arg(long, value_delimiter = ',', default_value = "all")]
    key: Vec<String>,
    /// Verifications counted per measurement.
    #[arg(long, default_value_t = 10)]
    iterations: u32,
    /// Measurements per (method, key type): two or more show the spread between runs.
    #[arg(long, default_value_t = 2)]
    repeat: u32,
    /// Largest spread between repeated counts tolerated, in percent (exit 3 beyond).
    #[arg(long, default_value_t = 0.1)]
    tolerance: f64,
    /// Also write the counts as JSON to FILE.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Where callgrind's files go (default: a temporary folder).
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// What to count, comma-separated: verify (per method and key type), and per TLS stack
    /// handshake, resumed and bulk (in memory, P-256, TLS 1.3 AES-128-GCM).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "verify")]
    scenario: Vec<ScenarioArg>,
    /// Stacks for the handshake, resumed and bulk scenarios, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "openssl,rustls-aws-lc-rs,rustls-ring"
    )]
    stack: Vec<BulkStack>,
    /// Internal: the process valgrind runs (METHOD KEY ITERATIONS).
    #[arg(long, hide = true, num_args = 3)]
    child: Option<Vec<String>>,
    /// Internal: the process valgrind runs for a scenario (SCENARIO STACK ITERATIONS).
    #[arg(long, hide = true, num_args = 3)]
    child_scenario: Option<Vec<String>>,
}

pub(super) fn run(args: IcountArgs) -> Result<Outcome> {
    if let Some(c) = &args.child {
        let method: Method = c[0].parse().map_err(|e: String| anyhow::anyhow!(e))?;
        let n: u32 = c[2].parse().context("iterations")?;
        child(method, &c[1], n)?;
        return Ok(Outcome::Complete);
    }
    if let Some(c) = &args.child_scenario {
        use clap::ValueEnum;
        let scenario = [Scenario::Handshake, Scenario::Resumed, Scenario::Bulk]
            .into_iter()
            .find(|s| s.name() == c[0])
            .with_context(|| format!("unknown scenario {:?}", c[0]))?;
        let stack = BulkStack::from_str(&c[1], false).map_err(|e| anyhow::anyhow!(e))?;
        let n: u32 = c[2].parse().context("iterations")?;
        scenario_child(scenario, stack, n)?;
        return Ok(Outcome::Complete);
    }
    let methods = methods(&args.method);
    let keys: Vec<&str> = if args.key.iter().any(|k| k == "all") {
        KEY_CHAINS.iter().map(|(k, _)| *k).collect()
    } else {
        args.key.iter().map(|k| k.trim()).collect()
    };
    for k in &keys {
        if !KEY_CHAINS.iter().any(|(known, _)| known == k) {
            bail!("unknown key type {k:?} (rsa2048, p256, p384)");
        }
    }
    if args.repeat == 0 || args.iterations == 0 {
        bail!("--repeat and --iterations must be at least 1");
    }
    let exe = std::env::current_exe().context("finding this executable")?;
    let tmp;
    let out_dir = match &args.out_dir {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("{}", d.display()))?;
            d.clone()
        }
        None => {
            tmp = std::env::temp_dir().join(format!("certbench-icount-{}", std::process::id()));
            std::fs::create_dir_all(&tmp)?;
            tmp
        }
    };
    let mut rows = Vec::new();
    let mut all: Vec<Vec<Count>> = Vec::new();
    let mut worst = 0.0f64;
    let verify = args.scenario.contains(&ScenarioArg::Verify);
    for &key in keys.iter().filter(|_| verify) {
        for &m in &methods {
            let mut counts = Vec::new();
            for r in 0..args.repeat {
                eprintln!(
                    "certbench: icount {m} {key} (run {}/{})",
                    r + 1,
                    args.repeat
                );
                counts.push(measure(&exe, m, key, args.iterations, &out_dir)?);
            }
            let values: Vec<u64> = counts.iter().map(|c| c.per_verify).collect();
            let (lo, hi) = (
                *values.iter().min().unwrap_or(&0),
                *values.iter().max().unwrap_or(&0),
            );
            let spread = if lo == 0 {
                0.0
            } else {
                (hi - lo) as f64 / lo as f64 * 100.0
            };
            worst = worst.max(spread);
            rows.push(vec![
                m.name().to_owned(),
                key.to_owned(),
                values
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" / "),
                format!("{spread:.4} %"),
            ]);
            all.push(counts);
        }
    }
    let spread_of = |values: &[u64]| {
        let (lo, hi) = (
            *values.iter().min().unwrap_or(&0),
            *values.iter().max().unwrap_or(&0),
        );
        if lo == 0 {
            0.0
        } else {
            (hi - lo) as f64 / lo as f64 * 100.0
        }
    };
    let scenarios: Vec<Scenario> = args
        .scenario
        .iter()
        .filter_map(|s| match s {
            ScenarioArg::Verify => None,
            ScenarioArg::Handshake => Some(Scenario::Handshake),
            ScenarioArg::Resumed => Some(Scenario::Resumed),
            ScenarioArg::Bulk => Some(Scenario::Bulk),
        })
        .collect();
    let mut scenario_rows = Vec::new();
    for &scenario in &scenarios {
        for &stack in &args.stack {
            let mut counts = Vec::new();
            for r in 0..args.repeat {
                eprintln!(
                    "certbench: icount {} {} (run {}/{})",
                    scenario.name(),
                    stack.name(),
                    r + 1,
                    args.repeat
                );
                counts.push(measure_scenario(
                    &exe,
                    scenario,
                    stack,
                    args.iterations,
                    &out_dir,
                )?);
            }
            let values: Vec<u64> = counts.iter().map(|c| c.per_verify).collect();
            let spread = spread_of(&values);
            worst = worst.max(spread);
            scenario_rows.push(vec![
                scenario.name().to_owned(),
                stack.name().to_owned(),
                values
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" / "),
                format!("{spread:.4} %"),
            ]);
            all.push(counts);
        }
    }
    if !rows.is_empty() {
        println!(
            "## Instructions per verification (callgrind, {} verifications per run)\n",
            args.iterations
        );
        println!(
            "{}",
            plain_table(
                &["method", "key", "Ir per verify (each run)", "spread"],
                rows,
                2
            )
        );
    }
    if !scenario_rows.is_empty() {
        if verify {
            println!();
        }
        println!(
            "## Instructions per scenario (callgrind, {} per run; in memory, P-256, TLS 1.3 AES-128-GCM)\n",
            args.iterations
        );
        println!(
            "{}",
            plain_table(
                &["scenario", "stack", "Ir per scenario (each run)", "spread"],
                scenario_rows,
                2
            )
        );
    }
    println!(
        "\nLargest spread between runs: {worst:.4} % (tolerance {} %).",
        args.tolerance
    );
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&all)?)
            .with_context(|| format!("{}", path.display()))?;
    }
    if args.out_dir.is_none() {
        let _ = std::fs::remove_dir_all(&out_dir);
    }
    if worst > args.tolerance {
        output::warn(&format!(
            "certbench: counts differ by more than {} % between runs",
            args.tolerance
        ));
    }
    Ok(Outcome::partial_if(worst > args.tolerance))
}
