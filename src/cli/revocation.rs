//! `--revocation` and `--revocation-data`, shared by the subcommands that verify: args → the
//! revocation data a run checks against.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use certbench_core::revocation::{DataFiles, Mechanism, RevocationData};
use clap::{Args, ValueEnum};

use crate::mirror::MirrorSet;

#[derive(Args, Debug, Clone, Default)]
pub(super) struct RevocationArgs {
    /// Servo's rustls methods (rustlsserial, rustlsparallel, webpki, platform) check
    /// revocation too (the `revocation` stage) with MECHANISM; chrome (Chrome's CRLSet),
    /// firefox (CRLite as Gecko queries it) and gnutls (the stapled OCSP response as GnuTLS
    /// checks it) check their own as shipped without it; other methods check none.
    #[arg(long, value_enum, value_name = "MECHANISM")]
    pub revocation: Option<Mechanism>,
    /// The revocation data's folder (`crlset`, `crlite.filter`, `upki/`, `crls/*.crl`); a
    /// file missing there is missing data, which each browser soft-fails [default: the data
    /// certbench makes for the corpus and the mirror, cached].
    #[arg(long, value_name = "DIR")]
    pub revocation_data: Option<PathBuf>,
    /// The scale of the data certbench makes: medium (Chrome's CRLSet size, a CRLite filter of
    /// 100 M certificates at the published revocation rate: seconds to make once), full (the
    /// published population, 900 M certificates: minutes to make once, what the docs and
    /// benchmarks measure) or test (the corpus' and mirror's issuers alone, a tiny filter).
    /// The run names the scale it used. `handshake` makes its data for the run's fresh CA each
    /// run: a CRLite filter of 10 M certificates at medium and full.
    #[arg(
        long,
        value_enum,
        default_value = "medium",
        env = "CERTBENCH_REVOCATION_SCALE"
    )]
    pub revocation_scale: ScaleArg,
}

/// `--revocation-scale`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(super) enum ScaleArg {
    /// The published filter's population (900 M certificates).
    Full,
    /// A ninth of it (100 M certificates), made in seconds: the default.
    #[default]
    Medium,
    /// Small, for tests.
    Test,
}

impl RevocationArgs {
    /// What `handshake` checks (`--revocation`): its certificate is made for the run, and its
    /// data with it, so `--revocation-data` does not apply; only a certbench method
    /// (`--method`) checks revocation.
    pub fn for_handshake(
        &self,
        has_methods: bool,
    ) -> Result<Option<(Mechanism, crate::revocation::bundle::Scale)>> {
        let Some(mechanism) = self.revocation else {
            return Ok(None);
        };
        anyhow::ensure!(
            self.revocation_data.is_none(),
            "--revocation-data does not apply to `certbench handshake`: its certificate is made for the run, with revocation data made with it"
        );
        anyhow::ensure!(
            has_methods,
            "--revocation needs --method: rustls' own verifier and the OpenSSL client check no revocation"
        );
        let scale = match self.revocation_scale {
            ScaleArg::Full => crate::revocation::bundle::Scale::Full,
            ScaleArg::Medium => crate::revocation::bundle::Scale::Medium,
            ScaleArg::Test => crate::revocation::bundle::Scale::Test,
        };
        Ok(Some((mechanism, scale)))
    }

    /// The data: `--revocation-data`, else certbench's own for the corpus (and `mirror`'s
    /// issuers), made once and cached.
    pub fn data(
        &self,
        mirror: Option<&MirrorSet>,
        note: &dyn Fn(&str),
    ) -> Result<Arc<RevocationData>> {
        let files = match &self.revocation_data {
            Some(dir) => {
                anyhow::ensure!(
                    dir.is_dir(),
                    "--revocation-data {}: not a folder",
                    dir.display()
                );
                DataFiles::in_dir(dir, dir.display().to_string())
            }
            None => {
                let scale = match self.revocation_scale {
                    ScaleArg::Full => crate::revocation::bundle::Scale::Full,
                    ScaleArg::Medium => crate::revocation::bundle::Scale::Medium,
                    ScaleArg::Test => crate::revocation::bundle::Scale::Test,
                };
                let made = crate::revocation::bundle::ensure(
                    &crate::revocation::bundle::cache_dir(),
                    mirror,
                    scale,
                    note,
                )?;
                note(&made.describe());
                made.files
            }
        };
        Ok(Arc::new(RevocationData::new(files)))
    }
}
