//! What the methods check beyond the path, shared by the commands that verify (`--path-only`,
//! `--ct`, `--ct-logs`, `--revocation`, `--revocation-data`, `--revocation-scale`): args →
//! the run's [`RunChecks`], resolved per method by `certbench-core` ([`RunChecks::for_method`]).
//!
//! Each browser's method checks what the browser checks, as shipped; Servo's methods what
//! Servo checks (nothing) plus what `--ct` and `--revocation` add; `--path-only` turns every
//! check off. The CT logs are loaded only when some method of the run checks CT, the
//! revocation data made or read only when some method checks revocation. A flag that adds a
//! check no method of the run can make is a usage error (exit 2) naming the methods that can;
//! one that some of the run's methods cannot make is said once, and the run goes on.

use anyhow::Result;
use certbench_core::checks::Added;
use certbench_core::methods::Method;
use certbench_core::verifier::Capabilities;
use certbench_core::{Request, RunChecks};
use clap::Args;

use super::ct::CtArgs;
use super::output::OutputArgs;
use super::revocation::RevocationArgs;
use super::usage::Usage;
use crate::mirror::MirrorSet;

#[derive(Args, Debug, Clone, Default)]
pub(super) struct ChecksArgs {
    /// Verify the path only: no method checks Certificate Transparency or revocation (the
    /// path-only comparison). By default chrome checks CT with Chrome's policy and its CRLSet,
    /// firefox CT with Gecko's policy and CRLite, gnutls the stapled OCSP response, as each
    /// browser ships; Servo's methods check nothing unless --ct or --revocation add it.
    #[arg(long, conflicts_with_all = ["ct", "revocation"])]
    pub path_only: bool,
    #[command(flatten)]
    pub ct: CtArgs,
    #[command(flatten)]
    pub revocation: RevocationArgs,
}

impl ChecksArgs {
    /// What the flags ask.
    pub fn request(&self) -> Request {
        Request {
            path_only: self.path_only,
            ct: self.ct.ct,
            revocation: self.revocation.revocation,
        }
    }

    /// The run's checks for `methods`: the logs when one of them checks CT, the data when
    /// one checks revocation (module docs), from the mirror's (and its `--pq` sets') with
    /// `--mirror`, else the corpus'; a flag no method can honour is a [`Usage`] error, one
    /// some cannot honour a warning.
    pub fn resolve(
        &self,
        methods: &[Method],
        (mirror, pq): (Option<&MirrorSet>, &[MirrorSet]),
        out: &OutputArgs,
    ) -> Result<RunChecks> {
        let request = self.request();
        self.refuse_or_warn(methods, &|s| out.error(s))?;
        let caps: Vec<_> = methods
            .iter()
            .map(|m| m.verifier().capabilities())
            .collect();
        let logs = match caps.iter().any(|c| request.checks_ct(c)) {
            true => Some(match mirror {
                Some(_) => self.ct.mirror_logs(mirror, pq)?,
                None => self.ct.logs(None)?,
            }),
            false => None,
        };
        let data = match caps.iter().any(|c| request.revocation(c).is_some()) {
            true => Some(self.revocation.data(mirror, &|s| out.note(s))?),
            false => None,
        };
        Ok(RunChecks {
            request,
            logs,
            data,
        })
    }

    /// `--ct` or `--revocation` with methods that cannot add it: a usage error when none of
    /// them can, a warning naming those that cannot otherwise.
    fn refuse_or_warn(&self, methods: &[Method], warn: &dyn Fn(&str)) -> Result<()> {
        let named = |ms: &[Method]| -> Vec<(&'static str, Capabilities)> {
            ms.iter()
                .map(|m| (m.name(), m.verifier().capabilities()))
                .collect()
        };
        let (run, all) = (named(methods), named(Method::ALL));
        let mut flags = Vec::new();
        if self.ct.ct {
            flags.push((Added::Ct, "--ct".to_owned(), "Certificate Transparency"));
        }
        if let Some(m) = self.revocation.revocation {
            let flag = format!("--revocation {}", m);
            flags.push((Added::Revocation, flag, "revocation"));
        }
        for (added, flag, what) in flags {
            let reach = added.reach(&run);
            let cannot = reach.cannot.join(", ");
            if reach.adds.is_empty() {
                let mut why = format!("{flag}: no method of this run adds {what} on request");
                if !cannot.is_empty() {
                    why += &format!(" ({cannot}: no {what} check)");
                }
                if !reach.shipped.is_empty() {
                    let shipped = reach.shipped.join(", ");
                    why += &format!("; {shipped} check it as shipped, without {flag}");
                }
                let adders = added.reach(&all).adds.join(", ");
                return Err(Usage(format!("{why}; the methods that add it: {adders}")).into());
            }
            if !cannot.is_empty() {
                warn(&format!(
                    "certbench: warning: {flag}: {cannot}: no {what} check, verified without it"
                ));
            }
        }
        Ok(())
    }
}
