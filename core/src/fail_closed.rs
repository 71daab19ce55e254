//! Fail closed: a verifier that panics has rejected the chain.
//!
//! Every place certbench calls a verifier from a TLS stack or a test runner (the OpenSSL
//! hooks and the cert-verify trampoline, [`crate::timed::TimedVerifier`], the x509-limbo
//! runner) goes through [`run`] or [`verify`], so a panic is a [`Rejection`] with one wording,
//! never an accept, and never an unwind into C or into rustls.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::verifier::Rejection;

/// Runs `f`; a panic inside becomes a rejection naming the panic's message.
pub fn run<T>(f: impl FnOnce() -> T) -> Result<T, Rejection> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        Rejection::new(format!(
            "verifier panicked (rejected): {}",
            panic_message(panic.as_ref())
        ))
    })
}

/// Runs a verification; its rejection, or a panic inside it, is a rejection.
pub fn verify<T>(f: impl FnOnce() -> Result<T, Rejection>) -> Result<T, Rejection> {
    run(f).and_then(|r| r)
}

/// The message of a panic payload (`&str` or `String`), else `(no message)`.
pub fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_a_rejection_with_its_message() {
        let r = verify::<()>(|| panic!("boom {}", 7)).unwrap_err();
        assert_eq!(r.reason, "verifier panicked (rejected): boom 7");
        let r = run(|| -> bool { std::panic::panic_any(5u8) }).unwrap_err();
        assert_eq!(r.reason, "verifier panicked (rejected): (no message)");
        assert_eq!(verify(|| Ok::<_, Rejection>(3)), Ok(3));
        assert_eq!(
            verify::<()>(|| Err(Rejection::new("no"))),
            Err(Rejection::new("no"))
        );
    }
}
