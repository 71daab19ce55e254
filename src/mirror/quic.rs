//! The mirror over QUIC (`--transport quic`): quinn's server endpoint on a loopback UDP port,
//! with the mirror's rustls configuration ([`super::server::rustls_config`]: each host's chain
//! by SNI, the post-quantum twins' ML-DSA keys, X25519MLKEM768 preferred, compression as
//! asked), ALPN `h3`, and the same HTTP/1.1 answers as over TCP on each bidirectional stream
//! a client opens ([`crate::transport::quic`] says why HTTP/1.1).
//!
//! The server starts at the client's datagram size ([`crate::transport::quic::transport_config`]),
//! so that its first flight is counted in datagrams of that size; quinn enforces QUIC's
//! amplification limit itself (RFC 9000 §8.1: until the client's address is validated, at
//! most 3× the bytes received; quinn lets a datagram leave while any of the budget is left,
//! so a flight is held exactly at 3× when its datagrams are the client's size).
//!
//! The connection-fault hosts of the TCP mirror ([`super::faults`]) have no QUIC form: over
//! QUIC every host is served.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use certbench_schema::wire::QuicClient;
use tokio::task::JoinHandle;

use super::MirrorSet;
use super::server::{StartError, http, rustls_config};
use crate::tls::compression::CertCompression;
use crate::transport::quic::{ALPN, transport_config};

/// A running QUIC mirror: it stops serving when dropped.
pub struct QuicMirror {
    /// Its UDP address.
    pub addr: SocketAddr,
    endpoint: quinn::Endpoint,
    task: JoinHandle<()>,
}

impl Drop for QuicMirror {
    fn drop(&mut self) {
        self.endpoint.close(0u32.into(), b"mirror stopped");
        self.task.abort();
    }
}

/// The server configuration of `set` over QUIC for `client`'s datagrams.
pub fn server_config(
    set: &MirrorSet,
    compression: Option<&CertCompression>,
    client: QuicClient,
) -> Result<quinn::ServerConfig, StartError> {
    let mut tls = rustls_config(set, compression)?;
    tls.alpn_protocols = vec![ALPN.to_vec()];
    tls.max_early_data_size = 0;
    let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(tls)?;
    let mut config = quinn::ServerConfig::with_crypto(Arc::new(crypto));
    config.transport_config(Arc::new(transport_config(client)));
    Ok(config)
}

impl QuicMirror {
    /// Serves `set` on a free loopback UDP port (on the current tokio runtime).
    pub fn start(
        set: &MirrorSet,
        compression: Option<&CertCompression>,
        client: QuicClient,
    ) -> Result<QuicMirror, StartError> {
        Self::start_with(server_config(set, compression, client)?)
    }

    /// Serves `config` on a free loopback UDP port (on the current tokio runtime).
    pub fn start_with(config: quinn::ServerConfig) -> Result<QuicMirror, StartError> {
        let bind = SocketAddr::from((Ipv4Addr::LOCALHOST, 0));
        let endpoint = quinn::Endpoint::server(config, bind).map_err(StartError::QuicBind)?;
        let addr = endpoint.local_addr().map_err(StartError::QuicBind)?;
        let accepting = endpoint.clone();
        let task = tokio::spawn(async move {
            while let Some(incoming) = accepting.accept().await {
                tokio::spawn(async move {
                    if let Ok(conn) = incoming.await {
                        serve(conn).await;
                    }
                });
            }
        });
        Ok(QuicMirror {
            addr,
            endpoint,
            task,
        })
    }
}

/// One connection: each stream the client opens gets the mirror's HTTP/1.1 answers.
async fn serve(conn: quinn::Connection) {
    let host = conn
        .handshake_data()
        .and_then(|d| d.downcast::<quinn::crypto::rustls::HandshakeData>().ok())
        .and_then(|d| d.server_name)
        .unwrap_or_default();
    while let Ok((send, recv)) = conn.accept_bi().await {
        tokio::spawn(http(tokio::io::join(recv, send), host.clone()));
    }
}
