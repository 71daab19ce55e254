//! Which page load a fetch belongs to, and how long the page load has taken: the patch names
//! each fetch's page load with [`page_of_fetch`] and polls the fetch [`within_page`] of it,
//! so that a connection or verification made meanwhile names the page (see
//! [`super::scope`]); when the fetch has its response headers a `fetch` sample records
//! `page-load`, the time since the page's document fetch began.
//!
//! Invariants: page loads are numbered per process from 1 in the order they begin; a page's
//! `page-load` samples grow with its fetches, and the largest is the page's network time
//! (document fetch to the last response headers; not rendering, not bodies); with nothing
//! measured no state is kept and nothing is written.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use certbench_schema::servo::ServoEvent;
use certbench_schema::{Stage, Verdict};

use super::record::{active, sample};
use super::scope::{Page, Scoped};
use crate::stages::Recorder;

/// Per webview: the document request that began its current page load, and that load.
type Pages = HashMap<String, (String, Arc<Page>)>;

static PAGES: Mutex<Option<Pages>> = Mutex::new(None);
static PAGE_IDS: AtomicU64 = AtomicU64::new(0);

/// The page load a fetch belongs to: with `document_request` (the fetch is the webview's
/// document, and this is its request id, the same across redirects) a new page load of
/// `webview` begins unless that request already began one; otherwise the webview's current
/// page load. `None` when nothing is measured or the webview has loaded no document yet.
pub fn page_of_fetch(
    webview: Option<String>,
    document_request: Option<&str>,
    url: &str,
) -> Option<Arc<Page>> {
    active()?;
    let webview = webview.unwrap_or_default();
    let mut pages = PAGES.lock().unwrap_or_else(|e| e.into_inner());
    let pages = pages.get_or_insert_with(HashMap::new);
    match document_request {
        Some(request) => {
            if let Some((r, page)) = pages.get(&webview)
                && r == request
            {
                return Some(page.clone());
            }
            let page = Arc::new(Page {
                id: PAGE_IDS.fetch_add(1, Ordering::Relaxed) + 1,
                url: url.to_owned(),
                started: Recorder::new().start(),
            });
            pages.insert(webview, (request.to_owned(), page.clone()));
            Some(page)
        }
        None => pages.get(&webview).map(|(_, page)| page.clone()),
    }
}

/// `fetch` polled with `page` as the current page load; when it is ready, a `fetch` sample
/// records the page load so far (`page-load`).
pub fn within_page<F: Future>(page: Option<Arc<Page>>, fetch: F) -> Fetch<F> {
    Fetch {
        page: page.clone(),
        inner: Scoped::new(fetch, None, page),
    }
}

/// A fetch of a page load (see [`within_page`]).
pub struct Fetch<F> {
    page: Option<Arc<Page>>,
    inner: Scoped<F>,
}

impl<F: Future> Future for Fetch<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // `Scoped` is `Unpin` (it boxes its future), and so is `Fetch`.
        let ready = Pin::new(&mut self.inner).poll(cx);
        if ready.is_ready()
            && let Some(page) = self.page.take()
        {
            record_fetch(&page);
        }
        ready
    }
}

/// The page's document host and port, from its URL (`https://host:port/…`).
fn host_port(url: &str) -> (String, Option<u16>) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']').unwrap_or((v6, "")),
        None => authority.rsplit_once(':').unwrap_or((authority, "")),
    };
    let port = port.trim_start_matches(':').parse().ok();
    (host.to_owned(), port)
}

fn record_fetch(page: &Page) {
    let Some(active) = active() else { return };
    let mut rec = Recorder::new();
    rec.add(Stage::PageLoad, page.started.elapsed_ns());
    let (host, port) = host_port(&page.url);
    // Under the verifier built last, as a connection without a verification is.
    let (config, choice) = active
        .last
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let mut s = sample(
        active,
        config,
        host,
        &rec,
        Verdict::Ok,
        ServoEvent::Fetch,
        choice,
    );
    s.port = port;
    if let Some(meta) = s.meta.servo.as_mut() {
        meta.page = Some(page.id);
        meta.page_url = Some(page.url.clone());
    }
    active.writer.send(s);
}

#[cfg(test)]
mod tests {
    use super::host_port;

    #[test]
    fn a_pages_site_is_its_documents_host_and_port() {
        assert_eq!(
            host_port("https://a.test:8443/x"),
            ("a.test".into(), Some(8443))
        );
        assert_eq!(host_port("https://a.test/"), ("a.test".into(), None));
        assert_eq!(host_port("http://[::1]:80/"), ("::1".into(), Some(80)));
        assert_eq!(host_port("https://[::1]/"), ("::1".into(), None));
    }
}
