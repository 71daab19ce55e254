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
use std::task::{Context, Poll};

/// A page load: its number in the process (from 1) and its document's URL.
#[derive(Debug)]
pub struct Page {
    pub(super) id: u64,
    pub(super) url: String,
}

/// A thread's current connection and page load.
#[derive(Clone, Default)]
pub(super) struct Current {
    pub(super) connection: Option<u64>,
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
    connection: Option<u64>,
    page: Option<Arc<Page>>,
}

impl<F> Scoped<F> {
    /// `inner`, polled with `connection` and `page` (those given) as current.
    pub(super) fn new(inner: F, connection: Option<u64>, page: Option<Arc<Page>>) -> Scoped<F> {
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
        let (connection, page) = (self.connection, self.page.clone());
        let _entered = Entered::enter(|c| {
            if connection.is_some() {
                c.connection = connection;
            }
            if page.is_some() {
                c.page = page;
            }
        });
        self.inner.as_mut().poll(cx)
    }
}
