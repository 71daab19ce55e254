//! `--ct` and `--ct-logs`, shared by the subcommands that verify: args → the CT logs a run
//! checks SCTs against.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use certbench_core::ct::CtLogs;
use clap::Args;

use crate::mirror::MirrorSet;

/// The corpus's log list: the logs of the SCTs its leaves embed (corpus/ct-logs/).
pub fn corpus_log_list() -> PathBuf {
    certbench_core::corpus::bundled_dir().join("../ct-logs/log_list.json")
}

#[derive(Args, Debug, Clone, Default)]
pub(super) struct CtArgs {
    /// Servo's rustls methods (rustlsserial, rustlsparallel, webpki, platform) check
    /// Certificate Transparency too (the `ct` stage), as a rustls user would add it (Chrome's
    /// policy); chrome and firefox check it as shipped without it (their own code and policy);
    /// other methods have no CT check.
    #[arg(long)]
    pub ct: bool,
    /// The CT log list, in Chrome's v3 JSON format [default: the corpus's
    /// (corpus/ct-logs/log_list.json); with --mirror, the mirror's own logs].
    #[arg(long, value_name = "FILE")]
    pub ct_logs: Option<PathBuf>,
}

impl CtArgs {
    /// The logs: `--ct-logs`, else `default` (the mirror's list), else the corpus's.
    pub fn logs(&self, default: Option<(&str, &str)>) -> Result<Arc<CtLogs>> {
        let logs = match (&self.ct_logs, default) {
            (Some(path), _) => load(path)?,
            (None, Some((json, origin))) => CtLogs::from_v3_json(json, origin)
                .with_context(|| format!("reading the CT log list of {origin}"))?,
            (None, None) => {
                let mut logs = load(&corpus_log_list())?;
                logs.origin = "corpus/ct-logs".to_owned();
                logs
            }
        };
        Ok(Arc::new(logs))
    }
}

impl CtArgs {
    /// The logs of a run that may be on the mirror: `--ct-logs`; else, with `--mirror`, the
    /// mirror's own logs (its clones embed SCTs from them, which a mirror run trusts as it
    /// trusts the mirror's roots), those of every set served with `--pq` too (each profile's
    /// set has logs of its own); else the corpus's.
    pub fn mirror_logs(&self, mirror: Option<&MirrorSet>, pq: &[MirrorSet]) -> Result<Arc<CtLogs>> {
        let Some(set) = mirror.filter(|_| self.ct_logs.is_none() && !pq.is_empty()) else {
            return self.logs(mirror.map(|m| (m.ct_log_list.as_str(), "mirror")));
        };
        let mut logs = Vec::new();
        for s in std::iter::once(set).chain(pq) {
            let list = CtLogs::from_v3_json(&s.ct_log_list, "mirror").with_context(|| {
                format!("reading the CT log list of the {} mirror", s.twin_set())
            })?;
            logs.extend(list.logs().iter().cloned());
        }
        Ok(Arc::new(CtLogs::new(logs, "mirror")))
    }

    /// Whether `handshake` checks CT (`--ct`): its certificate is made for the run, with SCTs
    /// from logs made with it, so `--ct-logs` does not apply, and only a certbench method
    /// (`--method`) has a CT check.
    pub fn for_handshake(&self, has_methods: bool) -> Result<bool> {
        if self.ct_logs.is_some() {
            anyhow::bail!(
                "--ct-logs does not apply to `certbench handshake`: its certificate is made for the run, with SCTs from logs made with it, which no other list knows"
            );
        }
        if self.ct && !has_methods {
            anyhow::bail!(
                "--ct needs --method: rustls' own verifier and the OpenSSL client check no Certificate Transparency"
            );
        }
        Ok(self.ct)
    }
}

fn load(path: &Path) -> Result<CtLogs> {
    CtLogs::load(path).with_context(|| format!("reading CT logs from {}", path.display()))
}
