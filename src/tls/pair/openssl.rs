//! The OpenSSL pair: two `SslStream`s over an in-memory pipe — OpenSSL's BIO calls a Rust
//! `Read`/`Write` that moves bytes through a `VecDeque`, one copy in and one out, as a memory
//! BIO does.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::rc::Rc;
use std::sync::Arc;

use openssl::ssl::{Ssl, SslAcceptor, SslConnector, SslMethod, SslStream, SslVerifyMode};

use super::session::{Pair, PairError};
use crate::certs::test::{SERVER_NAME, ServerCert};
use crate::tls::{Suite, Version};

/// One direction of an in-memory pipe, shared by its two ends.
type Queue = Rc<RefCell<VecDeque<u8>>>;

/// One end of an in-memory duplex: reads `rx`, writes `tx`; an empty `rx` is `WouldBlock`.
pub(super) struct Pipe {
    rx: Queue,
    tx: Queue,
}

impl Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut q = self.rx.borrow_mut();
        if q.is_empty() {
            return Err(std::io::ErrorKind::WouldBlock.into());
        }
        q.read(buf)
    }
}

impl Write for Pipe {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.tx.borrow_mut().extend(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

pub(super) struct OpensslPair {
    pub(super) client: SslStream<Pipe>,
    server: SslStream<Pipe>,
}

impl Drop for OpensslPair {
    /// Closes both ends with close_notify: OpenSSL marks the session of an `SSL` freed
    /// without it not resumable.
    fn drop(&mut self) {
        let _ = self.client.shutdown();
        let _ = self.server.shutdown();
    }
}

/// OpenSSL client and server contexts for one suite; with `resumption`, the client keeps the
/// last session it was given (in `session`) to offer on the next connection.
pub(super) struct OpensslEnds {
    client: SslConnector,
    server: SslAcceptor,
    session: Arc<std::sync::Mutex<Option<openssl::ssl::SslSession>>>,
    resumption: bool,
}

pub(super) fn ends(
    suite: Suite,
    cert: &ServerCert,
    resumption: bool,
) -> Result<OpensslEnds, PairError> {
    let version = suite.tls.openssl();
    let mut c = SslConnector::builder(SslMethod::tls_client())?;
    let mut s = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server())?;
    for b in [&mut *c, &mut *s] {
        b.set_min_proto_version(Some(version))?;
        b.set_max_proto_version(Some(version))?;
        match suite.tls {
            Version::V13 => b.set_ciphersuites(suite.openssl())?,
            Version::V12 => b.set_cipher_list(suite.openssl())?,
        }
    }
    let ca = openssl::x509::X509::from_der(&cert.ca)?;
    c.cert_store_mut().add_cert(ca)?;
    c.set_verify(SslVerifyMode::PEER);
    let session = Arc::new(std::sync::Mutex::new(None));
    if resumption {
        // As `certbench handshake` does: sessions go to a callback, never into a cache list
        // (which makes offering them on a new `SSL` sound, see `ossl::offer_session`).
        c.set_session_cache_mode(
            openssl::ssl::SslSessionCacheMode::CLIENT
                | openssl::ssl::SslSessionCacheMode::NO_INTERNAL_STORE,
        );
        let slot = session.clone();
        c.set_new_session_callback(move |_, s| {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(s);
        });
    } else {
        for b in [&mut *c, &mut *s] {
            b.set_session_cache_mode(openssl::ssl::SslSessionCacheMode::OFF);
            b.set_options(openssl::ssl::SslOptions::NO_TICKET);
        }
        s.set_num_tickets(0)?;
    }
    let leaf = openssl::x509::X509::from_der(&cert.chain[0])?;
    s.set_certificate(&leaf)?;
    for extra in &cert.chain[1..] {
        s.add_extra_chain_cert(openssl::x509::X509::from_der(extra)?)?;
    }
    let key = openssl::pkey::PKey::private_key_from_pkcs8(&cert.key)?;
    s.set_private_key(&key)?;
    Ok(OpensslEnds {
        client: c.build(),
        server: s.build(),
        session,
        resumption,
    })
}

/// A handshake in memory between new `SSL`s of these contexts; with resumption, the last
/// session is offered and the server's tickets are read after the handshake.
pub(super) fn connect(ends: &OpensslEnds, suite: Suite) -> Result<OpensslPair, PairError> {
    let mut client_ssl = ends
        .client
        .configure()
        .and_then(|conf| conf.into_ssl(SERVER_NAME))?;
    let offered = ends
        .session
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    if let Some(session) = offered {
        certbench_core::ffi::ossl::offer_session(&mut client_ssl, &session)?;
    }
    let server_ssl = Ssl::new(ends.server.context())?;
    let (a2b, b2a): (Queue, Queue) = (Queue::default(), Queue::default());
    let mut client = SslStream::new(
        client_ssl,
        Pipe {
            rx: b2a.clone(),
            tx: a2b.clone(),
        },
    )?;
    let mut server = SslStream::new(server_ssl, Pipe { rx: a2b, tx: b2a })?;
    let want = |r: Result<(), openssl::ssl::Error>| match r {
        Ok(()) => Ok(true),
        Err(err)
            if err.code() == openssl::ssl::ErrorCode::WANT_READ
                || err.code() == openssl::ssl::ErrorCode::WANT_WRITE =>
        {
            Ok(false)
        }
        Err(err) => Err(PairError::Ssl(err)),
    };
    let mut done = (false, false);
    for _ in 0..16 {
        if !done.0 {
            done.0 = want(client.connect())?;
        }
        if !done.1 {
            done.1 = want(server.accept())?;
        }
        if done == (true, true) {
            break;
        }
    }
    if done != (true, true) {
        return Err(PairError::Incomplete);
    }
    if ends.resumption {
        // TLS 1.3 tickets come after the handshake: a read takes them in (then would block).
        let mut none = [0u8; 1];
        match client.ssl_read(&mut none) {
            Err(err) if err.code() == openssl::ssl::ErrorCode::WANT_READ => {}
            Ok(_) => return Err(PairError::UnexpectedData),
            Err(err) => return Err(PairError::Ssl(err)),
        }
    }
    let got = client
        .ssl()
        .current_cipher()
        .and_then(|c| c.standard_name())
        .unwrap_or("none");
    if got != suite.iana() {
        return Err(PairError::Negotiated {
            got: got.to_owned(),
            want: suite.iana(),
        });
    }
    Ok(OpensslPair { client, server })
}

/// A connected pair for `suite`, resumption off.
pub(super) fn pair(suite: Suite, cert: &ServerCert) -> Result<OpensslPair, PairError> {
    connect(&ends(suite, cert, false)?, suite)
}

impl Pair for OpensslPair {
    /// The records go into the pipe (`wire` stays empty: the server reads the pipe).
    fn send(&mut self, plain: &[u8], record: usize, _wire: &mut Vec<u8>) -> Result<(), PairError> {
        for chunk in plain.chunks(record) {
            self.client.write_all(chunk)?;
        }
        Ok(())
    }

    fn receive(&mut self, _wire: &[u8], out: &mut [u8]) -> Result<usize, PairError> {
        let mut got = 0;
        while got < out.len() {
            match self.server.ssl_read(&mut out[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(err) if err.code() == openssl::ssl::ErrorCode::WANT_READ => break,
                Err(err) => return Err(PairError::Ssl(err)),
            }
        }
        Ok(got)
    }
}
