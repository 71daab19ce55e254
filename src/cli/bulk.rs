//! `certbench bulk`: MB/s sending and receiving over an established TLS session, client and
//! server joined in memory (args → [`crate::bulk::BulkOptions`] → [`crate::bulk::run`] →
//! tables).

use anyhow::{Result, bail};
use certbench_analysis::bulk::{render_csv, render_markdown};
use certbench_analysis::export::Format;
use clap::Args;

use super::output::Outcome;
use super::output::OutputArgs;
use crate::bulk::{BulkOptions, BulkStack, Cipher, Suite, Tls};
use crate::handshake::KeyType;

#[derive(Args, Debug)]
pub(super) struct BulkArgs {
    /// Stacks, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "openssl,rustls-aws-lc-rs,rustls-ring"
    )]
    stack: Vec<BulkStack>,
    /// TLS versions, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "1.3")]
    tls: Vec<Tls>,
    /// Ciphers, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "aes128gcm,aes256gcm,chacha20"
    )]
    cipher: Vec<Cipher>,
    /// Server keys, comma-separated (TLS 1.2: ECDHE-ECDSA for p256/p384, ECDHE-RSA for rsa2048).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "p256")]
    key: Vec<KeyType>,
    /// MiB of application data per measurement.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..))]
    mib: u64,
    /// Bytes sent per measurement instead of --mib (for small test runs).
    #[arg(long, hide = true, conflicts_with = "mib")]
    bytes: Option<u64>,
    /// Plaintext bytes per record written (16384: the largest TLS record, both stacks' preferred size).
    #[arg(long, default_value_t = 16384, value_parser = clap::value_parser!(u64).range(1..=16384))]
    record: u64,
    /// Measurements per configuration, each on a new session (best and median are reported).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    #[command(flatten)]
    out: OutputArgs,
}

pub(super) fn run(args: BulkArgs) -> Result<Outcome> {
    let out = &args.out;
    let mut suites = Vec::new();
    for &tls in &args.tls {
        for &key in &args.key {
            for &cipher in &args.cipher {
                suites.push(Suite { tls, cipher, key });
            }
            if tls == Tls::V13 {
                // A TLS 1.3 suite does not depend on the key: once is enough.
                break;
            }
        }
    }
    if suites.is_empty() {
        bail!("no cipher suite to measure");
    }
    let opts = BulkOptions {
        stacks: args.stack.clone(),
        suites,
        bytes: args.bytes.unwrap_or(args.mib << 20),
        record: args.record as usize,
        runs: args.runs,
    };
    out.note(&format!(
        "certbench bulk: {} stacks × {} suites × {} runs of {} MiB, in memory",
        opts.stacks.len(),
        opts.suites.len(),
        opts.runs,
        opts.bytes as f64 / f64::from(1 << 20)
    ));
    let bar = out.progress((opts.stacks.len() * opts.suites.len()) as u64 * u64::from(opts.runs));
    let certs = |key: KeyType| crate::handshake::certs::generate(key).ok();
    let (results, failures) = crate::bulk::run(&opts, &certs, || bar.inc(1));
    bar.finish_and_clear();
    for (label, e) in &failures {
        out.error(&format!("certbench: error: {label}: {e} (not measured)"));
    }
    let text = match out.format {
        Format::Markdown => format!(
            "## certbench bulk — {} MiB per run, records of {} bytes, in memory (no socket)\n\n{}",
            opts.bytes as f64 / f64::from(1 << 20),
            opts.record,
            render_markdown(&results)
        ),
        Format::Csv => render_csv(&results),
        Format::Json => serde_json::to_string_pretty(&results)? + "\n",
    };
    out.write(&text)?;
    Ok(Outcome::partial_if(!failures.is_empty()))
}
