//! `certbench bulk`: MB/s sending and receiving over an established TLS session, client and
//! server joined in memory (args → [`crate::bulk::BulkOptions`] → [`crate::bulk::run`] →
//! tables).

use anyhow::{Result, bail};
use certbench_analysis::export::render_bulk_run;
use clap::Args;

use super::output::{Outcome, OutputArgs};
use crate::bulk::BulkOptions;
use crate::tls::{Cipher, KeyType, TlsLibrary, Version};

#[derive(Args, Debug)]
pub(super) struct BulkArgs {
    /// Stacks, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "openssl,rustls-aws-lc-rs,rustls-ring"
    )]
    stack: Vec<TlsLibrary>,
    /// TLS versions, comma-separated.
    #[arg(
        long,
        value_parser = Version::value_parser("TLS 1.2 (ECDHE, with the key's authentication)"),
        value_delimiter = ',',
        default_value = "1.3"
    )]
    tls: Vec<Version>,
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
    #[arg(long, hide = true, conflicts_with = "mib", value_parser = clap::value_parser!(u64).range(1..))]
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
    let suites = crate::bulk::suites(&args.tls, &args.key, &args.cipher);
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
    out.note(&opts.describe());
    let bar = out.progress(opts.total());
    let certs = |key: KeyType| crate::certs::test::generate(key).ok();
    let (results, failures) = crate::bulk::run(&opts, &certs, || bar.inc(1));
    bar.finish_and_clear();
    for (label, e) in &failures {
        out.error(&format!("certbench: error: {label}: {e} (not measured)"));
    }
    out.write(&render_bulk_run(&results, &opts.run(), out.format))?;
    Ok(Outcome::partial_if(!failures.is_empty()))
}
