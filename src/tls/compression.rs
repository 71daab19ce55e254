//! Certificate compression (RFC 8879, `--compress-certs`) in the rustls configurations
//! certbench builds: the mirror's server compresses its Certificate message with the one
//! algorithm asked for, the driver's client offers to decompress it ([`client`]), through a
//! decompressor leased from `certbench-core` that times it (`cert-decompression`).
//!
//! Invariant: rustls, built with its `brotli` and `zlib` features, would offer both in every
//! configuration by default; every configuration certbench builds sets its compressors and
//! decompressors here ([`server`], [`client`], [`none_client`], [`none_server`]), so nothing
//! is compressed unless a run asked for it.

use std::sync::Arc;

use certbench_core::decompress::{Decompressions, Lease, lease};
pub use certbench_schema::CertCompression;
use rustls::compress::{CertCompressor, CertDecompressor};

/// rustls' compressor for `alg`.
pub fn compressor(alg: &CertCompression) -> &'static dyn CertCompressor {
    match alg {
        CertCompression::Brotli => rustls::compress::BROTLI_COMPRESSOR,
        CertCompression::Zlib => rustls::compress::ZLIB_COMPRESSOR,
    }
}

/// rustls' decompressor for `alg`.
pub fn decompressor(alg: &CertCompression) -> &'static dyn CertDecompressor {
    match alg {
        CertCompression::Brotli => rustls::compress::BROTLI_DECOMPRESSOR,
        CertCompression::Zlib => rustls::compress::ZLIB_DECOMPRESSOR,
    }
}

/// A server configuration compressing its certificates with `alg` only, or not at all; it
/// decompresses no client certificate (certbench's servers ask for none).
pub fn server(config: &mut rustls::ServerConfig, alg: Option<&CertCompression>) {
    config.cert_compressors = alg.map(compressor).into_iter().collect();
    config.cert_decompressors = Vec::new();
}

/// A server configuration that compresses nothing.
pub fn none_server(config: &mut rustls::ServerConfig) {
    server(config, None);
}

/// A client configuration that offers no certificate compression and sends its own (none)
/// uncompressed.
pub fn none_client(config: &mut rustls::ClientConfig) {
    config.cert_decompressors = Vec::new();
    config.cert_compressors = Vec::new();
}

/// What a client holds to decompress one connection's certificates with `alg`, timed: keep
/// it as long as the configuration it was put into ([`client`]).
#[derive(Debug, Clone)]
pub struct Timed {
    /// The lease of the timing decompressor.
    pub lease: Arc<Lease>,
    /// Where it records each decompression (take it after the handshake).
    pub record: Arc<Decompressions>,
}

/// A client configuration offering `inner`'s algorithm only, decompressing through a timed
/// decompressor (returned: keep it with the configuration), or offering none.
pub fn client(
    config: &mut rustls::ClientConfig,
    inner: Option<&'static dyn CertDecompressor>,
) -> Option<Timed> {
    none_client(config);
    let inner = inner?;
    let record = Arc::new(Decompressions::default());
    let lease = Arc::new(lease(inner, record.clone()));
    config.cert_decompressors = vec![lease.decompressor()];
    Some(Timed { lease, record })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_each_has_both_directions() {
        for alg in CertCompression::KNOWN {
            assert_eq!(alg.name().parse::<CertCompression>().unwrap(), *alg);
            let (c, d) = (compressor(alg), decompressor(alg));
            assert_eq!(c.algorithm(), d.algorithm());
            let input = b"certificate certificate certificate certificate".to_vec();
            let packed = c
                .compress(input.clone(), rustls::compress::CompressionLevel::Amortized)
                .unwrap();
            assert!(packed.len() < input.len(), "{alg}");
            let mut out = vec![0u8; input.len()];
            d.decompress(&packed, &mut out).unwrap();
            assert_eq!(out, input);
        }
        assert!("zstd".parse::<CertCompression>().is_err());
    }
}
