//! The timed stages: each a name in tables, JSON and on the command line, in one order (the
//! tables' columns). Invariants every producer keeps (see [`crate::Sample`]): a stage value is
//! integer nanoseconds from a monotonic clock; a stage is present only if the method really
//! has it; nested stages are measured inside their parents.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

macro_rules! stages {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, )*) => {
        /// A timed stage, named as in the 2017 Servo experiment.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Stage {
            $( $(#[$doc])* #[serde(rename = $name)] $variant, )*
        }

        impl Stage {
            /// Every stage, in table-column order.
            pub const ALL: &'static [Stage] = &[$(Stage::$variant),*];

            /// The stage's name in tables, JSON and on the command line.
            pub fn name(self) -> &'static str {
                match self { $(Stage::$variant => $name),* }
            }
        }
    };
}

stages! {
    /// A native library's start-up, once per process, in the sample that first needed it
    /// (`firefox`: NSS's `NSS_NoDB_Init`): kept out of `roots-creation`, which it would
    /// otherwise inflate in that one sample. Not part of `total-verification`.
    LibraryInit => "library-init",
    /// Revocation data loaded (read, mapped or parsed: the CRLSet, the CRLite filter, the
    /// CRLs), once per process, in the sample whose check first needed it: the cold cost of
    /// `--revocation`, kept apart from the per-connection `revocation` stage. Not part of
    /// `total-verification`. The sample's `revocation` says how many bytes stay resident.
    RevocationLoad => "revocation-load",
    /// Building the verifier's trust store from root certificates (cold), or `0` when cached.
    RootsCreation => "roots-creation",
    /// Building the HTTP client/connector (driver only).
    HttpConnectorCreation => "http-connector-creation",
    /// OpenSSL's own `X509_verify_cert` inside the handshake, when a webpki method is hooked
    /// in through `set_verify_callback` (the seed's way): what that variant pays on top of
    /// webpki. The time of the nested callback is not included.
    OpenSslVerify => "openssl-verify",
    /// The server's compressed Certificate message (RFC 8879 CompressedCertificate) inflated
    /// back into its Certificate message by the client (`--compress-certs`: brotli or zlib, as
    /// the sample's `config.compression` says), inside the handshake, before verification.
    /// Present only when the server sent its certificates compressed. Not part of
    /// `total-verification`.
    CertDecompression => "cert-decompression",
    /// Converting the chain into the verifier's own form (DER → X509 for OpenSSL; X509 → DER, or
    /// parsing the end-entity DER, for webpki).
    ChainCreation => "chain-creation",
    /// The browser's EV attempt (`chrome`, `firefox`), for a leaf that asserts a policy of the
    /// browser's EV table: a path built under that policy to a root the table lists for it.
    /// When it finds one the chain is accepted as EV and no `verify` follows; otherwise
    /// `verify` is the browser's DV fallback (the sample's `ev` says which). For a leaf with no
    /// EV policy the browser's check of its policies is counted in `verify`.
    EvAttempt => "ev-attempt",
    /// The verify call itself (path building, signatures, validity, usage).
    Verify => "verify",
    /// Certificate Transparency (`--ct`): the SCTs embedded in the end-entity certificate (and
    /// any from TLS) parsed, each signature checked against its log's key over the entry
    /// rebuilt, and the CT policy applied (`chrome`, `firefox`: the browser's own code; the
    /// rustls methods: certbench's on rustls' crypto provider, Chrome's policy). The sample's
    /// `ct` counts the SCTs.
    Ct => "ct",
    /// Revocation (`--revocation`), after the path is verified: `chrome` Chrome's CRLSet for
    /// every certificate of the path, `firefox` CRLite for the end entity as Gecko queries it,
    /// `gnutls` the stapled OCSP response as GnuTLS checks it, the rustls methods the
    /// mechanism asked for (`crl`, `crlite`, `upki`, `ocsp`). Data already loaded (see
    /// `revocation-load`); the sample's `revocation` says what was found.
    Revocation => "revocation",
    /// The hostname check, where the method does it apart from `verify`.
    VerifyHostname => "verify-hostname",
    /// The server's CertificateVerify (TLS 1.3; the ServerKeyExchange signature in TLS 1.2):
    /// the handshake's signature checked with the leaf's key (RSA, ECDSA, or a twin's ML-DSA),
    /// through the verifier's `verify_tls13_signature`, after the chain was verified (rustls
    /// transport). A proof of the key, not a check of the chain: not part of
    /// `total-verification`.
    CertificateVerify => "certificate-verify",
    /// The driver: TCP connect + TLS handshake + request to the first byte of the response. A
    /// patched Servo's connector: the whole connection, `connect` + `handshake`.
    Connection => "connection",
    /// The driver: the rest of the response after its head, to its last byte (a page-sized
    /// response of the mirror's, `/bytes/N`): after `connection`, not part of `total`.
    Response => "response",
    /// Name resolution + TCP connect + any proxy tunnel, up to the TCP stream a TLS handshake
    /// starts on (a patched Servo's connector: the call to its inner connector's stream).
    Connect => "connect",
    /// The TLS handshake alone, from the TCP stream to the handshake's end (a patched Servo's
    /// connector; `connect` before it). A sample without `connect` did not mark the stream's
    /// arrival: its whole connection is in `connection` instead.
    Handshake => "handshake",
    /// A patched Servo's page load so far: from its document fetch's start to the response
    /// headers of one of its fetches (the page's latest is its network time, not rendering).
    PageLoad => "page-load",
    /// Everything the verifier does for one chain: chain-creation + ev-attempt + verify + ct +
    /// revocation + verify-hostname.
    TotalVerification => "total-verification",
    /// The whole sample.
    Total => "total",
}

impl Stage {
    /// Number of stages (length of [`Stage::ALL`]).
    pub const COUNT: usize = Stage::ALL.len();

    /// Position of the stage in [`Stage::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Stage {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Stage::ALL
            .iter()
            .copied()
            .find(|st| st.name() == s)
            .ok_or_else(|| format!("unknown stage `{s}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_names_round_trip() {
        for &s in Stage::ALL {
            assert_eq!(s.name().parse::<Stage>().unwrap(), s);
            assert_eq!(Stage::ALL[s.index()], s);
        }
        assert_eq!(Stage::TotalVerification.name(), "total-verification");
        assert_eq!(
            "verify-host".parse::<Stage>(),
            Err("unknown stage `verify-host`".into())
        );
    }
}
