//! `certbench bulk`: how fast application data moves over an established TLS session, with
//! client and server of one stack joined in memory (no socket, no kernel): the cost of the
//! TLS library and its symmetric crypto alone, as the published rustls-versus-OpenSSL bulk
//! comparisons measure it.
//!
//! One measurement: a handshake (not timed) for the cipher suite asked for — checked to be the
//! one negotiated — then `bytes` of application data from client to server in batches of
//! 1 MiB, each written in records of `record` plaintext bytes. Two clocks run apart:
//! **send** is the client's work (plaintext written, records produced into a buffer),
//! **receive** the server's (records read, decrypted, plaintext read out). Every batch the
//! server reads is compared with what was sent, outside both clocks: a mismatch is an error,
//! never a figure.
//!
//! Stacks: `rustls-aws-lc-rs` and `rustls-ring` (two `Connection`s exchanging records through
//! a `Vec`), and `openssl` (two `SslStream`s over an in-memory pipe: OpenSSL's BIO calls a
//! Rust `Read`/`Write` that moves bytes through a `VecDeque`, one copy in and one out, as a
//! memory BIO does).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use certbench_analysis::bulk::BulkResult;
use openssl::ssl::{
    Ssl, SslAcceptor, SslConnector, SslMethod, SslStream, SslVerifyMode, SslVersion,
};
use rustls::pki_types::{PrivateKeyDer, ServerName};

use crate::handshake::certs::{SERVER_NAME, ServerCert};
use crate::handshake::{KeyType, Provider};

/// Plaintext bytes per batch between the two clocks.
const BATCH: usize = 1 << 20;

/// A stack as `bulk` measures it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BulkStack {
    /// OpenSSL (rust-openssl), the system's library.
    Openssl,
    /// rustls with aws-lc-rs.
    RustlsAwsLcRs,
    /// rustls with ring.
    RustlsRing,
}

impl BulkStack {
    /// The name in results.
    pub fn name(self) -> &'static str {
        match self {
            BulkStack::Openssl => "openssl",
            BulkStack::RustlsAwsLcRs => "rustls-aws-lc-rs",
            BulkStack::RustlsRing => "rustls-ring",
        }
    }

    fn library(self) -> String {
        match self {
            BulkStack::Openssl => format!("OpenSSL {}", crate::versions::openssl()),
            _ => format!("rustls {}", crate::versions::locked("rustls")),
        }
    }
}

/// The symmetric cipher of a suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Cipher {
    /// AES-128-GCM.
    Aes128gcm,
    /// AES-256-GCM.
    Aes256gcm,
    /// ChaCha20-Poly1305.
    Chacha20,
}

/// A TLS version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Tls {
    /// TLS 1.2 (ECDHE, with the key's authentication).
    #[value(name = "1.2")]
    V12,
    /// TLS 1.3.
    #[value(name = "1.3")]
    V13,
}

/// One cipher suite: version, cipher and (for TLS 1.2) the key's authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suite {
    /// The version.
    pub tls: Tls,
    /// The cipher.
    pub cipher: Cipher,
    /// The server key (TLS 1.2: ECDHE-ECDSA for P-256/P-384, ECDHE-RSA for RSA).
    pub key: KeyType,
}

impl Suite {
    fn rsa(self) -> bool {
        self.key == KeyType::Rsa2048
    }

    /// The IANA name (`TLS_AES_128_GCM_SHA256`, `TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384`).
    pub fn iana(self) -> &'static str {
        use Cipher::*;
        match (self.tls, self.cipher, self.rsa()) {
            (Tls::V13, Aes128gcm, _) => "TLS_AES_128_GCM_SHA256",
            (Tls::V13, Aes256gcm, _) => "TLS_AES_256_GCM_SHA384",
            (Tls::V13, Chacha20, _) => "TLS_CHACHA20_POLY1305_SHA256",
            (Tls::V12, Aes128gcm, false) => "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            (Tls::V12, Aes256gcm, false) => "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            (Tls::V12, Chacha20, false) => "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            (Tls::V12, Aes128gcm, true) => "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            (Tls::V12, Aes256gcm, true) => "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            (Tls::V12, Chacha20, true) => "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        }
    }

    /// OpenSSL's name for it (TLS 1.3 names are IANA's).
    fn openssl(self) -> &'static str {
        use Cipher::*;
        match (self.tls, self.cipher, self.rsa()) {
            (Tls::V13, ..) => self.iana(),
            (Tls::V12, Aes128gcm, false) => "ECDHE-ECDSA-AES128-GCM-SHA256",
            (Tls::V12, Aes256gcm, false) => "ECDHE-ECDSA-AES256-GCM-SHA384",
            (Tls::V12, Chacha20, false) => "ECDHE-ECDSA-CHACHA20-POLY1305",
            (Tls::V12, Aes128gcm, true) => "ECDHE-RSA-AES128-GCM-SHA256",
            (Tls::V12, Aes256gcm, true) => "ECDHE-RSA-AES256-GCM-SHA384",
            (Tls::V12, Chacha20, true) => "ECDHE-RSA-CHACHA20-POLY1305",
        }
    }

    fn rustls(self) -> rustls::CipherSuite {
        use Cipher::*;
        use rustls::CipherSuite as C;
        match (self.tls, self.cipher, self.rsa()) {
            (Tls::V13, Aes128gcm, _) => C::TLS13_AES_128_GCM_SHA256,
            (Tls::V13, Aes256gcm, _) => C::TLS13_AES_256_GCM_SHA384,
            (Tls::V13, Chacha20, _) => C::TLS13_CHACHA20_POLY1305_SHA256,
            (Tls::V12, Aes128gcm, false) => C::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
            (Tls::V12, Aes256gcm, false) => C::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
            (Tls::V12, Chacha20, false) => C::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
            (Tls::V12, Aes128gcm, true) => C::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
            (Tls::V12, Aes256gcm, true) => C::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
            (Tls::V12, Chacha20, true) => C::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        }
    }
}

/// Why a measurement could not be made, or must not be believed.
#[derive(Debug, thiserror::Error)]
pub enum BulkError {
    /// Setting up or running the TLS stack failed.
    #[error("{stack}: {message}")]
    Tls {
        /// The stack.
        stack: &'static str,
        /// What failed.
        message: String,
    },
    /// The server did not read what the client sent.
    #[error("{stack}: data integrity: {message}")]
    Integrity {
        /// The stack.
        stack: &'static str,
        /// What differed.
        message: String,
    },
}

/// The two ends of one session, past the handshake.
trait Pair {
    /// Encrypts `plain` (in records of `record` bytes) into `wire`.
    fn send(&mut self, plain: &[u8], record: usize, wire: &mut Vec<u8>) -> Result<(), String>;
    /// Decrypts `wire` into `out`; returns the plaintext bytes read.
    fn receive(&mut self, wire: &[u8], out: &mut [u8]) -> Result<usize, String>;
}

struct RustlsPair {
    client: rustls::Connection,
    server: rustls::Connection,
}

fn pump(from: &mut rustls::Connection, to: &mut rustls::Connection) -> Result<(), String> {
    let mut buf = Vec::new();
    while from.wants_write() {
        from.write_tls(&mut buf).map_err(|e| e.to_string())?;
    }
    let mut rd = &buf[..];
    while !rd.is_empty() {
        to.read_tls(&mut rd).map_err(|e| e.to_string())?;
        to.process_new_packets().map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A rustls client and server configuration for one suite (the client trusts the server's
/// CA; resumption as rustls does by default, or off for the client).
fn rustls_configs(
    provider: Provider,
    suite: Suite,
    cert: &ServerCert,
    resumption: bool,
) -> Result<(Arc<rustls::ClientConfig>, Arc<rustls::ServerConfig>), String> {
    let base = Arc::unwrap_or_clone(provider.crypto());
    let cs = base
        .cipher_suites
        .iter()
        .find(|s| s.suite() == suite.rustls())
        .copied()
        .ok_or_else(|| format!("{} is not offered by this provider", suite.iana()))?;
    let crypto = Arc::new(rustls::crypto::CryptoProvider {
        cipher_suites: vec![cs],
        ..base
    });
    let versions: &[&'static rustls::SupportedProtocolVersion] = match suite.tls {
        Tls::V12 => &[&rustls::version::TLS12],
        Tls::V13 => &[&rustls::version::TLS13],
    };
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert.ca.clone()).map_err(|e| e.to_string())?;
    let mut client = rustls::ClientConfig::builder_with_provider(crypto.clone())
        .with_protocol_versions(versions)
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    if !resumption {
        client.resumption = rustls::client::Resumption::disabled();
    }
    let mut server = rustls::ServerConfig::builder_with_provider(crypto)
        .with_protocol_versions(versions)
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(
            cert.chain.clone(),
            PrivateKeyDer::Pkcs8(cert.key.clone().into()),
        )
        .map_err(|e| e.to_string())?;
    if !resumption {
        // Nothing to resume: the server issues no tickets and stores no sessions (whose
        // hash-map inserts would also vary from process to process in instruction counts).
        server.send_tls13_tickets = 0;
        server.session_storage = Arc::new(rustls::server::NoServerSessionStorage {});
    }
    Ok((Arc::new(client), Arc::new(server)))
}

/// A handshake in memory between new connections of these configurations (the server's
/// post-handshake messages, session tickets included, delivered to the client).
fn rustls_connect(
    client: &Arc<rustls::ClientConfig>,
    server: &Arc<rustls::ServerConfig>,
    suite: Suite,
) -> Result<RustlsPair, String> {
    let name = ServerName::try_from(SERVER_NAME).map_err(|e| e.to_string())?;
    let mut client: rustls::Connection = rustls::ClientConnection::new(client.clone(), name)
        .map_err(|e| e.to_string())?
        .into();
    let mut server: rustls::Connection = rustls::ServerConnection::new(server.clone())
        .map_err(|e| e.to_string())?
        .into();
    for _ in 0..16 {
        pump(&mut client, &mut server)?;
        pump(&mut server, &mut client)?;
        if !client.is_handshaking() && !server.is_handshaking() {
            break;
        }
    }
    if client.is_handshaking() || server.is_handshaking() {
        return Err("the handshake did not complete".into());
    }
    let got = client
        .negotiated_cipher_suite()
        .map(|s| s.suite())
        .ok_or("no cipher suite negotiated")?;
    if got != suite.rustls() {
        return Err(format!("negotiated {got:?}, not {}", suite.iana()));
    }
    client.set_buffer_limit(None);
    server.set_buffer_limit(None);
    Ok(RustlsPair { client, server })
}

fn rustls_pair(provider: Provider, suite: Suite, cert: &ServerCert) -> Result<RustlsPair, String> {
    let (c, s) = rustls_configs(provider, suite, cert, false)?;
    rustls_connect(&c, &s, suite)
}

impl Pair for RustlsPair {
    fn send(&mut self, plain: &[u8], record: usize, wire: &mut Vec<u8>) -> Result<(), String> {
        for chunk in plain.chunks(record) {
            self.client
                .writer()
                .write_all(chunk)
                .map_err(|e| e.to_string())?;
        }
        while self.client.wants_write() {
            self.client.write_tls(wire).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn receive(&mut self, wire: &[u8], out: &mut [u8]) -> Result<usize, String> {
        let mut rd = wire;
        let mut got = 0;
        while !rd.is_empty() {
            self.server.read_tls(&mut rd).map_err(|e| e.to_string())?;
            self.server
                .process_new_packets()
                .map_err(|e| e.to_string())?;
            // Read out as it comes: rustls bounds the plaintext it holds.
            loop {
                match self.server.reader().read(&mut out[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e.to_string()),
                }
                if got == out.len() {
                    break;
                }
            }
        }
        Ok(got)
    }
}

/// One direction of an in-memory pipe, shared by its two ends.
type Queue = Rc<RefCell<VecDeque<u8>>>;

/// One end of an in-memory duplex: reads `rx`, writes `tx`; an empty `rx` is `WouldBlock`.
struct Pipe {
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

struct OpensslPair {
    client: SslStream<Pipe>,
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
struct OpensslEnds {
    client: SslConnector,
    server: SslAcceptor,
    session: Arc<std::sync::Mutex<Option<openssl::ssl::SslSession>>>,
    resumption: bool,
}

fn openssl_ends(suite: Suite, cert: &ServerCert, resumption: bool) -> Result<OpensslEnds, String> {
    let e = |e: openssl::error::ErrorStack| e.to_string();
    let version = match suite.tls {
        Tls::V12 => SslVersion::TLS1_2,
        Tls::V13 => SslVersion::TLS1_3,
    };
    let mut c = SslConnector::builder(SslMethod::tls_client()).map_err(e)?;
    let mut s = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server()).map_err(e)?;
    for b in [&mut *c, &mut *s] {
        b.set_min_proto_version(Some(version)).map_err(e)?;
        b.set_max_proto_version(Some(version)).map_err(e)?;
        match suite.tls {
            Tls::V13 => b.set_ciphersuites(suite.openssl()).map_err(e)?,
            Tls::V12 => b.set_cipher_list(suite.openssl()).map_err(e)?,
        }
    }
    let ca = openssl::x509::X509::from_der(&cert.ca).map_err(e)?;
    c.cert_store_mut().add_cert(ca).map_err(e)?;
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
        s.set_num_tickets(0).map_err(e)?;
    }
    let leaf = openssl::x509::X509::from_der(&cert.chain[0]).map_err(e)?;
    s.set_certificate(&leaf).map_err(e)?;
    for extra in &cert.chain[1..] {
        s.add_extra_chain_cert(openssl::x509::X509::from_der(extra).map_err(e)?)
            .map_err(e)?;
    }
    let key = openssl::pkey::PKey::private_key_from_pkcs8(&cert.key).map_err(e)?;
    s.set_private_key(&key).map_err(e)?;
    Ok(OpensslEnds {
        client: c.build(),
        server: s.build(),
        session,
        resumption,
    })
}

/// A handshake in memory between new `SSL`s of these contexts; with resumption, the last
/// session is offered and the server's tickets are read after the handshake.
fn openssl_connect(ends: &OpensslEnds, suite: Suite) -> Result<OpensslPair, String> {
    let e = |e: openssl::error::ErrorStack| e.to_string();
    let mut client_ssl = ends
        .client
        .configure()
        .and_then(|conf| conf.into_ssl(SERVER_NAME))
        .map_err(e)?;
    let offered = ends
        .session
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    if let Some(session) = offered {
        certbench_core::ossl::offer_session(&mut client_ssl, &session).map_err(e)?;
    }
    let server_ssl = Ssl::new(ends.server.context()).map_err(e)?;
    let (a2b, b2a): (Queue, Queue) = (Queue::default(), Queue::default());
    let mut client = SslStream::new(
        client_ssl,
        Pipe {
            rx: b2a.clone(),
            tx: a2b.clone(),
        },
    )
    .map_err(e)?;
    let mut server = SslStream::new(server_ssl, Pipe { rx: a2b, tx: b2a }).map_err(e)?;
    let want = |r: Result<(), openssl::ssl::Error>| match r {
        Ok(()) => Ok(true),
        Err(err)
            if err.code() == openssl::ssl::ErrorCode::WANT_READ
                || err.code() == openssl::ssl::ErrorCode::WANT_WRITE =>
        {
            Ok(false)
        }
        Err(err) => Err(err.to_string()),
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
        return Err("the handshake did not complete".into());
    }
    if ends.resumption {
        // TLS 1.3 tickets come after the handshake: a read takes them in (then would block).
        let mut none = [0u8; 1];
        match client.ssl_read(&mut none) {
            Err(err) if err.code() == openssl::ssl::ErrorCode::WANT_READ => {}
            Ok(_) => return Err("unexpected application data".into()),
            Err(err) => return Err(err.to_string()),
        }
    }
    let got = client
        .ssl()
        .current_cipher()
        .and_then(|c| c.standard_name())
        .unwrap_or("none");
    if got != suite.iana() {
        return Err(format!("negotiated {got}, not {}", suite.iana()));
    }
    Ok(OpensslPair { client, server })
}

fn openssl_pair(suite: Suite, cert: &ServerCert) -> Result<OpensslPair, String> {
    openssl_connect(&openssl_ends(suite, cert, false)?, suite)
}

/// Both ends of one stack, configured once; each [`Ends::connect`] is a new handshake
/// between new connections (resumed when the configuration allows it and a session exists).
pub struct Ends {
    suite: Suite,
    kind: EndsKind,
}

enum EndsKind {
    Rustls(Arc<rustls::ClientConfig>, Arc<rustls::ServerConfig>),
    Openssl(OpensslEnds),
}

/// A connected pair of one stack.
pub struct Connected(Box<dyn Pair>, bool);

impl Connected {
    /// Whether the handshake resumed a session.
    pub fn resumed(&self) -> bool {
        self.1
    }

    /// Moves `bytes` from client to server through the pair (records of `record` bytes of
    /// `plain`, a [`pattern`]; checked byte for byte); the (send, receive) time.
    pub fn transfer(
        &mut self,
        bytes: u64,
        record: usize,
        plain: &[u8],
    ) -> Result<(Duration, Duration), BulkError> {
        transfer(self.0.as_mut(), "pair", bytes, record, plain)
    }
}

impl Ends {
    /// `stack`'s client and server for `suite`, with `cert`; `resumption` lets the client
    /// keep and offer sessions.
    pub fn new(
        stack: BulkStack,
        suite: Suite,
        cert: &ServerCert,
        resumption: bool,
    ) -> Result<Ends, String> {
        let kind = match stack {
            BulkStack::Openssl => EndsKind::Openssl(openssl_ends(suite, cert, resumption)?),
            BulkStack::RustlsAwsLcRs => {
                let (c, s) = rustls_configs(Provider::AwsLcRs, suite, cert, resumption)?;
                EndsKind::Rustls(c, s)
            }
            BulkStack::RustlsRing => {
                let (c, s) = rustls_configs(Provider::Ring, suite, cert, resumption)?;
                EndsKind::Rustls(c, s)
            }
        };
        Ok(Ends { suite, kind })
    }

    /// One handshake in memory.
    pub fn connect(&self) -> Result<Connected, String> {
        Ok(match &self.kind {
            EndsKind::Rustls(c, s) => {
                let p = rustls_connect(c, s, self.suite)?;
                let resumed = p.client.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
                Connected(Box::new(p), resumed)
            }
            EndsKind::Openssl(ends) => {
                let p = openssl_connect(ends, self.suite)?;
                let resumed = p.client.ssl().session_reused();
                Connected(Box::new(p), resumed)
            }
        })
    }
}

impl Pair for OpensslPair {
    /// The records go into the pipe (`wire` stays empty: the server reads the pipe).
    fn send(&mut self, plain: &[u8], record: usize, _wire: &mut Vec<u8>) -> Result<(), String> {
        for chunk in plain.chunks(record) {
            self.client.write_all(chunk).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn receive(&mut self, _wire: &[u8], out: &mut [u8]) -> Result<usize, String> {
        let mut got = 0;
        while got < out.len() {
            match self.server.ssl_read(&mut out[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(err) if err.code() == openssl::ssl::ErrorCode::WANT_READ => break,
                Err(err) => return Err(err.to_string()),
            }
        }
        Ok(got)
    }
}

/// The plaintext of one batch (1 MiB): a pattern that tells positions apart (so a dropped or
/// repeated record shows).
pub fn pattern() -> Vec<u8> {
    (0..BATCH).map(|i| (i % 251) as u8).collect()
}

/// Moves `bytes` through `pair`; returns the (send, receive) time.
fn transfer(
    pair: &mut dyn Pair,
    stack: &'static str,
    bytes: u64,
    record: usize,
    plain: &[u8],
) -> Result<(Duration, Duration), BulkError> {
    let tls = |message: String| BulkError::Tls { stack, message };
    let mut wire = Vec::with_capacity(BATCH + BATCH / 16);
    let mut out = vec![0u8; BATCH];
    let (mut send, mut receive) = (Duration::ZERO, Duration::ZERO);
    let mut left = bytes;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        wire.clear();
        let started = Instant::now();
        pair.send(&plain[..n], record, &mut wire).map_err(tls)?;
        send += started.elapsed();
        let started = Instant::now();
        let got = pair.receive(&wire, &mut out[..n]).map_err(tls)?;
        receive += started.elapsed();
        if got != n || out[..n] != plain[..n] {
            return Err(BulkError::Integrity {
                stack,
                message: format!(
                    "sent {n} bytes, received {got}{}",
                    if got == n { ", different bytes" } else { "" }
                ),
            });
        }
        left -= n as u64;
    }
    Ok((send, receive))
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct BulkOptions {
    /// Stacks.
    pub stacks: Vec<BulkStack>,
    /// Suites.
    pub suites: Vec<Suite>,
    /// Application bytes per measurement.
    pub bytes: u64,
    /// Plaintext bytes per record.
    pub record: usize,
    /// Measurements per configuration (each on a new session).
    pub runs: u32,
}

fn mb_per_s(bytes: u64, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64().max(1e-9) / 1e6
}

/// Measures every stack × suite `runs` times, runs interleaved (run 1 of every
/// configuration, then run 2, …); hands each configuration's two results (send, receive) to
/// `sink` when its last run is done, and each failure as it happens (that configuration is
/// then skipped).
pub fn run(
    opts: &BulkOptions,
    certs: &dyn Fn(KeyType) -> Option<ServerCert>,
    mut progress: impl FnMut(),
) -> (Vec<BulkResult>, Vec<(String, BulkError)>) {
    let plain = pattern();
    let configs: Vec<(BulkStack, Suite)> = opts
        .stacks
        .iter()
        .flat_map(|&st| opts.suites.iter().map(move |&su| (st, su)))
        .collect();
    let mut speeds: Vec<Option<(Vec<f64>, Vec<f64>)>> =
        vec![Some((Vec::new(), Vec::new())); configs.len()];
    let mut failures = Vec::new();
    let mut cert_cache: Vec<(KeyType, Option<ServerCert>)> = Vec::new();
    for _ in 0..opts.runs {
        for (i, &(stack, suite)) in configs.iter().enumerate() {
            let Some((send, receive)) = speeds[i].as_mut() else {
                continue;
            };
            if !cert_cache.iter().any(|(k, _)| *k == suite.key) {
                cert_cache.push((suite.key, certs(suite.key)));
            }
            let cert = cert_cache
                .iter()
                .find(|(k, _)| *k == suite.key)
                .and_then(|(_, c)| c.as_ref());
            let label = format!(
                "{} TLS {} {}",
                stack.name(),
                tls_name(suite.tls),
                suite.iana()
            );
            let result = cert
                .ok_or_else(|| BulkError::Tls {
                    stack: stack.name(),
                    message: "no server certificate".into(),
                })
                .and_then(|cert| {
                    let mut pair: Box<dyn Pair> = match stack {
                        BulkStack::Openssl => {
                            Box::new(openssl_pair(suite, cert).map_err(|m| BulkError::Tls {
                                stack: stack.name(),
                                message: m,
                            })?)
                        }
                        BulkStack::RustlsAwsLcRs | BulkStack::RustlsRing => {
                            let p = if stack == BulkStack::RustlsRing {
                                Provider::Ring
                            } else {
                                Provider::AwsLcRs
                            };
                            Box::new(rustls_pair(p, suite, cert).map_err(|m| BulkError::Tls {
                                stack: stack.name(),
                                message: m,
                            })?)
                        }
                    };
                    transfer(pair.as_mut(), stack.name(), opts.bytes, opts.record, &plain)
                });
            match result {
                Ok((s, r)) => {
                    send.push(mb_per_s(opts.bytes, s));
                    receive.push(mb_per_s(opts.bytes, r));
                }
                Err(e) => {
                    failures.push((label, e));
                    speeds[i] = None;
                }
            }
            progress();
        }
    }
    let mut results = Vec::new();
    for ((stack, suite), s) in configs.into_iter().zip(speeds) {
        let Some((send, receive)) = s else { continue };
        for (direction, v) in [("send", send), ("receive", receive)] {
            results.push(BulkResult {
                stack: stack.name().to_owned(),
                library: stack.library(),
                tls: tls_name(suite.tls).to_owned(),
                suite: suite.iana().to_owned(),
                key: suite.key.to_string(),
                direction: direction.to_owned(),
                bytes: opts.bytes,
                record: opts.record,
                mb_per_s: v,
            });
        }
    }
    (results, failures)
}

fn tls_name(t: Tls) -> &'static str {
    match t {
        Tls::V12 => "1.2",
        Tls::V13 => "1.3",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stack_negotiates_the_suite_asked_for_and_delivers_every_byte() {
        let p256 = crate::handshake::certs::generate(KeyType::P256).unwrap();
        let plain = pattern();
        for tls in [Tls::V12, Tls::V13] {
            for cipher in [Cipher::Aes128gcm, Cipher::Aes256gcm, Cipher::Chacha20] {
                let suite = Suite {
                    tls,
                    cipher,
                    key: KeyType::P256,
                };
                let mut pairs: Vec<(&str, Box<dyn Pair>)> = vec![
                    ("openssl", Box::new(openssl_pair(suite, &p256).unwrap())),
                    (
                        "rustls-aws-lc-rs",
                        Box::new(rustls_pair(Provider::AwsLcRs, suite, &p256).unwrap()),
                    ),
                    (
                        "rustls-ring",
                        Box::new(rustls_pair(Provider::Ring, suite, &p256).unwrap()),
                    ),
                ];
                for (name, pair) in &mut pairs {
                    // 2.5 MiB: two full batches and a partial one, in odd-sized records.
                    let (s, r) = transfer(pair.as_mut(), "t", 5 << 19, 10_000, &plain)
                        .unwrap_or_else(|e| panic!("{name} {}: {e}", suite.iana()));
                    assert!(s > Duration::ZERO && r > Duration::ZERO);
                }
            }
        }
    }

    /// A receiver that drops a byte is caught: the figure is refused.
    #[test]
    fn a_lost_byte_is_an_integrity_error_not_a_figure() {
        struct Lossy(RustlsPair);
        impl Pair for Lossy {
            fn send(&mut self, p: &[u8], r: usize, w: &mut Vec<u8>) -> Result<(), String> {
                self.0.send(p, r, w)
            }
            fn receive(&mut self, w: &[u8], out: &mut [u8]) -> Result<usize, String> {
                let n = self.0.receive(w, out)?;
                out[7] ^= 1;
                Ok(n)
            }
        }
        let cert = crate::handshake::certs::generate(KeyType::P256).unwrap();
        let suite = Suite {
            tls: Tls::V13,
            cipher: Cipher::Aes128gcm,
            key: KeyType::P256,
        };
        let mut pair = Lossy(rustls_pair(Provider::AwsLcRs, suite, &cert).unwrap());
        let err = transfer(&mut pair, "t", 1000, 100, &pattern()).unwrap_err();
        assert!(matches!(err, BulkError::Integrity { .. }), "{err}");
    }
}

#[cfg(test)]
mod resume_tests {
    use super::*;

    #[test]
    fn every_stack_resumes_in_memory_when_asked_and_never_otherwise() {
        let cert = crate::handshake::certs::generate(KeyType::P256).unwrap();
        let suite = Suite {
            tls: Tls::V13,
            cipher: Cipher::Aes128gcm,
            key: KeyType::P256,
        };
        for stack in [
            BulkStack::Openssl,
            BulkStack::RustlsAwsLcRs,
            BulkStack::RustlsRing,
        ] {
            let ends = Ends::new(stack, suite, &cert, true).unwrap();
            let resumed: Vec<bool> = (0..4).map(|_| ends.connect().unwrap().resumed()).collect();
            assert_eq!(resumed, [false, true, true, true], "{}", stack.name());
            let ends = Ends::new(stack, suite, &cert, false).unwrap();
            let resumed: Vec<bool> = (0..3).map(|_| ends.connect().unwrap().resumed()).collect();
            assert_eq!(resumed, [false, false, false], "{}", stack.name());
        }
    }
}
