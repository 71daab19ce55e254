//! The rustls pair: two `Connection`s exchanging records through a `Vec`.

use std::io::{Read, Write};
use std::sync::Arc;

use rustls::pki_types::{PrivateKeyDer, ServerName};

use super::session::{Pair, PairError};
use crate::certs::test::{SERVER_NAME, ServerCert};
use crate::tls::{Provider, Suite};

pub(super) struct RustlsPair {
    pub(super) client: rustls::Connection,
    pub(super) server: rustls::Connection,
}

fn pump(from: &mut rustls::Connection, to: &mut rustls::Connection) -> Result<(), PairError> {
    let mut buf = Vec::new();
    while from.wants_write() {
        from.write_tls(&mut buf)?;
    }
    let mut rd = &buf[..];
    while !rd.is_empty() {
        to.read_tls(&mut rd)?;
        to.process_new_packets()?;
    }
    Ok(())
}

/// A rustls client and server configuration for one suite (the client trusts the server's
/// CA; resumption as rustls does by default, or off for the client).
pub(super) fn configs(
    provider: Provider,
    suite: Suite,
    cert: &ServerCert,
    resumption: bool,
) -> Result<(Arc<rustls::ClientConfig>, Arc<rustls::ServerConfig>), PairError> {
    let base = Arc::unwrap_or_clone(provider.crypto());
    let cs = base
        .cipher_suites
        .iter()
        .find(|s| s.suite() == suite.rustls())
        .copied()
        .ok_or(PairError::NotOffered(suite.iana()))?;
    let crypto = Arc::new(rustls::crypto::CryptoProvider {
        cipher_suites: vec![cs],
        ..base
    });
    let versions = suite.tls.rustls();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert.ca.clone())?;
    let mut client = rustls::ClientConfig::builder_with_provider(crypto.clone())
        .with_protocol_versions(versions)?
        .with_root_certificates(roots)
        .with_no_client_auth();
    if !resumption {
        client.resumption = rustls::client::Resumption::disabled();
    }
    super::super::compression::none_client(&mut client);
    let mut server = rustls::ServerConfig::builder_with_provider(crypto)
        .with_protocol_versions(versions)?
        .with_no_client_auth()
        .with_single_cert(
            cert.chain.clone(),
            PrivateKeyDer::Pkcs8(cert.key.clone().into()),
        )?;
    super::super::compression::none_server(&mut server);
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
pub(super) fn connect(
    client: &Arc<rustls::ClientConfig>,
    server: &Arc<rustls::ServerConfig>,
    suite: Suite,
) -> Result<RustlsPair, PairError> {
    let name = ServerName::try_from(SERVER_NAME)?;
    let mut client: rustls::Connection =
        rustls::ClientConnection::new(client.clone(), name)?.into();
    let mut server: rustls::Connection = rustls::ServerConnection::new(server.clone())?.into();
    for _ in 0..16 {
        pump(&mut client, &mut server)?;
        pump(&mut server, &mut client)?;
        if !client.is_handshaking() && !server.is_handshaking() {
            break;
        }
    }
    if client.is_handshaking() || server.is_handshaking() {
        return Err(PairError::Incomplete);
    }
    let got = client
        .negotiated_cipher_suite()
        .map(|s| s.suite())
        .ok_or(PairError::NoSuite)?;
    if got != suite.rustls() {
        return Err(PairError::Negotiated {
            got: format!("{got:?}"),
            want: suite.iana(),
        });
    }
    client.set_buffer_limit(None);
    server.set_buffer_limit(None);
    Ok(RustlsPair { client, server })
}

/// A connected pair for `suite`, resumption off.
pub(super) fn pair(
    provider: Provider,
    suite: Suite,
    cert: &ServerCert,
) -> Result<RustlsPair, PairError> {
    let (c, s) = configs(provider, suite, cert, false)?;
    connect(&c, &s, suite)
}

impl Pair for RustlsPair {
    fn send(&mut self, plain: &[u8], record: usize, wire: &mut Vec<u8>) -> Result<(), PairError> {
        for chunk in plain.chunks(record) {
            self.client.writer().write_all(chunk)?;
        }
        while self.client.wants_write() {
            self.client.write_tls(wire)?;
        }
        Ok(())
    }

    fn receive(&mut self, wire: &[u8], out: &mut [u8]) -> Result<usize, PairError> {
        let mut rd = wire;
        let mut got = 0;
        while !rd.is_empty() {
            self.server.read_tls(&mut rd)?;
            self.server.process_new_packets()?;
            // Read out as it comes: rustls bounds the plaintext it holds.
            loop {
                match self.server.reader().read(&mut out[got..]) {
                    Ok(0) => break,
                    Ok(n) => got += n,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e.into()),
                }
                if got == out.len() {
                    break;
                }
            }
        }
        Ok(got)
    }
}
