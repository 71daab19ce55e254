//! The one place a [`Transport`] becomes its transport: a command says how it wants the stack set
//! up ([`TransportSetup`]) and runs its code over whichever transport that is
//! ([`with_transport!`](crate::transport::setup::with_transport)). Each stack's transport is a
//! type of its own (its stores, connector and reused state differ), so the code runs once per
//! stack, generic over [`crate::transport::TlsStack`].

use crate::transport::openssl::OpensslTransport;
use crate::transport::quic::QuicTransport;
use crate::transport::rustls::RustlsTransport;
use certbench_schema::{Hook, Transport};

/// How a command sets its stack up: the stack, and each stack's options (those of the other
/// stack are not used).
#[derive(Clone, Copy, Debug)]
pub struct TransportSetup {
    /// The stack.
    pub stack: Transport,
    /// Keep sessions and offer them again.
    pub resumption: bool,
    /// OpenSSL: how a method other than `openssl` enters the handshake.
    pub hook: Hook,
    /// OpenSSL: put `openssl` in through the hook too (a layer above every method).
    pub hook_openssl: bool,
    /// rustls: offer X25519MLKEM768 first (`--pq`).
    pub hybrid_first: bool,
    /// rustls: offer certificate compression with this decompressor, timed
    /// (`--compress-certs`, [`crate::tls::compression::decompressor`]); `None`: offer none.
    pub decompressor: Option<&'static dyn rustls::compress::CertDecompressor>,
    /// QUIC: whose Initials the client sends.
    pub quic_client: certbench_schema::wire::QuicClient,
}

impl TransportSetup {
    /// The OpenSSL transport of this setup.
    pub fn openssl(&self) -> OpensslTransport {
        OpensslTransport {
            hook: self.hook,
            resumption: self.resumption,
            hook_openssl: self.hook_openssl,
        }
    }

    /// The rustls transport of this setup.
    pub fn rustls(&self) -> RustlsTransport {
        RustlsTransport {
            resumption: self.resumption,
            hybrid_first: self.hybrid_first,
            decompressor: self.decompressor,
        }
    }

    /// The QUIC transport of this setup.
    pub fn quic(&self) -> QuicTransport {
        QuicTransport {
            hybrid_first: self.hybrid_first,
            client: self.quic_client,
        }
    }
}

/// `with_transport!(setup, |t| body)`: `body` with `t` the transport `setup` makes for its
/// stack (an expression; it may `.await`). Adding a stack adds its arm here, and nowhere else.
macro_rules! with_transport {
    ($setup:expr, |$t:ident| $body:expr) => {{
        let setup: $crate::transport::setup::TransportSetup = $setup;
        match setup.stack {
            ::certbench_schema::Transport::Openssl => {
                let $t = setup.openssl();
                $body
            }
            ::certbench_schema::Transport::Rustls => {
                let $t = setup.rustls();
                $body
            }
            ::certbench_schema::Transport::Quic => {
                let $t = setup.quic();
                $body
            }
        }
    }};
}

pub(crate) use with_transport;
