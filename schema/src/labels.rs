//! The free-text values of a sample's configuration ([`crate::Config`]): what the measuring
//! side states about OpenSSL's policy ([`OpensslPolicy`]), the emulated link ([`Link`]), the CT
//! log list ([`CtLogList`]) and the revocation data ([`RevocationSource`]). The analysis shows
//! them and compares them whole (two samples with different texts are never averaged
//! together); it reads no part of them back, except a revocation text's mechanism.
//!
//! Invariants: each is a string in the file (`serde(transparent)`), so files are as they
//! always were and any text reads; equality, order and hash are the text's; each derefs to
//! its text (`config.link.as_deref()` is the `Option<&str>` it always was).

use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// Defines a documented newtype over the text a configuration field holds.
macro_rules! label {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// The text, as written in the file.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> $name {
                $name(text)
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> $name {
                $name(text.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(label: $name) -> String {
                label.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

label! {
    /// OpenSSL's verification policy as the `openssl` method states it
    /// (`certbench_core::methods::openssl::OpenSslVerifier::policy`): its flags, auth level
    /// and purpose, e.g. `X509_STRICT, PARTIAL_CHAIN, auth level 2, purpose sslserver,
    /// NO_PARTIAL_WILDCARDS`.
    OpensslPolicy
}

label! {
    /// The emulated link between client and mirror (`--link`) as its model states it
    /// (`certbench::link::LinkSpec`'s `Display`), e.g. `RTT 40 ms, 50 Mbit/s, IW 10 × 1460 B`.
    Link
}

label! {
    /// The Certificate Transparency log list a check ran against, its size and origin
    /// (`certbench_core::ct::CtLogs::label`), e.g. `28 logs of corpus/ct-logs`.
    CtLogList
}

label! {
    /// The revocation mechanism and its data, with their size and origin
    /// (`certbench_core::revocation::RevocationData::label`), written `mechanism: data`, e.g.
    /// `crlite: 6.1 MB of certbench revocation data` or `ocsp: the response stapled`.
    RevocationSource
}

impl RevocationSource {
    /// The mechanism the text names (`crlset`, `crlite`, `upki`, `crl`, `ocsp`): what comes
    /// before its first `: `, or the whole text when it has none.
    pub fn mechanism(&self) -> &str {
        self.0.split_once(": ").map_or(&self.0, |(m, _)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_their_text_in_the_file() {
        let link = Link::from("RTT 40 ms, IW 10 × 1460 B");
        let json = serde_json::to_string(&link).unwrap();
        assert_eq!(json, r#""RTT 40 ms, IW 10 × 1460 B""#);
        assert_eq!(serde_json::from_str::<Link>(&json).unwrap(), link);
        assert_eq!(Some(&link).map(|l| &**l), Some("RTT 40 ms, IW 10 × 1460 B"));
        assert_eq!(String::from(link.clone()), link.to_string());
    }

    #[test]
    fn revocation_texts_name_their_mechanism() {
        let crlite = RevocationSource::from("crlite: 6.1 MB of certbench revocation data");
        assert_eq!(crlite.mechanism(), "crlite");
        assert_eq!(
            RevocationSource::from("ocsp: the response stapled").mechanism(),
            "ocsp"
        );
        assert_eq!(RevocationSource::from("crl").mechanism(), "crl");
    }
}
