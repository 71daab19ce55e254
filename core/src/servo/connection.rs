//! Which connection a verification belongs to: the patch makes a [`Connection`] per
//! connection through Servo's connector and polls the connector's future inside
//! [`connecting`] (see [`super::scope`] for how a verification reads it), and the inner
//! connector's stream future through [`stream_up`], which ends `connect`.
//!
//! Invariants: a [`Connection`] writes exactly one sample, when it finishes or when it is
//! dropped unfinished, and none for a plain-HTTP connection; `connect` + `handshake` =
//! `connection` when the stream was marked; with nothing measured no state is kept.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use certbench_schema::Stage;
use rustls::HandshakeKind;

use super::record::{active, record_connection};
use super::scope::{Current, Page, Scoped, StreamUp, Timing, current};
use crate::stages::Recorder;

/// The connector's future `connect`, polled with `connection` (when one is measured) as the
/// current connection.
pub fn connecting<F: Future>(connection: Option<&Connection>, connect: F) -> Scoped<F> {
    Scoped::new(
        connect,
        connection.map(|c| (c.id, c.timing.clone())),
        connection.and_then(|c| c.page.clone()),
    )
}

/// The inner connector's stream future (Servo's `ProxyConnector::call`: name resolution,
/// TCP connect, any proxy tunnel): when it is ready, the current connection's `connect`
/// ends and its TLS `handshake` begins. Outside a measured connection it only polls.
pub fn stream_up<F: Future>(stream: F) -> StreamUp<F> {
    StreamUp::new(stream)
}

static CONNECTION_IDS: AtomicU64 = AtomicU64::new(0);

/// One connection through Servo's connector: started before the connector's future is made,
/// finished with how it ended. Records `connection` (all of it), and when [`stream_up`]
/// marked the stream, `connect` (name resolution + TCP + proxy) and `handshake` (TLS alone)
/// apart: `connect` + `handshake` = `connection`.
#[derive(Debug)]
pub struct Connection {
    id: u64,
    host: String,
    port: Option<u16>,
    timing: Arc<Timing>,
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
            timing: Arc::new(Timing::start(port)),
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
        let total = self.timing.elapsed_ns();
        rec.add(Stage::Connection, total);
        if let Some(connect) = self.timing.connect_ns() {
            rec.add(Stage::Connect, connect);
            rec.add(Stage::Handshake, total.saturating_sub(connect));
        }
        let current = Current {
            connection: Some(self.id),
            timing: Some(self.timing.clone()),
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
