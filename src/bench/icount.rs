//! Instruction counts of the verify path, per method and key type, under callgrind: a
//! measure that does not move with the machine's load, so two builds can be compared without
//! noise (as rustls' ci-bench does).
//!
//! The parent ([`measure`]) runs this executable once per (method, chain) under
//! `valgrind --tool=callgrind --collect-atstart=no` with collection toggled on inside
//! [`measured`] (the verify calls). The child ([`child`]) builds the signature pool without
//! workers, so that `rustlsparallel` hands its checks to the pool as it would asleep and the
//! caller runs them all; it warms up, then verifies the chain `iterations` times. The count
//! per verification is the collected total divided by `iterations`.
//!
//! Invariant: the count covers exactly the verification's own instructions (its checks, and
//! the pool's hand-over), so it is the same from run to run to within a few instructions.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Method;
use crate::chain::Chain;
use crate::corpus::Corpus;
use crate::error::Error;
use crate::methods::{AnyRoots, DynVerifier, Target};
use crate::roots::{RootSet, RootsSpec};
use crate::stages::Recorder;

/// (label, corpus chain) per key type: the chains `cargo bench --bench verify` uses too.
pub const KEY_CHAINS: &[(&str, &str)] = &[
    ("rsa2048", "reddit.com__rustls-bench"),
    ("p256", "cloudflare.com__limbo-online"),
    ("p384", "www.washingtonpost.com__rustls-bench"),
];

/// The callgrind toggle: on in [`measured`].
const TOGGLES: &[&str] = &["*icount*measured*"];

/// One count.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Count {
    pub method: String,
    pub key: String,
    pub chain: String,
    /// Instructions per verification (collected total ÷ iterations).
    pub per_verify: u64,
    pub iterations: u32,
}

/// The verify calls whose instructions are counted. Not inlined: callgrind toggles on it.
#[inline(never)]
pub fn measured(v: &dyn DynVerifier, roots: &AnyRoots, chain: &Chain, target: Target<'_>) -> bool {
    let mut rec = Recorder::new();
    std::hint::black_box(v.verify(roots, chain, target, &mut rec)).is_ok()
}

/// The child: verify `key`'s chain with `method` `iterations` times (after a warm-up).
pub fn child(method: Method, key: &str, iterations: u32) -> Result<(), Error> {
    // A pool without workers: `rustlsparallel` takes the same path (its checks handed to the
    // pool), and the caller runs them all, so the count is the verification's work whatever
    // the scheduler does (under valgrind's serialised threads, a worker took a check in some
    // runs and not in others, and the counts differed by one check).
    crate::pool::SignaturePool::init_global(0);
    let (item, roots) = load(key)?;
    let v = method.verifier();
    let store = v.build_roots(roots.certs())?;
    let target = Target::server(&item.host, item.validation_time);
    for _ in 0..3 {
        let _ = {
            let mut rec = Recorder::new();
            v.verify(&store, &item.chain, target, &mut rec)
        };
    }
    for _ in 0..iterations {
        if !measured(v.as_ref(), &store, &item.chain, target) {
            return Err(Error::Icount(format!("{key}: {method} rejected its chain")));
        }
    }
    Ok(())
}

fn load(key: &str) -> Result<(crate::corpus::CorpusChain, RootSet), Error> {
    let id = KEY_CHAINS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, id)| *id)
        .ok_or_else(|| Error::Icount(format!("unknown key type {key:?}")))?;
    let corpus = Corpus::bundled()?;
    let mut roots = RootSet::load(&RootsSpec::Mozilla)?;
    roots.extend("corpus", corpus.roots());
    let item = corpus
        .chains
        .into_iter()
        .find(|c| c.id == id)
        .ok_or_else(|| Error::Icount(format!("{id} is not in the corpus")))?;
    Ok((item, roots))
}

/// Runs `exe icount --child METHOD KEY N` under callgrind and returns the instructions per
/// verification. `out_dir` receives the callgrind file.
pub fn measure(
    exe: &Path,
    method: Method,
    key: &str,
    iterations: u32,
    out_dir: &Path,
) -> Result<Count, Error> {
    let out: PathBuf = out_dir.join(format!("callgrind.{method}.{key}.out"));
    let mut cmd = Command::new("valgrind");
    cmd.arg("--tool=callgrind")
        .arg("--collect-atstart=no")
        .arg(format!("--callgrind-out-file={}", out.display()));
    for t in TOGGLES {
        cmd.arg(format!("--toggle-collect={t}"));
    }
    cmd.arg(exe)
        .args(["icount", "--child", method.name(), key])
        .arg(iterations.to_string());
    let output = cmd
        .output()
        .map_err(|e| Error::Icount(format!("running valgrind (is it installed?): {e}")))?;
    if !output.status.success() {
        return Err(Error::Icount(format!(
            "valgrind {method} {key}: {}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .rev()
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        )));
    }
    let text = std::fs::read_to_string(&out)
        .map_err(|e| Error::Icount(format!("{}: {e}", out.display())))?;
    let total = collected(&text)
        .ok_or_else(|| Error::Icount(format!("{}: no totals line", out.display())))?;
    if total == 0 {
        return Err(Error::Icount(format!(
            "{}: nothing collected (did the toggle functions get inlined?)",
            out.display()
        )));
    }
    let chain = KEY_CHAINS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, id)| *id);
    Ok(Count {
        method: method.name().to_owned(),
        key: key.to_owned(),
        chain: chain.to_owned(),
        per_verify: total / u64::from(iterations),
        iterations,
    })
}

/// The collected instruction total of a callgrind output file (its `totals:` or `summary:`
/// line; the first event is Ir).
pub fn collected(callgrind_out: &str) -> Option<u64> {
    callgrind_out
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_totals_line_is_read() {
        let out =
            "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nfn=(1) x\n3 12\ntotals: 123456\n";
        assert_eq!(collected(out), Some(123456));
        assert_eq!(collected("summary: 99 1\n"), Some(99));
        assert_eq!(collected("events: Ir\n"), None);
    }
}
