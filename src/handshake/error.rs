//! What can go wrong in `certbench handshake`: setting a run up ([`HandshakeError`]), and
//! one counted handshake ([`HandshakeFailure`]: counted, never raised).

/// What can go wrong setting a run up (handshake failures are counted, not raised).
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    /// Generating the certificate.
    #[error("generating the server certificate: {0}")]
    Cert(#[from] crate::certs::ca::GenError),
    /// OpenSSL setup.
    #[error("OpenSSL: {0}")]
    Openssl(#[from] openssl::error::ErrorStack),
    /// rustls setup.
    #[error("rustls: {0}")]
    Rustls(#[from] rustls::Error),
    /// Sockets, threads, runtime.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A client's first, uncounted handshake (resumed runs).
    #[error(transparent)]
    Handshake(#[from] HandshakeFailure),
    /// Generating a sweep's certificate (the generator's own message, as the command always
    /// said).
    #[error(transparent)]
    Generate(crate::certs::ca::GenError),
    /// Finding or running this executable (`--hold`'s child processes).
    #[error(transparent)]
    Exec(std::io::Error),
    /// A child's memory runs (`--hold`) that do not read as their record file.
    #[error("the child's memory runs: {0}")]
    Records(#[from] certbench_schema::records::ReadError),
    /// A QUIC side: `handshake` measures TLS over TCP (QUIC is the driver's,
    /// `--transport quic`).
    #[error(
        "the handshake command measures TLS over TCP: QUIC is measured by the driver's --transport quic"
    )]
    NoQuic,
    /// Anything else.
    #[error("{0}")]
    Setup(String),
}

/// Why one counted handshake failed (counted, the first one kept as text). The message says
/// it all: no variant has a `source`, so an error chain prints it once.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeFailure {
    /// The TCP connection.
    #[error("connect: {0}")]
    Connect(std::io::Error),
    /// Setting up the client's TLS connection.
    #[error("tls: {0}")]
    Setup(openssl::error::ErrorStack),
    /// The server name.
    #[error("tls: {0}")]
    Name(rustls_pki_types::InvalidDnsNameError),
    /// OpenSSL's handshake.
    #[error("tls handshake: {0}")]
    Openssl(openssl::ssl::Error),
    /// rustls' handshake.
    #[error("tls handshake: {0}")]
    Rustls(std::io::Error),
}
