//! A driver run, settled: what it measures ([`DrivePlan`]), once, before anything is
//! measured; and the measurement of a plan with the mirror served beside it ([`measure`]).

use std::path::PathBuf;

use certbench_schema::Sample;

use super::drive::run_with;
use super::options::{DriverOptions, RunControl};
use crate::link::LinkSpec;
use crate::mirror::MirrorSet;
use crate::mirror::local::{self, LocalError};
use crate::run::spec::{RevocationSpec, RunSpec};
use crate::sites::{Site, SiteError};
use certbench_core::roots::{RootSet, RootsSpec};
use certbench_schema::Transport;

/// Everything a driver run measures and where its samples go. Nothing reads the command
/// line after it is made.
pub struct DrivePlan {
    /// The sites to measure, and the sites file's lines that are not sites (skipped).
    pub sites: Vec<Site>,
    pub bad_lines: Vec<SiteError>,
    /// The roots every method trusts (the mirror's among them when it serves).
    pub roots: RootSet,
    /// The mirror's certificates, when the sites are served from it.
    pub mirror: Option<MirrorSet>,
    /// The post-quantum twins of `--pq`, one set per profile (served over rustls, with
    /// today's chains, each on its own port).
    pub pq: Vec<MirrorSet>,
    /// The emulated link in front of the mirror (`--link`).
    pub link: Option<LinkSpec>,
    /// The methods, runs, transport, hook, timeout, caching, `--resolve`, resumption and
    /// concurrency.
    pub opts: DriverOptions,
    /// The raw samples file (a resumed run's own).
    pub raw_path: PathBuf,
}

impl DrivePlan {
    /// The TLS stack, for titles: ``openssl transport, webpki hook `callback` ``.
    pub fn stack(&self) -> String {
        match self.opts.transport {
            Transport::Openssl => {
                format!("openssl transport, webpki hook `{}`", self.opts.hook.name())
            }
            Transport::Rustls => "rustls transport (TimedVerifier)".to_owned(),
            Transport::Quic => "QUIC transport (quinn, rustls inside, TimedVerifier)".to_owned(),
        }
    }

    /// Where the sites are served from: ` (loopback mirror…)`, or nothing for real sites.
    fn served(&self) -> String {
        let Some(_) = &self.mirror else {
            return String::new();
        };
        let mut what = " (loopback mirror".to_owned();
        if !self.pq.is_empty() {
            let profiles: Vec<String> = self.opts.served.profiles.iter().map(|p| p.key()).collect();
            what.push_str(&format!(" over rustls, chains {}", profiles.join(", ")));
        }
        if let Some(link) = &self.link {
            what.push_str(&format!(", emulated link {link}"));
        }
        what + ")"
    }

    /// What the methods check beyond the path: `, path only (--path-only)`, or e.g.
    /// `, checks as shipped (CT: 28 logs of mirror; revocation: …)`, then what `--ct` and
    /// `--revocation` add to Servo's methods.
    fn ct(&self) -> String {
        let checks = &self.opts.checks;
        if checks.request.path_only {
            return ", path only (--path-only: no CT, no revocation)".to_owned();
        }
        let mut what = Vec::new();
        if let Some(logs) = checks.logs.as_deref() {
            what.push(format!("CT against {}", logs.label()));
        }
        if let Some(d) = checks.data.as_deref() {
            what.push(format!("revocation against {}", d.files().origin));
        }
        let mut added = Vec::new();
        if checks.request.ct {
            added.push("CT".to_owned());
        }
        if let Some(m) = checks.request.revocation {
            added.push(m.to_string());
        }
        let added = match added.is_empty() {
            true => String::new(),
            false => format!("; Servo's methods add {}", added.join(" + ")),
        };
        format!(", checks as shipped ({}{added})", what.join(", "))
    }

    /// The title of the tables.
    pub fn title(&self) -> String {
        format!(
            "certbench — {} sites{}, {} runs (+{} warm-up), {}, roots {}{}",
            self.sites.len(),
            self.served(),
            self.opts.runs,
            self.opts.warmup,
            self.stack(),
            self.roots.describe(),
            self.ct()
        )
    }

    /// The one-line summary of what is about to be measured.
    pub fn summary(&self) -> String {
        format!(
            "certbench: {} sites × {} methods × {} runs (+{} warm-up), {}, roots {}{}, samples → {}",
            self.sites.len(),
            self.opts.methods.len(),
            self.opts.runs,
            self.opts.warmup,
            self.stack(),
            self.roots.describe(),
            self.ct(),
            self.raw_path.display()
        )
    }

    /// How many samples the whole run takes.
    pub fn total(&self) -> u64 {
        let profiles = self.opts.served.profiles.len().max(1);
        (self.sites.len() * self.opts.methods.len() * profiles) as u64
            * u64::from(self.opts.runs + self.opts.warmup)
    }

    /// The plan, if it can be measured as asked: `--pq` needs the rustls transport (the
    /// system's OpenSSL 3.0 cannot check an ML-DSA CertificateVerify).
    pub fn checked(self) -> Result<DrivePlan, DrivePlanError> {
        if !self.pq.is_empty() && self.opts.transport == Transport::Openssl {
            return Err(DrivePlanError::PqNeedsRustls);
        }
        if self.opts.served.compression.is_some() && self.opts.transport != Transport::Rustls {
            return Err(DrivePlanError::CompressionNeedsRustls);
        }
        if self.opts.resumption && self.opts.transport == Transport::Quic {
            return Err(DrivePlanError::NoResumptionOverQuic);
        }
        Ok(self)
    }
}

/// Why a plan cannot be measured as asked (the CLI tells it in the options' words).
#[derive(Debug, thiserror::Error)]
pub enum DrivePlanError {
    /// Post-quantum profiles over OpenSSL: the system's OpenSSL 3.0 cannot check a server's
    /// ML-DSA signature.
    #[error("post-quantum profiles need the rustls or the QUIC transport")]
    PqNeedsRustls,
    /// `--tls-resumption` over QUIC: the QUIC transport resumes no session yet.
    #[error(
        "the QUIC transport resumes no session (--tls-resumption needs --transport rustls or openssl)"
    )]
    NoResumptionOverQuic,
    /// Certificate compression over OpenSSL: the system's OpenSSL 3.0 has none (RFC 8879
    /// came in 3.2), and the client must offer what the mirror compresses with.
    #[error("certificate compression needs the rustls transport")]
    CompressionNeedsRustls,
}

/// Measures `plan` on the current runtime: the mirror served (if any) on a free loopback
/// port with every site resolved to it, then the driver. `false` when `control` stopped it.
pub async fn measure(
    plan: &DrivePlan,
    control: &RunControl,
    sink: impl FnMut(Sample),
) -> Result<bool, LocalError> {
    let mut opts = plan.opts.clone();
    // `--compress-certs`: served over rustls, which compresses (OpenSSL 3.0 cannot).
    let compression = plan.opts.served.compression.as_ref();
    let stack = match (plan.opts.transport, compression) {
        // QUIC: served on UDP by the mirror's QUIC server (its TCP twin over rustls).
        (Transport::Quic, _) => Transport::Quic,
        (_, Some(_)) => Transport::Rustls,
        (_, None) => Transport::Openssl,
    };
    let quic_client = plan.opts.served.quic_client;
    let served = match &plan.mirror {
        // `--pq`: every profile's set over rustls, each on its own port.
        Some(set) if !plan.pq.is_empty() => {
            let sets: Vec<&MirrorSet> = std::iter::once(set).chain(&plan.pq).collect();
            let pq_stack = match stack {
                Transport::Quic => Transport::Quic,
                _ => Transport::Rustls,
            };
            let tls = (pq_stack, compression, quic_client);
            let (served, resolve) =
                local::serve_each_compressing(&sets, tls, plan.link, &plan.sites, &opts.resolve)
                    .await?;
            opts.served.resolve = resolve;
            served
        }
        Some(set) => {
            let (served, mut resolve) = local::serve_each_compressing(
                &[set],
                (stack, compression, quic_client),
                plan.link,
                &plan.sites,
                &opts.resolve,
            )
            .await?;
            opts.resolve = resolve.remove(&set.twin_set()).unwrap_or_default();
            served
        }
        None => Vec::new(),
    };
    let finished = run_with(&plan.sites, &plan.roots, &opts, control, sink).await;
    drop(served);
    Ok(finished)
}

/// What a driver run of `opts` measures, for its run header: a resumed run must measure the
/// same as its first part, or its samples would not be of one experiment. `mirror`, `roots`
/// and `resolve` are as asked for (before the mirror adds its roots and addresses).
pub fn spec(opts: &DriverOptions, mirror: bool, roots: &RootsSpec, resolve: &[String]) -> RunSpec {
    let mut resolve = resolve.to_vec();
    resolve.sort();
    RunSpec {
        stack: opts.transport,
        // The hook is the OpenSSL transport's only.
        hook: (opts.transport == Transport::Openssl).then_some(opts.hook),
        mirror,
        resumption: opts.resumption,
        roots: roots.clone(),
        cache_roots: opts.cache_roots,
        resolve,
        concurrency: opts.concurrency,
        pq: crate::pq::scenario::profiles_of(&opts.served.profiles),
        scenarios: crate::pq::scenario::scenarios_of(&opts.served.profiles),
        link: opts.served.link.clone(),
        // The checks change what a sample measures (its `ct` and `revocation` stages):
        // `--path-only`, what `--ct` adds, and against which logs (the list's label, its size
        // and origin, stands for it).
        path_only: opts.checks.request.path_only,
        ct_added: opts.checks.request.ct,
        ct: opts.checks.logs.as_deref().map(|logs| logs.label()),
        // Likewise the revocation data: `--revocation`'s mechanism for Servo's methods, if
        // any, and the data's origin.
        revocation: opts.checks.data.as_deref().map(|data| RevocationSpec {
            mechanism: opts.checks.request.revocation,
            origin: data.files().origin.clone(),
        }),
        // `--compress-certs` changes the bytes on the wire and adds `cert-decompression`.
        compress_certs: (opts.served.compression.as_ref()).map(|c| c.to_string()),
    }
}
