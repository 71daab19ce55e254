//! The connection and page load of the poll running on a thread.
//!
//! rustls calls the verifier synchronously, inside the poll of the connector's future that
//! drives the handshake, on whichever thread polls it. So the patch wraps that future and
//! the fetch's future in [`Scoped`] futures that set a thread-local for the length of each
//! poll: whatever is verified during the poll reads the connection and page from it
//! ([`current`]). Outside such a poll (a connection hyper finishes in the background, a
//! verifier called directly) a sample names no connection or page, rather than a wrong one.
//!
//! Invariant: the thread-local is restored when a poll returns, also on unwind (a guard).

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use crate::stages::Span;

/// A page load: its number in the process (from 1), its document's URL, and when its
/// document fetch began.
#[derive(Debug)]
pub struct Page {
    pub(super) id: u64,
    pub(super) url: String,
    pub(super) started: Span,
}

/// When a connection started, and when its TCP stream (after name resolution, TCP connect
/// and any proxy tunnel) was up: `connect` apart from `handshake`.
#[derive(Debug)]
pub(super) struct Timing {
    /// The port connected to: a verification in the connection names its site with it, as
    /// the connection does (one site key, host:port).
    pub(super) port: Option<u16>,
    started: Span,
    /// Nanoseconds from `started` to the stream, plus one; 0 while not marked.
    stream_up: AtomicU64,
}

impl Timing {
    pub(super) fn start(port: Option<u16>) -> Timing {
        Timing {
            port,
            started: crate::stages::Recorder::new().start(),
            stream_up: AtomicU64::new(0),
        }
    }

    /// Since the connection started.
    pub(super) fn elapsed_ns(&self) -> u64 {
        self.started.elapsed_ns()
    }

    /// Marks the stream up now (the first mark counts).
    fn mark(&self) {
        let ns = self.started.elapsed_ns() + 1;
        let _ = (self.stream_up).compare_exchange(0, ns, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// `connect`: from the start to the stream, when it was marked.
    pub(super) fn connect_ns(&self) -> Option<u64> {
        self.stream_up.load(Ordering::Relaxed).checked_sub(1)
    }
}

/// A thread's current connection (its number and timing) and page load.
#[derive(Clone, Default)]
pub(super) struct Current {
    pub(super) connection: Option<u64>,
    pub(super) timing: Option<Arc<Timing>>,
    pub(super) page: Option<Arc<Page>>,
}
thread_local! {
    static CURRENT: RefCell<Current> = RefCell::default();
}

/// The connection and page of the poll running on this thread.
pub(super) fn current() -> Current {
    CURRENT.with(|c| c.borrow().clone())
}

/// Sets the current context for the guard's life.
struct Entered(Option<Current>);

impl Entered {
    fn enter(change: impl FnOnce(&mut Current)) -> Entered {
        CURRENT.with(|c| {
            let mut c = c.borrow_mut();
            let before = c.clone();
            change(&mut c);
            Entered(Some(before))
        })
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        if let Some(before) = self.0.take() {
            CURRENT.with(|c| *c.borrow_mut() = before);
        }
    }
}

/// A future polled with a connection or page set as current (see the module documentation).
pub struct Scoped<F> {
    inner: Pin<Box<F>>,
    connection: Option<(u64, Arc<Timing>)>,
    page: Option<Arc<Page>>,
}

impl<F> Scoped<F> {
    /// `inner`, polled with `connection` and `page` (those given) as current.
    pub(super) fn new(
        inner: F,
        connection: Option<(u64, Arc<Timing>)>,
        page: Option<Arc<Page>>,
    ) -> Scoped<F> {
        Scoped {
            inner: Box::pin(inner),
            connection,
            page,
        }
    }
}

impl<F: Future> Future for Scoped<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let (connection, page) = (self.connection.clone(), self.page.clone());
        let _entered = Entered::enter(|c| {
            if let Some((id, timing)) = connection {
                c.connection = Some(id);
                c.timing = Some(timing);
            }
            if page.is_some() {
                c.page = page;
            }
        });
        self.inner.as_mut().poll(cx)
    }
}

/// A connector's stream future (name resolution, TCP connect, proxy tunnel): when it is
/// ready, the current connection's `connect` ends and its `handshake` begins.
pub struct StreamUp<F> {
    inner: Pin<Box<F>>,
}

impl<F> StreamUp<F> {
    pub(super) fn new(inner: F) -> StreamUp<F> {
        StreamUp {
            inner: Box::pin(inner),
        }
    }
}

impl<F: Future> Future for StreamUp<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let ready = self.inner.as_mut().poll(cx);
        if ready.is_ready()
            && let Some(timing) = current().timing
        {
            timing.mark();
        }
        ready
    }
}
