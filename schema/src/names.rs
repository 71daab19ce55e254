//! The named values of a sample's configuration ([`crate::Config`]): the TLS stack
//! ([`Transport`]), how the verifier was put into it ([`Hook`]) and the chains' keys in a
//! `--pq` run ([`Profile`]). Each is one word in the file, the word this module spells.
//!
//! Invariants:
//! - a value is written as the name [`as_str`](Transport::as_str) gives, so files are as they
//!   always were: `"transport":"openssl"`;
//! - any text reads: a name this version does not know (a file of a later certbench, or one
//!   edited by hand) becomes `Unknown(text)` and is written back as it was read, so no file
//!   that reads today becomes unreadable;
//! - `From<&str>`/`From<String>` are the one way text becomes a value: a known name never
//!   lands in `Unknown`. Equality, order and hash are those of the name, so even an
//!   `Unknown` built by hand with a known name equals that name's variant.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize, Serializer};

/// Defines an enum of known names plus `Unknown(String)`, written as its name.
macro_rules! named {
    (
        $(#[$doc:meta])*
        $name:ident {
            $( $(#[$vdoc:meta])* $variant:ident => $text:literal, )*
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Deserialize)]
        #[serde(from = "String")]
        pub enum $name {
            $( $(#[$vdoc])* $variant, )*
            /// A name this version does not know, kept as written (see the module
            /// documentation).
            Unknown(String),
        }

        impl $name {
            /// Every known value, in the order tables list them.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),*];

            /// The name in the file, in tables and on the command line.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )*
                    $name::Unknown(text) => text,
                }
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> $name {
                match text {
                    $( $text => $name::$variant, )*
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> $name {
                match $name::from(text.as_str()) {
                    $name::Unknown(_) => $name::Unknown(text),
                    known => known,
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &$name) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl Eq for $name {}

        impl Hash for $name {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.as_str().hash(state)
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &$name) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }

        /// By name, as the text was ordered when the field was a string.
        impl Ord for $name {
            fn cmp(&self, other: &$name) -> Ordering {
                self.as_str().cmp(other.as_str())
            }
        }
    };
}

named! {
    /// The TLS stack a sample's connection went through (`--transport`).
    Transport {
        /// hyper over OpenSSL (tokio-openssl).
        Openssl => "openssl",
        /// hyper over hyper-rustls over rustls: Servo's stack.
        Rustls => "rustls",
    }
}

named! {
    /// How the verifier was put into the TLS stack.
    Hook {
        /// OpenSSL's own verification: the `openssl` method over OpenSSL.
        Native => "native",
        /// A method after OpenSSL's own verification, in `set_verify_callback` (`--hook
        /// callback`, the seed's way).
        Callback => "callback",
        /// A method instead of OpenSSL's verification (`--hook replace`).
        Replace => "replace",
        /// A method inside rustls, in certbench's `TimedVerifier` (the rustls transport, a
        /// patched Servo).
        TimedVerifier => "timed-verifier",
    }
}

named! {
    /// The chains' keys in a `--pq` run (docs/pq.md).
    Profile {
        /// The chains as they are: the baseline every `--pq` run measures beside its twins.
        Classical => "classical",
        /// ML-DSA-44 keys throughout.
        MlDsa44 => "mldsa44",
        /// ML-DSA-65 keys throughout.
        MlDsa65 => "mldsa65",
        /// ML-DSA-87 keys throughout.
        MlDsa87 => "mldsa87",
        /// An ML-DSA-44 leaf under ML-DSA-65 intermediates and root.
        Mixed => "mixed",
        /// A Merkle Tree Certificate (landmark-relative) with an ML-DSA-44 key, served alone.
        Mtc => "mtc",
    }
}

named! {
    /// The certificate compression (RFC 8879) client and server offered (`--compress-certs`).
    CertCompression {
        /// Brotli (RFC 7932): what Chrome offers, and what rustls recommends.
        Brotli => "brotli",
        /// zlib (RFC 1950).
        Zlib => "zlib",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_read_as_their_variants_and_write_back_as_read() {
        for (text, hook) in [
            ("native", Hook::Native),
            ("callback", Hook::Callback),
            ("replace", Hook::Replace),
            ("timed-verifier", Hook::TimedVerifier),
        ] {
            let json = format!("\"{text}\"");
            let read: Hook = serde_json::from_str(&json).unwrap();
            assert!(!matches!(read, Hook::Unknown(_)), "{text}");
            assert_eq!(read, hook);
            assert_eq!(serde_json::to_string(&read).unwrap(), json);
        }
        assert_eq!(Hook::KNOWN.len(), 4);
        for p in Profile::KNOWN {
            assert_eq!(Profile::from(p.as_str()), *p);
            assert!(!matches!(Profile::from(p.to_string()), Profile::Unknown(_)));
        }
        assert!(matches!(Transport::from("rustls"), Transport::Rustls));
        assert_eq!(CertCompression::from("brotli"), CertCompression::Brotli);
        assert_eq!(CertCompression::KNOWN.len(), 2);
    }

    #[test]
    fn unknown_names_read_and_are_kept_as_written() {
        let read: Transport = serde_json::from_str(r#""quic""#).unwrap();
        assert_eq!(read, Transport::Unknown("quic".into()));
        assert_eq!(serde_json::to_string(&read).unwrap(), r#""quic""#);
        // Equality and order are the name's, whichever variant holds it.
        assert_eq!(Hook::Unknown("native".into()), Hook::Native);
        assert!(Profile::Mixed < Profile::MlDsa44 && Profile::MlDsa87 < Profile::from("zz"));
        assert!(Transport::Openssl < Transport::Rustls);
    }
}
