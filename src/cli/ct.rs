//! `--ct` and `--ct-logs`, shared by the subcommands that verify: args → the CT logs a run
//! checks SCTs against.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use certbench_core::ct::CtLogs;
use clap::Args;

/// The corpus's log list: the logs of the SCTs its leaves embed (corpus/ct-logs/).
pub fn corpus_log_list() -> PathBuf {
    crate::corpus::bundled_dir().join("../ct-logs/log_list.json")
}

#[derive(Args, Debug, Clone, Default)]
pub(super) struct CtArgs {
    /// Check Certificate Transparency (the `ct` stage): chrome and firefox as each browser
    /// checks it (their own code, their own policy), the rustls methods (rustlsserial,
    /// rustlsparallel, webpki, platform) as a rustls user would add it (Chrome's policy);
    /// other methods have no CT check.
    #[arg(long)]
    pub ct: bool,
    /// The CT log list, in Chrome's v3 JSON format [default: the corpus's
    /// (corpus/ct-logs/log_list.json); with --mirror, the mirror's own logs].
    #[arg(long, value_name = "FILE", requires = "ct")]
    pub ct_logs: Option<PathBuf>,
}

impl CtArgs {
    /// The logs, if `--ct`: `--ct-logs`, else `default` (the mirror's list), else the corpus's.
    pub fn logs(&self, default: Option<(&str, &str)>) -> Result<Option<Arc<CtLogs>>> {
        if !self.ct {
            return Ok(None);
        }
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
        Ok(Some(Arc::new(logs)))
    }
}

fn load(path: &Path) -> Result<CtLogs> {
    CtLogs::load(path).with_context(|| format!("reading CT logs from {}", path.display()))
}
