//! `certbench icount`: instructions per verification, per method and key type, under
//! callgrind (see `certbench::bench::icount`), each measured `--repeat` times to show that
//! the count is deterministic.

use std::path::PathBuf;

use anyhow::{Context, Result};
use certbench_analysis::export::render_icount;
use clap::Args;

use super::args::{MethodArg, methods};
use super::output::{self, Outcome};
use crate::bench::icount::sweep::{self, SweepOptions};
use crate::bench::icount::{self, Scenario};
use crate::tls::TlsLibrary;
use certbench_core::methods::Method;

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

impl ScenarioArg {
    /// The TLS scenario, or `None` for the verify path.
    fn scenario(self) -> Option<Scenario> {
        match self {
            ScenarioArg::Verify => None,
            ScenarioArg::Handshake => Some(Scenario::Handshake),
            ScenarioArg::Resumed => Some(Scenario::Resumed),
            ScenarioArg::Bulk => Some(Scenario::Bulk),
        }
    }
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
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    iterations: u32,
    /// Measurements per (method, key type): two or more show the spread between runs.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
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
    stack: Vec<TlsLibrary>,
    /// Internal: the process valgrind runs (METHOD KEY ITERATIONS).
    #[arg(long, hide = true, num_args = 3)]
    child: Option<Vec<String>>,
    /// Internal: the process valgrind runs for a scenario (SCENARIO STACK ITERATIONS).
    #[arg(long, hide = true, num_args = 3)]
    child_scenario: Option<Vec<String>>,
}

/// The processes valgrind runs (`--child`, `--child-scenario`): true when this is one.
fn child(args: &IcountArgs) -> Result<bool> {
    if let Some(c) = &args.child {
        let method: Method = c[0].parse().map_err(|e: String| anyhow::anyhow!(e))?;
        let n: u32 = c[2].parse().context("iterations")?;
        icount::child(method, &c[1], n)?;
        return Ok(true);
    }
    if let Some(c) = &args.child_scenario {
        use clap::ValueEnum;
        let scenario = [Scenario::Handshake, Scenario::Resumed, Scenario::Bulk]
            .into_iter()
            .find(|s| s.name() == c[0])
            .with_context(|| format!("unknown scenario {:?}", c[0]))?;
        let stack = TlsLibrary::from_str(&c[1], false).map_err(|e| anyhow::anyhow!(e))?;
        let n: u32 = c[2].parse().context("iterations")?;
        icount::scenario_child(scenario, stack, n)?;
        return Ok(true);
    }
    Ok(false)
}

pub(super) fn run(args: IcountArgs) -> Result<Outcome> {
    if child(&args)? {
        return Ok(Outcome::Complete);
    }
    let opts = SweepOptions {
        methods: methods(&args.method, &[]),
        keys: args.key.clone(),
        verify: args.scenario.contains(&ScenarioArg::Verify),
        scenarios: args.scenario.iter().filter_map(|s| s.scenario()).collect(),
        stacks: args.stack.clone(),
        iterations: args.iterations,
        repeat: args.repeat,
        out_dir: args.out_dir.clone(),
    };
    // No --quiet here: the progress always shows.
    let counted = sweep::run(&opts, |msg| output::note(false, msg))?;
    output::print(&render_icount(&counted.tables(&opts, args.tolerance)));
    if let Some(path) = &args.json {
        counted.write_json(path)?;
    }
    counted.clean_up();
    let off = counted.worst > args.tolerance;
    if off {
        output::warn(&format!(
            "certbench: counts differ by more than {} % between runs",
            args.tolerance
        ));
    }
    Ok(Outcome::partial_if(off))
}
