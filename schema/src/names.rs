//! The named values of certbench's vocabulary, each defined here once: the TLS stack
//! ([`Transport`]), how the verifier was put into it ([`Hook`]), the chains' keys in a `--pq`
//! run ([`Profile`]), the certificate compression offered ([`CertCompression`]) and the
//! revocation mechanism ([`Mechanism`]). The measuring code, the command line (its value
//! parsers, with the `clap` feature), the run header and the files all use these; each is one
//! word in a file, the word this module spells.
//!
//! Invariants:
//! - a value is written as its [`name`](Name::name), so files are as they always were:
//!   `"transport":"openssl"`;
//! - a value type is closed (`Copy`, matched exhaustively) and reads only its known names; a
//!   sample's configuration holds a [`Named`] instead, which reads any text: a name this
//!   version does not know (a file of a later certbench, or one edited by hand) is kept as
//!   written and written back so, and no file that reads today becomes unreadable;
//! - `Named`'s equality, order and hash are those of the name, as when the field was a
//!   string; a closed type's order is its declaration's (the order tables list them).

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A closed set of names (`named!` adds its impls): its values, and the word each is written as.
pub trait Name: Copy + Eq + fmt::Debug + 'static {
    /// What a value names, for errors (`TLS stack`).
    const WHAT: &'static str;
    /// Every value, in the order tables list them.
    const KNOWN: &'static [Self];
    /// The word in files, in tables and on the command line.
    fn name(self) -> &'static str;
    /// The value `text` names, if any.
    fn from_name(text: &str) -> Result<Self, UnknownName> {
        (Self::KNOWN.iter().copied())
            .find(|v| v.name() == text)
            .ok_or_else(|| UnknownName::of::<Self>(text))
    }
}

/// A word that names no value of a [`Name`] type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{text}` (expected {known})")]
pub struct UnknownName {
    /// What the word should have named (`revocation mechanism`).
    pub what: &'static str,
    /// The word.
    pub text: String,
    /// The known names, comma-separated.
    pub known: String,
}

impl UnknownName {
    /// `text` is no `T`.
    pub fn of<T: Name>(text: &str) -> UnknownName {
        let known: Vec<&str> = T::KNOWN.iter().map(|v| v.name()).collect();
        UnknownName {
            what: T::WHAT,
            text: text.to_owned(),
            known: known.join(", "),
        }
    }
}

/// The impls of a closed enum of names, defined just above it with each variant's
/// `#[cfg_attr(feature = "clap", value(name = …))]` (or `value(skip)`): `Name`, written as its
/// name, read strictly, `Display`, `FromStr`. The match in `name` is exhaustive: a variant
/// without its word does not compile.
macro_rules! named {
    ($name:ident ($what:literal) { $( $variant:ident => $text:literal, )* }) => {
        impl Name for $name {
            const WHAT: &'static str = $what;
            const KNOWN: &'static [$name] = $name::KNOWN;
            fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )*
                }
            }
        }

        impl $name {
            /// Every value, in the order tables list them.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),*];

            /// The word in files, in tables and on the command line.
            pub fn name(self) -> &'static str {
                Name::name(self)
            }
        }

        impl FromStr for $name {
            type Err = UnknownName;
            fn from_str(text: &str) -> Result<$name, UnknownName> {
                $name::from_name(text)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                let text = String::deserialize(d)?;
                $name::from_name(&text).map_err(serde::de::Error::custom)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

pub(crate) use named;

/// A name as a file holds it: a value this version knows, or a word it does not, kept as
/// written (see the module documentation). Equal, ordered and hashed by its word.
#[derive(Clone, Debug)]
pub enum Named<T> {
    /// A known value.
    Known(T),
    /// A word this version does not know.
    Unknown(String),
}

impl<T: Name> Named<T> {
    /// The word as written.
    pub fn as_str(&self) -> &str {
        match self {
            Named::Known(v) => v.name(),
            Named::Unknown(text) => text,
        }
    }

    /// The value, when this version knows it.
    pub fn known(&self) -> Option<T> {
        match self {
            Named::Known(v) => Some(*v),
            Named::Unknown(_) => None,
        }
    }
}

impl<T: Name> From<T> for Named<T> {
    fn from(v: T) -> Named<T> {
        Named::Known(v)
    }
}

/// The one way text becomes a `Named`: a known word never lands in `Unknown`.
impl<T: Name> From<&str> for Named<T> {
    fn from(text: &str) -> Named<T> {
        T::from_name(text).map_or_else(|_| Named::Unknown(text.to_owned()), Named::Known)
    }
}

impl<T: Name> From<String> for Named<T> {
    fn from(text: String) -> Named<T> {
        match T::from_name(&text) {
            Ok(v) => Named::Known(v),
            Err(_) => Named::Unknown(text),
        }
    }
}

impl<T: Name> Serialize for Named<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de, T: Name> Deserialize<'de> for Named<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Named<T>, D::Error> {
        Ok(Named::from(String::deserialize(d)?))
    }
}

impl<T: Name> fmt::Display for Named<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<T: Name> PartialEq for Named<T> {
    fn eq(&self, other: &Named<T>) -> bool {
        self.as_str() == other.as_str()
    }
}

impl<T: Name> PartialEq<T> for Named<T> {
    fn eq(&self, other: &T) -> bool {
        self.as_str() == other.name()
    }
}

/// Equal to its word.
impl<T: Name> PartialEq<&str> for Named<T> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl<T: Name> Eq for Named<T> {}

impl<T: Name> Hash for Named<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl<T: Name> PartialOrd for Named<T> {
    fn partial_cmp(&self, other: &Named<T>) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// By name, as the text was ordered when the field was a string.
impl<T: Name> Ord for Named<T> {
    fn cmp(&self, other: &Named<T>) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// The TLS stack a sample's connection went through: the driver's and the page loader's
/// `--transport`, and either side of a `handshake`. Its doc comments are `--transport`'s
/// help.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Transport {
    /// hyper over OpenSSL (tokio-openssl): the seed's stack, with `--hook`.
    #[cfg_attr(feature = "clap", value(name = "openssl"))]
    Openssl,
    /// hyper over hyper-rustls over rustls (aws-lc-rs): Servo's stack today, with the
    /// method inside a `TimedVerifier`.
    #[cfg_attr(feature = "clap", value(name = "rustls"))]
    Rustls,
    /// QUIC (quinn over quinn-proto, rustls inside, aws-lc-rs) over UDP, the request
    /// HTTP/1.1 on one bidirectional stream: the method inside a `TimedVerifier`, as over
    /// rustls.
    #[cfg_attr(feature = "clap", value(name = "quic"))]
    Quic,
}

named!(Transport ("TLS stack") {
    Openssl => "openssl",
    Rustls => "rustls",
    Quic => "quic",
});

/// How the verifier was put into the TLS stack. `--hook` takes the two a webpki method
/// can be put into OpenSSL with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Hook {
    /// OpenSSL's own verification: the `openssl` method over OpenSSL.
    #[cfg_attr(feature = "clap", value(skip))]
    #[cfg_attr(feature = "clap", value(name = "native"))]
    Native,
    /// `set_verify_callback` at depth 0, after OpenSSL's own verification (the seed's way).
    #[cfg_attr(feature = "clap", value(name = "callback"))]
    Callback,
    /// `SSL_CTX_set_cert_verify_callback`: webpki instead of `X509_verify_cert`.
    #[cfg_attr(feature = "clap", value(name = "replace"))]
    Replace,
    /// A method inside rustls, in certbench's `TimedVerifier` (the rustls transport, a
    /// patched Servo).
    #[cfg_attr(feature = "clap", value(skip))]
    #[cfg_attr(feature = "clap", value(name = "timed-verifier"))]
    TimedVerifier,
}

named!(Hook ("hook") {
    Native => "native",
    Callback => "callback",
    Replace => "replace",
    TimedVerifier => "timed-verifier",
});

/// The keys a chain's certificates get: the chains' keys in a `--pq` run (docs/pq.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Profile {
    /// Each certificate keeps its key type (RSA, ECDSA): today's chains, the baseline
    /// every `--pq` run measures beside its profiles.
    #[cfg_attr(feature = "clap", value(skip))]
    #[cfg_attr(feature = "clap", value(name = "classical"))]
    Classical,
    /// ML-DSA-44 keys throughout (NIST security category 2).
    #[cfg_attr(feature = "clap", value(name = "mldsa44"))]
    MlDsa44,
    /// ML-DSA-65 keys throughout (category 3).
    #[cfg_attr(feature = "clap", value(name = "mldsa65"))]
    MlDsa65,
    /// ML-DSA-87 keys throughout (category 5).
    #[cfg_attr(feature = "clap", value(name = "mldsa87"))]
    MlDsa87,
    /// An ML-DSA-44 leaf under ML-DSA-65 intermediates and root.
    #[cfg_attr(feature = "clap", value(name = "mixed"))]
    Mixed,
    /// A Merkle Tree Certificate (landmark-relative, signatureless) with an ML-DSA-44
    /// key, alone: no intermediate, no signature.
    #[cfg_attr(feature = "clap", value(name = "mtc"))]
    Mtc,
}

named!(Profile ("post-quantum profile") {
    Classical => "classical",
    MlDsa44 => "mldsa44",
    MlDsa65 => "mldsa65",
    MlDsa87 => "mldsa87",
    Mixed => "mixed",
    Mtc => "mtc",
});

impl Profile {
    /// The ML-DSA X.509 profiles (twins of the chains), in the order runs and tables list
    /// them.
    pub const PQ: &'static [Profile] = &[
        Profile::MlDsa44,
        Profile::MlDsa65,
        Profile::MlDsa87,
        Profile::Mixed,
    ];

    /// Every post-quantum profile `--pq` takes: the ML-DSA X.509 ones, then `mtc`.
    pub const ALL_PQ: &'static [Profile] = &[
        Profile::MlDsa44,
        Profile::MlDsa65,
        Profile::MlDsa87,
        Profile::Mixed,
        Profile::Mtc,
    ];

    /// True for the post-quantum profiles.
    pub fn is_pq(self) -> bool {
        self != Profile::Classical
    }
}

/// The certificate compression (RFC 8879) client and server offered (`--compress-certs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum CertCompression {
    /// Brotli (RFC 7932): what Chrome offers, and what rustls recommends.
    #[cfg_attr(feature = "clap", value(name = "brotli"))]
    Brotli,
    /// zlib (RFC 1950).
    #[cfg_attr(feature = "clap", value(name = "zlib"))]
    Zlib,
}

named!(CertCompression ("certificate compression") {
    Brotli => "brotli",
    Zlib => "zlib",
});

/// A revocation mechanism (a sample's `meta.revocation.mechanism`). `--revocation` takes
/// those a rustls method can be given: every one but Chrome's CRLSet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Mechanism {
    /// Chrome's CRLSet: blocked SPKIs and, per issuer SPKI hash, revoked serials; every
    /// certificate of the path (`chrome`).
    #[cfg_attr(feature = "clap", value(skip))]
    #[cfg_attr(feature = "clap", value(name = "crlset"))]
    CrlSet,
    /// CRLite: a clubcard filter held in memory, queried for the end-entity certificate
    /// with its issuer's SPKI hash, its serial and its SCTs (`firefox` as Gecko queries
    /// it; the rustls methods as `clubcard-crlite` gives it to a rustls user).
    #[cfg_attr(feature = "clap", value(name = "crlite"))]
    Crlite,
    /// CRLite as the rustls project's `upki` crate checks it: the filter files read per
    /// check.
    #[cfg_attr(feature = "clap", value(name = "upki"))]
    Upki,
    /// CRLs per issuer, as rustls-webpki checks them (`RevocationOptions`).
    #[cfg_attr(feature = "clap", value(name = "crl"))]
    Crl,
    /// A stapled OCSP response for the end-entity certificate (`gnutls` as
    /// `gnutls_certificate_verify_peers3` checks it; the rustls methods with `x509-ocsp`).
    #[cfg_attr(feature = "clap", value(name = "ocsp"))]
    Ocsp,
}

named!(Mechanism ("revocation mechanism") {
    CrlSet => "crlset",
    Crlite => "crlite",
    Upki => "upki",
    Crl => "crl",
    Ocsp => "ocsp",
});

/// Why a revocation check could not say whether a certificate is revoked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SoftFail {
    /// The data is missing (no CRLSet, no filter, no CRL for the issuer, no stapled
    /// response).
    NoData,
    /// The data is too old to be used (an expired CRLSet, a filter older than the browser
    /// allows, an OCSP response past its nextUpdate where the browser ignores it).
    Stale,
    /// The filter does not cover the certificate (its issuer is not enrolled, or none of
    /// its SCTs is from a log and time the filter covers).
    NotCovered,
}

named!(SoftFail ("soft-fail reason") {
    NoData => "no-data",
    Stale => "stale",
    NotCovered => "not-covered",
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_read_as_their_values_and_write_back_as_read() {
        for (text, hook) in [
            ("native", Hook::Native),
            ("callback", Hook::Callback),
            ("replace", Hook::Replace),
            ("timed-verifier", Hook::TimedVerifier),
        ] {
            let json = format!("\"{text}\"");
            let read: Named<Hook> = serde_json::from_str(&json).unwrap();
            assert_eq!(read.known(), Some(hook));
            assert_eq!(serde_json::from_str::<Hook>(&json).unwrap(), hook);
            assert_eq!(serde_json::to_string(&read).unwrap(), json);
            assert_eq!(serde_json::to_string(&hook).unwrap(), json);
        }
        assert_eq!(Hook::KNOWN.len(), 4);
        for p in Profile::KNOWN {
            assert_eq!(p.name().parse::<Profile>(), Ok(*p));
            assert_eq!(Named::<Profile>::from(p.to_string()).known(), Some(*p));
        }
        assert_eq!("rustls".parse(), Ok(Transport::Rustls));
        assert_eq!("crlset".parse(), Ok(Mechanism::CrlSet));
        assert_eq!(SoftFail::NotCovered.name(), "not-covered");
        assert_eq!(CertCompression::KNOWN.len(), 2);
    }

    #[test]
    fn unknown_names_are_an_error_for_a_value_and_kept_as_written_in_a_file() {
        let e = "quiche".parse::<Transport>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown TLS stack `quiche` (expected openssl, rustls, quic)"
        );
        assert!(serde_json::from_str::<Mechanism>(r#""ocsp2""#).is_err());
        let read: Named<Transport> = serde_json::from_str(r#""quiche""#).unwrap();
        assert_eq!(read, Named::Unknown("quiche".into()));
        assert_eq!(serde_json::to_string(&read).unwrap(), r#""quiche""#);
        // Equality and order are the name's, whichever variant holds it.
        assert_eq!(Named::Unknown("native".into()), Named::Known(Hook::Native));
        assert_eq!(Named::from(Hook::Native), Hook::Native);
        let (mixed, mldsa44) = (Named::from(Profile::Mixed), Named::from(Profile::MlDsa44));
        assert!(mixed < mldsa44 && mldsa44 < Named::<Profile>::Unknown("zz".into()));
        // A closed type is ordered as declared: the order tables list them.
        assert!(Profile::MlDsa44 < Profile::Mixed && Transport::Openssl < Transport::Rustls);
    }
}
