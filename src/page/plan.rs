//! A page run, settled before anything is loaded ([`PagePlan`]), and its measurement with
//! the mirror served beside it ([`measure`]).

use certbench_schema::records::page::PageLoad;

use super::load::{PageOptions, StoreFailure, run};
use super::pages::Page;
use crate::mirror::MirrorSet;
use crate::mirror::local::{self, LocalError};
use certbench_core::roots::RootSet;

/// Everything a page run loads, with what, and how.
pub struct PagePlan {
    /// The pages, in the file's order.
    pub pages: Vec<Page>,
    /// The roots every method trusts (the mirror's among them when it serves).
    pub roots: RootSet,
    /// The mirror's certificates, when the hosts are served from it.
    pub mirror: Option<MirrorSet>,
    pub opts: PageOptions,
}

impl PagePlan {
    /// `TLS resumption` or `full handshakes`.
    fn handshakes(&self) -> &'static str {
        if self.opts.resumption {
            "TLS resumption"
        } else {
            "full handshakes"
        }
    }

    /// The caches, comma-separated: `chrome`, `chrome, firefox`.
    fn caches(&self) -> String {
        let names: Vec<&str> = self.opts.caches.iter().map(|c| c.name()).collect();
        names.join(", ")
    }

    /// What the methods check beyond the path: `, path only`, or the CT logs and revocation
    /// data the methods that check them check against (`, CT against 28 logs of mirror,
    /// revocation data of …`), and what `--ct`/`--revocation` add to Servo's methods.
    fn ct(&self) -> String {
        let checks = &self.opts.checks;
        if checks.request.path_only {
            return ", path only".to_owned();
        }
        let ct = (checks.logs.as_deref()).map_or(String::new(), |logs| {
            format!(", CT against {}", logs.label())
        });
        let revocation = (checks.data.as_deref()).map_or(String::new(), |d| {
            let added = (checks.request.revocation).map_or(String::new(), |m| format!("{m}, "));
            format!(", revocation ({added}data of {})", d.files().origin)
        });
        ct + &revocation
    }

    /// The one-line summary of what is about to be loaded.
    pub fn summary(&self) -> String {
        let connections: usize = self.pages.iter().map(|p| p.connections()).sum();
        let o = &self.opts;
        format!(
            "certbench page: {} pages ({connections} connections per round) × {} methods × {} caches × {} loads (+{} warm-up), {} transport, verify cache {}, {}, roots {}{}",
            self.pages.len(),
            o.methods.len(),
            o.caches.len(),
            o.loads,
            o.warmup,
            o.transport.name(),
            self.caches(),
            self.handshakes(),
            self.roots.describe(),
            self.ct()
        )
    }

    /// The title of the table.
    pub fn title(&self) -> String {
        let o = &self.opts;
        format!(
            "certbench page — {} pages, {} loads (+{} warm-up), {} transport, verify cache {}, {}, {} connections per host at once, roots {}{}",
            self.pages.len(),
            o.loads,
            o.warmup,
            o.transport.name(),
            self.caches(),
            self.handshakes(),
            o.concurrency,
            self.roots.describe(),
            self.ct()
        )
    }

    /// How many measured loads the run takes.
    pub fn total(&self) -> u64 {
        let browsers = self.opts.methods.len() * self.opts.caches.len();
        u64::from(self.opts.loads) * (self.pages.len() * browsers) as u64
    }
}

/// Loads every page of `plan` on the current runtime, the mirror served (if any) with every
/// host resolved to it; each load to `sink`. The methods whose store could not be built.
pub async fn measure(
    plan: &PagePlan,
    sink: impl FnMut(PageLoad),
) -> Result<Vec<StoreFailure>, LocalError> {
    let hosts = plan
        .pages
        .iter()
        .flat_map(|p| std::iter::once(&p.document).chain(p.subresources.iter().map(|(s, _)| s)));
    let (server, resolve) = local::serve(plan.mirror.as_ref(), hosts, &plan.opts.resolve).await?;
    let opts = PageOptions {
        resolve,
        ..plan.opts.clone()
    };
    let failures = run(&plan.pages, &plan.roots, &opts, sink).await;
    drop(server);
    Ok(failures)
}
