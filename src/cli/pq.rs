//! The flags of a post-quantum driver run (`--pq`, `--link`), and what they settle into: the
//! twins' certificate sets (made once, their roots trusted) and the emulated link.

use anyhow::Result;
use clap::Args;

use super::net::{Net, NetArgs};
use super::output;
use crate::driver::{DrivePlanError, Served};
use crate::link::{LinkSpec, kernel_window};
use crate::mirror::{MirrorSet, local, set_dir};
use crate::pq::Profile;
use crate::pq::scenario::{self, Axis, TwinSet};
use crate::tls::compression::CertCompression;

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
    /// With --pq: narrow the scenarios each profile's twins are made under (default: all
    /// four): `served` or `trimmed` (the chain as the site sends it, or leaf + issuer under a
    /// PQ root), `classical-scts` or `pq-scts` (SCTs from ECDSA or ML-DSA-44 logs);
    /// comma-separated, an axis not named stays whole (docs/pq.md).
    #[arg(long, value_name = "AXIS", value_delimiter = ',', requires = "pq")]
    scenarios: Vec<Axis>,
    /// With --mirror: reach it over an emulated link, e.g. 40ms, 40ms,50mbit or 40ms,10mbit,loss=1%
    /// (h3: HTTP/3 modelled over TCP; loss, seed, mtu: QUIC's datagrams; docs/pq.md).
    #[arg(
        long,
        value_name = "RTT[,BANDWIDTH][,iw=N][,mss=N][,h3][,loss=P%][,seed=N][,mtu=N]",
        requires = "mirror"
    )]
    link: Option<LinkSpec>,
    #[command(flatten)]
    compress: CompressArg,
}

/// `--compress-certs[=ALG]`, the driver's and `certbench mirror`'s.
#[derive(Args, Debug, Clone)]
pub(super) struct CompressArg {
    /// Certificate compression (RFC 8879) with ALG, brotli (the default, Chrome's) or zlib:
    /// the client offers it (--transport rustls; the cert-decompression stage) and the mirror
    /// compresses with it, over rustls (docs/pq.md).
    #[arg(
        long = "compress-certs",
        value_name = "ALG",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "brotli"
    )]
    pub(super) compress_certs: Option<CertCompression>,
}

/// `verify`'s `--pq` and `--scenarios`.
#[derive(Args, Debug)]
pub(super) struct VerifyPqArgs {
    /// Measure every chain beside its post-quantum twins (re-issued with ML-DSA keys:
    /// mldsa44, mldsa65, mldsa87 or mixed; or mtc, Merkle Tree Certificates; comma-separated).
    #[arg(long, value_name = "PROFILE", value_delimiter = ',')]
    pub(super) pq: Vec<Profile>,
    /// With --pq: narrow the scenarios (default: all four; see the driver's --scenarios).
    #[arg(long, value_name = "AXIS", value_delimiter = ',', requires = "pq")]
    scenarios: Vec<Axis>,
}

impl VerifyPqArgs {
    /// The scenarios asked for.
    pub(super) fn scenarios(&self) -> Vec<crate::pq::scenario::Scenario> {
        scenario::scenarios(&self.scenarios)
    }
}

/// What the flags settle into.
pub(super) struct Pq {
    /// The twins, one set per profile and scenario.
    pub(super) sets: Vec<MirrorSet>,
    pub(super) link: Option<LinkSpec>,
    /// `--compress-certs`.
    pub(super) compression: Option<CertCompression>,
}

impl Pq {
    /// What the driver is told of them (the mirrors' addresses come when they serve).
    pub(super) fn served(&self) -> Served {
        // Today's chains then each profile's twins in each scenario; nothing without `--pq`.
        let profiles = match self.sets.is_empty() {
            true => Vec::new(),
            false => std::iter::once(TwinSet::TODAY)
                .chain(self.sets.iter().map(|s| s.twin_set()))
                .collect(),
        };
        Served {
            profiles,
            resolve: Default::default(),
            link: self.link.map(|l| l.to_string()),
            window: Some(self.link.map_or_else(kernel_window, |l| l.window)),
            compression: self.compression,
            quic_client: self.link.and_then(|l| l.h3),
        }
    }
}

impl PqArgs {
    /// The twins of every profile in every scenario asked for (made once under the mirror's
    /// cache, noted unless `quiet`), their roots added to `net`'s.
    pub(super) fn settle(&self, net_args: &NetArgs, net: &mut Net, quiet: bool) -> Result<Pq> {
        let mut sets = Vec::new();
        let scenarios = scenario::scenarios(&self.scenarios);
        for twin_set in scenario::sets(&self.pq, &scenarios).into_iter().skip(1) {
            let dir = set_dir(&net_args.mirror_cache, twin_set);
            if !local::is_cached(&dir) {
                output::note(quiet, &local::generating(&dir));
            }
            let set = local::load_set(&net_args.mirror_cache, twin_set)?;
            output::note(quiet, &local::loaded(&set, &dir));
            net.roots
                .extend(&format!("pq-{}", twin_set.dir_name()), set.roots.clone());
            sets.push(set);
        }
        Ok(Pq {
            sets,
            link: self.link,
            compression: self.compress.compress_certs,
        })
    }
}

/// A driver plan refused, in the options' words.
pub(super) fn refusal(e: DrivePlanError) -> anyhow::Error {
    match e {
        DrivePlanError::PqNeedsRustls => anyhow::anyhow!(
            "--pq needs --transport rustls or quic: the system's OpenSSL 3.0 cannot check a server's ML-DSA signature"
        ),
        DrivePlanError::CompressionNeedsRustls => anyhow::anyhow!(
            "--compress-certs needs --transport rustls: the system's OpenSSL 3.0 has no certificate compression, and the QUIC client offers none"
        ),
        DrivePlanError::NoResumptionOverQuic => anyhow::anyhow!(
            "--tls-resumption needs --transport rustls or openssl: the QUIC transport resumes no session"
        ),
    }
}
