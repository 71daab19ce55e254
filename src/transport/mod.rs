//! TLS stacks the driver connects through. One file per stack.

pub mod openssl;
pub mod rustls;

/// The TLS stack of a driver run (`--transport`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    /// hyper over OpenSSL (tokio-openssl): the seed's stack, with `--hook`.
    Openssl,
    /// hyper over hyper-rustls over rustls (aws-lc-rs): Servo's stack today, with the
    /// method inside a `TimedVerifier`.
    Rustls,
}

impl Transport {
    /// The name on the command line and in samples.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Openssl => "openssl",
            Transport::Rustls => "rustls",
        }
    }
}
