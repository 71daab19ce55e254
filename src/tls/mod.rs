//! The TLS vocabulary every TLS command shares — one type per idea (the stack itself, OpenSSL or
//! rustls, is the schema's [`certbench_schema::Transport`]): rustls' crypto [`Provider`], a [`TlsLibrary`] (a stack on its crypto, what `bulk` and
//! `icount` compare), the protocol [`Version`], the server's [`KeyType`] and a cipher
//! [`Suite`] — with the in-memory client–server pair ([`pair`]); the test certificates are
//! made in [`crate::certs::test`].
//!
//! Invariant: a name printed in tables, JSON and on the command line is the one `name()`
//! (or `Display`) gives here; no other module spells a version, stack or provider.

pub mod compression;
pub mod pair;

use std::sync::Arc;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// `provider` with X25519MLKEM768 first among its key exchange groups: a client then sends
/// its key share (with X25519's, as rustls does for it), as Chrome (131 on) and Firefox (132
/// on) do, and a server picks it when a client offers it. What `--pq` runs use on both sides.
pub fn hybrid_first(
    mut provider: rustls::crypto::CryptoProvider,
) -> rustls::crypto::CryptoProvider {
    let hybrid = rustls::NamedGroup::X25519MLKEM768;
    provider.kx_groups.sort_by_key(|g| g.name() != hybrid);
    provider
}

/// The rustls crypto provider (`handshake --provider`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Provider {
    /// aws-lc-rs (the default).
    AwsLcRs,
    /// ring.
    Ring,
}

impl Provider {
    /// The name on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Provider::AwsLcRs => "aws-lc-rs",
            Provider::Ring => "ring",
        }
    }

    /// The provider.
    pub fn crypto(self) -> Arc<rustls::crypto::CryptoProvider> {
        Arc::new(match self {
            Provider::AwsLcRs => rustls::crypto::aws_lc_rs::default_provider(),
            Provider::Ring => rustls::crypto::ring::default_provider(),
        })
    }

    /// The provider's session-ticket encrypter.
    pub fn ticketer(self) -> Result<Arc<dyn rustls::server::ProducesTickets>, rustls::Error> {
        match self {
            Provider::AwsLcRs => rustls::crypto::aws_lc_rs::Ticketer::new(),
            Provider::Ring => rustls::crypto::ring::Ticketer::new(),
        }
    }
}

/// A stack on its crypto, as `bulk --stack` and `icount --stack` name it: OpenSSL, or rustls
/// on one [`Provider`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlsLibrary {
    /// OpenSSL (rust-openssl), the system's library.
    Openssl,
    /// rustls on a provider.
    Rustls(Provider),
}

impl TlsLibrary {
    /// Every library, in the command line's order.
    pub const ALL: [TlsLibrary; 3] = [
        TlsLibrary::Openssl,
        TlsLibrary::Rustls(Provider::AwsLcRs),
        TlsLibrary::Rustls(Provider::Ring),
    ];

    /// The name on the command line and in results (`rustls-aws-lc-rs`).
    pub fn name(self) -> &'static str {
        match self {
            TlsLibrary::Openssl => "openssl",
            TlsLibrary::Rustls(Provider::AwsLcRs) => "rustls-aws-lc-rs",
            TlsLibrary::Rustls(Provider::Ring) => "rustls-ring",
        }
    }

    /// The library and its version (`OpenSSL 3.0.13`, `rustls 0.23.x`).
    pub fn version(self) -> String {
        match self {
            TlsLibrary::Openssl => format!("OpenSSL {}", certbench_core::versions::openssl()),
            TlsLibrary::Rustls(_) => {
                format!("rustls {}", certbench_core::versions::locked("rustls"))
            }
        }
    }
}

impl clap::ValueEnum for TlsLibrary {
    fn value_variants<'a>() -> &'a [Self] {
        &TlsLibrary::ALL
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            TlsLibrary::Openssl => "OpenSSL (rust-openssl), the system's library",
            TlsLibrary::Rustls(Provider::AwsLcRs) => "rustls with aws-lc-rs",
            TlsLibrary::Rustls(Provider::Ring) => "rustls with ring",
        };
        Some(PossibleValue::new(self.name()).help(help))
    }
}

/// A TLS version (both sides are held to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// TLS 1.2.
    V12,
    /// TLS 1.3.
    V13,
}

impl Version {
    /// The name on the command line and in results (`1.2`, `1.3`).
    pub fn name(self) -> &'static str {
        match self {
            Version::V12 => "1.2",
            Version::V13 => "1.3",
        }
    }

    /// clap's parser for `--tls`: the values `1.2` and `1.3`, with `help_12` as 1.2's help
    /// (each command says what 1.2 means for it) and "TLS 1.3" as 1.3's.
    pub fn value_parser(help_12: &'static str) -> impl TypedValueParser<Value = Version> {
        PossibleValuesParser::new([
            PossibleValue::new("1.2").help(help_12),
            PossibleValue::new("1.3").help("TLS 1.3"),
        ])
        .map(|s| {
            if s == "1.2" {
                Version::V12
            } else {
                Version::V13
            }
        })
    }

    /// OpenSSL's constant for it.
    pub fn openssl(self) -> openssl::ssl::SslVersion {
        match self {
            Version::V12 => openssl::ssl::SslVersion::TLS1_2,
            Version::V13 => openssl::ssl::SslVersion::TLS1_3,
        }
    }

    /// rustls' versions for it (just the one).
    pub fn rustls(self) -> &'static [&'static rustls::SupportedProtocolVersion] {
        static V12: [&rustls::SupportedProtocolVersion; 1] = [&rustls::version::TLS12];
        static V13: [&rustls::SupportedProtocolVersion; 1] = [&rustls::version::TLS13];
        match self {
            Version::V12 => &V12,
            Version::V13 => &V13,
        }
    }
}

/// The server's key type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyType {
    /// RSA 2048.
    Rsa2048,
    /// ECDSA P-256.
    P256,
    /// ECDSA P-384.
    P384,
}

impl std::fmt::Display for KeyType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KeyType::Rsa2048 => "rsa2048",
            KeyType::P256 => "p256",
            KeyType::P384 => "p384",
        })
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

/// One cipher suite: version, cipher and (for TLS 1.2) the key's authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suite {
    /// The version.
    pub tls: Version,
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
            (Version::V13, Aes128gcm, _) => "TLS_AES_128_GCM_SHA256",
            (Version::V13, Aes256gcm, _) => "TLS_AES_256_GCM_SHA384",
            (Version::V13, Chacha20, _) => "TLS_CHACHA20_POLY1305_SHA256",
            (Version::V12, Aes128gcm, false) => "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            (Version::V12, Aes256gcm, false) => "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            (Version::V12, Chacha20, false) => "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            (Version::V12, Aes128gcm, true) => "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            (Version::V12, Aes256gcm, true) => "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            (Version::V12, Chacha20, true) => "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        }
    }

    /// OpenSSL's name for it (TLS 1.3 names are IANA's).
    pub fn openssl(self) -> &'static str {
        use Cipher::*;
        match (self.tls, self.cipher, self.rsa()) {
            (Version::V13, ..) => self.iana(),
            (Version::V12, Aes128gcm, false) => "ECDHE-ECDSA-AES128-GCM-SHA256",
            (Version::V12, Aes256gcm, false) => "ECDHE-ECDSA-AES256-GCM-SHA384",
            (Version::V12, Chacha20, false) => "ECDHE-ECDSA-CHACHA20-POLY1305",
            (Version::V12, Aes128gcm, true) => "ECDHE-RSA-AES128-GCM-SHA256",
            (Version::V12, Aes256gcm, true) => "ECDHE-RSA-AES256-GCM-SHA384",
            (Version::V12, Chacha20, true) => "ECDHE-RSA-CHACHA20-POLY1305",
        }
    }

    /// rustls' identifier for it.
    pub fn rustls(self) -> rustls::CipherSuite {
        use Cipher::*;
        use rustls::CipherSuite as C;
        match (self.tls, self.cipher, self.rsa()) {
            (Version::V13, Aes128gcm, _) => C::TLS13_AES_128_GCM_SHA256,
            (Version::V13, Aes256gcm, _) => C::TLS13_AES_256_GCM_SHA384,
            (Version::V13, Chacha20, _) => C::TLS13_CHACHA20_POLY1305_SHA256,
            (Version::V12, Aes128gcm, false) => C::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
            (Version::V12, Aes256gcm, false) => C::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
            (Version::V12, Chacha20, false) => C::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
            (Version::V12, Aes128gcm, true) => C::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
            (Version::V12, Aes256gcm, true) => C::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
            (Version::V12, Chacha20, true) => C::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        }
    }
}
