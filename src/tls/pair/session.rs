//! What both stacks of the in-memory pair implement: one session past its handshake
//! ([`Pair`]), and why a pair could not be set up, connected or used ([`PairError`], each
//! message the library's own).

/// Why a pair could not be set up, connected or used. Each message is the library's own.
#[derive(Debug, thiserror::Error)]
pub enum PairError {
    /// The provider does not implement the suite.
    #[error("{0} is not offered by this provider")]
    NotOffered(&'static str),
    /// rustls refused.
    #[error("{0}")]
    Rustls(#[from] ::rustls::Error),
    /// OpenSSL's setup failed.
    #[error("{0}")]
    Openssl(#[from] ::openssl::error::ErrorStack),
    /// An OpenSSL handshake, read or write failed.
    #[error("{0}")]
    Ssl(::openssl::ssl::Error),
    /// Moving records failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The server name is not a DNS name.
    #[error("{0}")]
    Name(#[from] rustls_pki_types::InvalidDnsNameError),
    /// The handshake did not finish within its rounds.
    #[error("the handshake did not complete")]
    Incomplete,
    /// The client knows of no suite after the handshake.
    #[error("no cipher suite negotiated")]
    NoSuite,
    /// Another suite than the one asked for was negotiated.
    #[error("negotiated {got}, not {want}")]
    Negotiated {
        /// What the client reports.
        got: String,
        /// The IANA name asked for.
        want: &'static str,
    },
    /// Application data arrived where only session tickets were expected.
    #[error("unexpected application data")]
    UnexpectedData,
}

/// The two ends of one session, past the handshake.
pub trait Pair {
    /// Encrypts `plain` (in records of `record` bytes) into `wire`.
    fn send(&mut self, plain: &[u8], record: usize, wire: &mut Vec<u8>) -> Result<(), PairError>;
    /// Decrypts `wire` into `out`; returns the plaintext bytes read.
    fn receive(&mut self, wire: &[u8], out: &mut [u8]) -> Result<usize, PairError>;
}
