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

pub use certbench_schema::records::icount::Count;

pub mod sweep;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::certs::test::ServerCert;
use crate::tls::pair::{self, Ends};
use crate::tls::{Cipher, KeyType, Suite, TlsLibrary, Version};
use certbench_core::chain::Chain;
use certbench_core::corpus::Corpus;
use certbench_core::methods::Method;
use certbench_core::methods::{AnyRoots, DynVerifier};
use certbench_core::roots::{RootSet, RootsSpec};
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;

/// Why an instruction count could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum IcountError {
    /// The corpus, the roots or a store could not be loaded or built.
    #[error(transparent)]
    Core(#[from] certbench_core::Error),
    /// valgrind missing or failing, its output unreadable, a chain rejected or not in the
    /// corpus: what went wrong.
    #[error("instruction count: {0}")]
    Count(String),
}

/// (label, corpus chain) per key type: the chains `cargo bench --bench verify` uses too.
pub const KEY_CHAINS: &[(&str, &str)] = &[
    ("rsa2048", "reddit.com__rustls-bench"),
    ("p256", "cloudflare.com__limbo-online"),
    ("p384", "www.washingtonpost.com__rustls-bench"),
];

/// The callgrind toggle: on in [`measured`].
const TOGGLES: &[&str] = &["*icount*measured*"];

/// The verify calls whose instructions are counted. Not inlined: callgrind toggles on it.
#[inline(never)]
pub fn measured(v: &dyn DynVerifier, roots: &AnyRoots, chain: &Chain, target: Target<'_>) -> bool {
    let mut rec = Recorder::new();
    std::hint::black_box(v.verify(roots, chain, target, &mut rec)).is_ok()
}

/// The child: verify `key`'s chain with `method` `iterations` times (after a warm-up).
pub fn child(method: Method, key: &str, iterations: u32) -> Result<(), IcountError> {
    // A pool without workers: `rustlsparallel` takes the same path (its checks handed to the
    // pool), and the caller runs them all, so the count is the verification's work whatever
    // the scheduler does (under valgrind's serialised threads, a worker took a check in some
    // runs and not in others, and the counts differed by one check).
    certbench_core::pool::SignaturePool::init_global(0);
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
            return Err(IcountError::Count(format!(
                "{key}: {method} rejected its chain"
            )));
        }
    }
    Ok(())
}

fn load(key: &str) -> Result<(certbench_core::corpus::CorpusChain, RootSet), IcountError> {
    let id = KEY_CHAINS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, id)| *id)
        .ok_or_else(|| IcountError::Count(format!("unknown key type {key:?}")))?;
    let corpus = Corpus::bundled()?;
    let mut roots = RootSet::load(&RootsSpec::Mozilla)?;
    roots.extend("corpus", corpus.roots());
    let item = corpus
        .chains
        .into_iter()
        .find(|c| c.id == id)
        .ok_or_else(|| IcountError::Count(format!("{id} is not in the corpus")))?;
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
) -> Result<Count, IcountError> {
    let out: PathBuf = out_dir.join(format!("callgrind.{method}.{key}.out"));
    let child = ["--child", method.name(), key, &iterations.to_string()].map(str::to_owned);
    let total = callgrind(exe, &child, TOGGLES, &out, &format!("{method} {key}"))?;
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

/// A TLS scenario counted per stack, like rustls' own CI benchmarks: in memory (no socket),
/// P-256 server key, TLS 1.3 with AES-128-GCM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scenario {
    /// One full handshake: both sides, the client verifying the chain (new connections of
    /// configurations made once; resumption off on the client).
    Handshake,
    /// One resumed handshake (the session of the previous connection offered).
    Resumed,
    /// 1 MiB of application data from client to server over an established session, in
    /// 16 KiB records, both sides (and the byte-for-byte check of what arrived).
    Bulk,
}

impl Scenario {
    /// The name on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Handshake => "handshake",
            Scenario::Resumed => "resumed",
            Scenario::Bulk => "bulk-1MiB",
        }
    }
}

/// The fixed P-256 leaf ← CA of the scenarios (`icount-cert/`, made by its `make.sh`, valid
/// until 2055): a chain generated per process would give the client's signature checks
/// other inputs in every process, and variable-time verification other counts.
fn scenario_cert() -> ServerCert {
    ServerCert {
        chain: vec![
            rustls_pki_types::CertificateDer::from(&include_bytes!("../icount-cert/leaf.der")[..])
                .into_owned(),
        ],
        key: include_bytes!("../icount-cert/leaf.key.der").to_vec(),
        ca: rustls_pki_types::CertificateDer::from(&include_bytes!("../icount-cert/ca.der")[..])
            .into_owned(),
    }
}

/// A scenario's counted work. Not inlined: callgrind toggles on it.
#[inline(never)]
pub fn measured_scenario(f: &mut dyn FnMut() -> bool) -> bool {
    std::hint::black_box(f())
}

/// The child of a scenario count: `iterations` times `scenario` with `stack`, after two
/// uncounted rounds (which also give the resumed scenario its first session).
pub fn scenario_child(
    scenario: Scenario,
    stack: TlsLibrary,
    iterations: u32,
) -> Result<(), IcountError> {
    let fail = |m: String| IcountError::Count(format!("{} {}: {m}", scenario.name(), stack.name()));
    let cert = scenario_cert();
    let suite = Suite {
        tls: Version::V13,
        cipher: Cipher::Aes128gcm,
        key: KeyType::P256,
    };
    let ends = Ends::new(stack, suite, &cert, scenario == Scenario::Resumed)
        .map_err(|e| fail(e.to_string()))?;
    let plain = pair::pattern();
    let mut pair = ends.connect().map_err(|e| fail(e.to_string()))?;
    for _ in 0..2 {
        pair = ends.connect().map_err(|e| fail(e.to_string()))?;
        if scenario == Scenario::Bulk {
            // Named `pair`, as the message always said.
            pair.transfer(1 << 20, 16384, &plain)
                .map_err(|e| fail(format!("pair: {e}")))?;
        }
    }
    for _ in 0..iterations {
        let ok = match scenario {
            Scenario::Handshake => {
                measured_scenario(&mut || ends.connect().is_ok_and(|c| !c.resumed()))
            }
            Scenario::Resumed => {
                measured_scenario(&mut || ends.connect().is_ok_and(|c| c.resumed()))
            }
            Scenario::Bulk => {
                measured_scenario(&mut || pair.transfer(1 << 20, 16384, &plain).is_ok())
            }
        };
        if !ok {
            return Err(fail(match scenario {
                Scenario::Handshake => "a handshake failed or resumed".into(),
                Scenario::Resumed => "a handshake failed or did not resume".into(),
                Scenario::Bulk => "the transfer failed".into(),
            }));
        }
    }
    Ok(())
}

/// Runs `exe icount --child-scenario SCENARIO STACK N` under callgrind: instructions per
/// scenario (`Count::method` is the stack, `Count::key` the scenario).
pub fn measure_scenario(
    exe: &Path,
    scenario: Scenario,
    stack: TlsLibrary,
    iterations: u32,
    out_dir: &Path,
) -> Result<Count, IcountError> {
    let out: PathBuf = out_dir.join(format!(
        "callgrind.{}.{}.out",
        stack.name(),
        scenario.name()
    ));
    let child = [
        "--child-scenario",
        scenario.name(),
        stack.name(),
        &iterations.to_string(),
    ]
    .map(str::to_owned);
    let what = format!("{} {}", stack.name(), scenario.name());
    let total = callgrind(exe, &child, &["*icount*measured_scenario*"], &out, &what)?;
    Ok(Count {
        method: stack.name().to_owned(),
        key: scenario.name().to_owned(),
        chain: "P-256, TLS 1.3, AES-128-GCM, in memory".to_owned(),
        per_verify: total / u64::from(iterations),
        iterations,
    })
}

/// Runs `exe icount CHILD…` under callgrind, collecting only inside the functions `toggles`
/// name, and returns the collected instruction total (never 0: nothing collected is an
/// error). `what` names the measurement in errors.
fn callgrind(
    exe: &Path,
    child: &[String],
    toggles: &[&str],
    out: &Path,
    what: &str,
) -> Result<u64, IcountError> {
    let mut cmd = Command::new("valgrind");
    cmd.arg("--tool=callgrind")
        .arg("--collect-atstart=no")
        .arg(format!("--callgrind-out-file={}", out.display()));
    for t in toggles {
        cmd.arg(format!("--toggle-collect={t}"));
    }
    cmd.arg(exe).arg("icount").args(child);
    let output = cmd
        .output()
        .map_err(|e| IcountError::Count(format!("running valgrind (is it installed?): {e}")))?;
    if !output.status.success() {
        return Err(IcountError::Count(format!(
            "valgrind {what}: {}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .rev()
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        )));
    }
    let text = std::fs::read_to_string(out)
        .map_err(|e| IcountError::Count(format!("{}: {e}", out.display())))?;
    match collected(&text) {
        None => Err(IcountError::Count(format!(
            "{}: no totals line",
            out.display()
        ))),
        Some(0) => Err(IcountError::Count(format!(
            "{}: nothing collected (did the toggle functions get inlined?)",
            out.display()
        ))),
        Some(total) => Ok(total),
    }
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
