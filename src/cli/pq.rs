//! The flags of a post-quantum driver run (`--pq`, `--link`), and what they settle into: the
//! twins' certificate sets (made once, their roots trusted) and the emulated link.

use anyhow::Result;
use clap::Args;

use super::net::{Net, NetArgs};
use super::output;
use crate::driver::{DrivePlanError, Served};
use crate::link::LinkSpec;
use crate::mirror::{MirrorSet, local, profile_dir};
use crate::pq::Profile;

#[derive(Args, Debug)]
pub(super) struct PqArgs {
    /// With --mirror: also serve each site's post-quantum twin (its chain re-issued with
    /// ML-DSA keys: mldsa44, mldsa65, mldsa87, or mixed, an ML-DSA-44 leaf under ML-DSA-65
    /// CAs; or mtc, a Merkle Tree Certificate alone; comma-separated) over rustls, and measure
    /// it beside today's chain (docs/pq.md).
    #[arg(
        long,
        value_name = "PROFILE",
        value_delimiter = ',',
        requires = "mirror"
    )]
    pub(super) pq: Vec<Profile>,
    /// With --mirror: reach it over an emulated link, RTT[,BANDWIDTH] (e.g. 40ms or
    /// 40ms,50mbit): RTT/2 each way, TCP's initial window of 10 segments (docs/pq.md).
    #[arg(long, value_name = "RTT[,BANDWIDTH]", requires = "mirror")]
    link: Option<LinkSpec>,
}

/// What the flags settle into.
pub(super) struct Pq {
    /// The twins, one set per profile.
    pub(super) sets: Vec<MirrorSet>,
    pub(super) link: Option<LinkSpec>,
}

impl Pq {
    /// What the driver is told of them (the mirrors' addresses come when they serve).
    pub(super) fn served(&self) -> Served {
        // Today's chains then each profile's twins; nothing without `--pq`.
        let profiles = match self.sets.is_empty() {
            true => Vec::new(),
            false => std::iter::once(Profile::Classical)
                .chain(self.sets.iter().map(|s| s.profile))
                .collect(),
        };
        Served {
            profiles,
            resolve: Default::default(),
            link: self.link.map(|l| l.to_string()),
        }
    }
}

impl PqArgs {
    /// The twins of every profile (made once under the mirror's cache, noted unless
    /// `quiet`), their roots added to `net`'s.
    pub(super) fn settle(&self, net_args: &NetArgs, net: &mut Net, quiet: bool) -> Result<Pq> {
        let mut sets = Vec::new();
        for &profile in crate::pq::with_classical(&self.pq)
            .iter()
            .filter(|p| p.is_pq())
        {
            let dir = profile_dir(&net_args.mirror_cache, profile);
            if !local::is_cached(&dir) {
                output::note(quiet, &local::generating(&dir));
            }
            let set = local::load_profile(&net_args.mirror_cache, profile)?;
            output::note(quiet, &local::loaded(&set, &dir));
            net.roots
                .extend(&format!("pq-{profile}"), set.roots.clone());
            sets.push(set);
        }
        Ok(Pq {
            sets,
            link: self.link,
        })
    }
}

/// A driver plan refused, in the options' words.
pub(super) fn refusal(e: DrivePlanError) -> anyhow::Error {
    match e {
        DrivePlanError::PqNeedsRustls => anyhow::anyhow!(
            "--pq needs --transport rustls: the system's OpenSSL 3.0 cannot check a server's ML-DSA signature"
        ),
    }
}
