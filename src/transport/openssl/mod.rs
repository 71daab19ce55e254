//! The seed's stack: a hyper 1 HTTP/1.1 client over OpenSSL (tokio-openssl), one fresh
//! connection per sample, with the certificate verification hooked in one of three ways.
//!
//! - [`ConnectorHook::Native`] (`openssl`): OpenSSL verifies. libssl runs `X509_verify_cert` inside the
//!   handshake, before any `set_verify_callback` runs; certbench times it where it happens, by
//!   installing `SSL_CTX_set_cert_verify_callback` with a wrapper that calls it (`verify`).
//! - [`ConnectorHook::Callback`] (a webpki method, the seed's way): OpenSSL's own verification still
//!   runs (timed as `openssl-verify`), and at depth 0 the `set_verify_callback` converts the
//!   chain to DER (`chain-creation`) and calls webpki (`verify`, `verify-hostname`), whose
//!   verdict decides.
//! - [`ConnectorHook::Replace`] (a webpki method, what a browser should do): the cert-verify callback
//!   replaces `X509_verify_cert` entirely with webpki; OpenSSL verifies nothing.
//!
//! In every hook `total-verification` is the whole span of the cert-verify callback. A panic
//! or an error in any hook rejects the chain (fail closed).
//!
//! With `--ct`, a hooked method that checks CT is given the logs in its [`Target`](certbench_core::verifier::Target) (its `ct`
//! stage inside its own stages); `openssl` itself has no CT check (OpenSSL verifies no SCT).
//!
//! With `--revocation`, a hooked method with a revocation mechanism is given the run's data and
//! the OCSP response the server stapled (the connection asks for one, `status_request`;
//! OpenSSL holds a TLS 1.3 staple, which comes in the Certificate message, when it verifies
//! the chain: `SSL_get_tlsext_status_ocsp_resp` in the hook). A TLS 1.2 staple comes after the
//! verification, in CertificateStatus: such a connection checks none. `openssl` natively
//! checks no revocation.

//!
//! By role: `connector.rs` builds the `SslConnector` with its hook ([`connector`]),
//! `hooks.rs` is the libssl callbacks (native timing, the callback and replace hooks, what
//! they record: [`HookState`]; every one fail-closed), `stack.rs` the stack as a
//! [`TlsStack`](super::TlsStack): stores, the connection, what the hooks recorded.

mod connector;
mod hooks;
mod stack;

pub use connector::{ConnectorHook, connector, share_store};
pub use hooks::HookState;
pub use stack::{OpensslConnector, OpensslStores, OpensslTransport};
