//! Which connection and which page load a verification belongs to: the patch makes a
//! [`Connection`] per connection through Servo's connector and polls the connector's future
//! inside [`connecting`]; it names each fetch's page load with [`page_of_fetch`] and polls
//! the fetch [`within_page`] of it (see [`super::scope`] for how a verification reads them).
//!
//! Invariants: a [`Connection`] writes exactly one sample, when it finishes or when it is
//! dropped unfinished, and none for a plain-HTTP connection; page loads are numbered per
//! process from 1 in the order they begin; with nothing measured no state is kept.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use certbench_schema::Stage;
use rustls::HandshakeKind;

use super::record::{active, record_connection};
use super::scope::{Current, Page, Scoped, current};
use crate::stages::{Recorder, Span};

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
            });
            pages.insert(webview, (request.to_owned(), page.clone()));
            Some(page)
        }
        None => pages.get(&webview).map(|(_, page)| page.clone()),
    }
}

/// `fetch` polled with `page` as the current page load.
pub fn within_page<F: Future>(page: Option<Arc<Page>>, fetch: F) -> Scoped<F> {
    Scoped::new(fetch, None, page)
}

/// The connector's future `connect`, polled with `connection` (when one is measured) as the
/// current connection.
pub fn connecting<F: Future>(connection: Option<&Connection>, connect: F) -> Scoped<F> {
    Scoped::new(
        connect,
        connection.map(|c| c.id),
        connection.and_then(|c| c.page.clone()),
    )
}

static CONNECTION_IDS: AtomicU64 = AtomicU64::new(0);

/// One connection through Servo's connector: started before the connector's future is made,
/// finished with how it ended. Records `handshake` (TCP connect + TLS handshake).
#[derive(Debug)]
pub struct Connection {
    id: u64,
    host: String,
    port: Option<u16>,
    started: Span,
    page: Option<Arc<Page>>,
    finished: bool,
}

impl Connection {
    /// A connection to `host:port` starts now, in the current page load. `None` when
    /// nothing is measured.
    pub fn start(host: &str, port: Option<u16>) -> Option<Connection> {
        active()?;
        Some(Connection {
            id: CONNECTION_IDS.fetch_add(1, Ordering::Relaxed) + 1,
            host: host.trim_matches(['[', ']']).to_owned(),
            port,
            started: Recorder::new().start(),
            page: current().page,
            finished: false,
        })
    }

    /// The connection is up: `tls` is rustls' handshake kind for HTTPS (`None` for plain
    /// HTTP, which is not recorded).
    pub fn finish(mut self, tls: Option<Option<HandshakeKind>>) {
        self.finished = true;
        if let Some(kind) = tls {
            self.record(Ok(kind == Some(HandshakeKind::Resumed)));
        }
    }

    /// The connection failed with `error`.
    pub fn failed(mut self, error: &dyn std::fmt::Display) {
        self.finished = true;
        self.record(Err(error.to_string()));
    }

    fn record(&self, outcome: Result<bool, String>) {
        let mut rec = Recorder::new();
        rec.add(Stage::Handshake, self.started.elapsed_ns());
        let current = Current {
            connection: Some(self.id),
            page: self.page.clone(),
        };
        record_connection(&self.host, self.port, &rec, outcome, current);
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        if !self.finished {
            self.record(Err("dropped before the connection was up".into()));
        }
    }
}
