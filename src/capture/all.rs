//! `certbench capture` over a sites file: every site's chain taken in turn (the mirror served
//! beside them if asked for), and the table of what was taken.

use std::net::SocketAddr;
use std::time::Duration;

use super::site::{CaptureError, Captured, capture, folder};
use crate::mirror::MirrorSet;
use crate::mirror::local::{self, LocalError, ResolveMap};
use crate::roots::RootSet;
use crate::sites::Site;

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

/// The header of [`rows`].
pub const COLUMNS: [&str; 5] = ["site", "folder", "certificates sent", "keys", "result"];

/// One table row per attempt: the site, its folder, how many certificates it sent, their
/// keys, and `captured` or the error.
pub fn rows(attempts: &[Attempt]) -> Vec<Vec<String>> {
    attempts
        .iter()
        .map(|a| match &a.result {
            Ok(c) => vec![
                a.site.authority(),
                folder(&a.site),
                (1 + c.intermediates.len()).to_string(),
                std::iter::once(&c.leaf)
                    .chain(&c.intermediates)
                    .map(|d| crate::der::key_type(d))
                    .collect::<Vec<_>>()
                    .join(", "),
                "captured".to_owned(),
            ],
            Err(e) => vec![
                a.site.authority(),
                "—".to_owned(),
                "—".to_owned(),
                "—".to_owned(),
                format!("error: {e}"),
            ],
        })
        .collect()
}
