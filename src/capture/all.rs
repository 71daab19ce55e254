//! `certbench capture` over a sites file: every site's chain taken in turn (the mirror served
//! beside them if asked for), and the table of what was taken.

use std::net::SocketAddr;
use std::time::Duration;

use certbench_schema::records::capture::{CaptureRow, Taken};

use super::site::{CaptureError, Captured, capture, folder};
use crate::mirror::MirrorSet;
use crate::mirror::local::{self, LocalError, ResolveMap};
use crate::sites::Site;
use certbench_core::roots::RootSet;

/// One site's capture: where it was reached (the mirror, `--resolve`) and what came of it.
pub struct Attempt {
    pub site: Site,
    pub addr: Option<SocketAddr>,
    pub result: Result<Captured, CaptureError>,
}

/// Captures every site of `sites` in turn on the current runtime, the mirror served (if
/// any) with every site resolved to it.
pub async fn capture_all(
    sites: &[Site],
    mirror: Option<&MirrorSet>,
    resolve: &ResolveMap,
    roots: &RootSet,
    timeout: Duration,
) -> Result<Vec<Attempt>, LocalError> {
    let (_server, resolve) = local::serve(mirror, sites, resolve).await?;
    let mut attempts = Vec::new();
    for site in sites {
        let addr = resolve.get(&(site.host.clone(), site.port)).copied();
        let result = capture(site, addr, roots, timeout).await;
        attempts.push(Attempt {
            site: site.clone(),
            addr,
            result,
        });
    }
    Ok(attempts)
}

/// One row per attempt: the site, its folder, how many certificates it sent, their keys; or
/// the error.
pub fn rows(attempts: &[Attempt]) -> Vec<CaptureRow> {
    attempts
        .iter()
        .map(|a| CaptureRow {
            site: a.site.authority(),
            outcome: match &a.result {
                Ok(c) => Ok(Taken {
                    folder: folder(&a.site),
                    certificates: 1 + c.intermediates.len(),
                    keys: std::iter::once(&c.leaf)
                        .chain(&c.intermediates)
                        .map(|d| certbench_core::der::key_type(d))
                        .collect(),
                }),
                Err(e) => Err(e.to_string()),
            },
        })
        .collect()
}
