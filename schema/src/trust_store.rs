//! The trust store a sample's configuration names ([`crate::Config::roots`]): a
//! [`TrustStore`] (where its roots came from and how many it holds), written
//! `origin (count)`, or, for text of another shape, that text ([`Roots::Named`]).
//!
//! Invariants:
//! - [`TrustStore`]'s `Display` and [`TrustStore::parse`] are that text's one definition: the
//!   measuring side writes it (`certbench_core::roots::RootSet::trust_store`), the analysis
//!   reads it back; every store reads back as written;
//! - [`Roots`] is written as its text, so files are as they always were, and any text reads;
//! - `From<String>` makes a [`Roots::Store`] exactly when the text is a store's, written back
//!   byte for byte (`mozilla (150)`); anything else (`system`, `a(1)`) is [`Roots::Named`],
//!   kept as read. So one text has one value, and equality is the text's.

use std::fmt;

use serde::{Deserialize, Serialize, Serializer};

/// A trust store as a sample's configuration names it: where its roots came from and how many
/// it holds, written `origin (count)` (`mozilla+corpus+extra (1621)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TrustStore {
    /// Where the roots came from, `+`-joined (`mozilla+corpus+extra`).
    pub origin: String,
    /// The number of roots in the store.
    pub roots: u64,
}

impl fmt::Display for TrustStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.origin, self.roots)
    }
}

impl TrustStore {
    /// Reads back what `Display` writes: the count is the number in the last parentheses,
    /// the origin what comes before them. `None` without a parenthesised count at the end.
    pub fn parse(text: &str) -> Option<TrustStore> {
        let (origin, count) = text.rsplit_once('(')?;
        Some(TrustStore {
            origin: origin.strip_suffix(' ').unwrap_or(origin).to_owned(),
            roots: count.trim_end_matches(')').parse().ok()?,
        })
    }
}

/// What a configuration's `roots` holds: a store with its count (every sample certbench
/// writes), or text of another shape, kept as read (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(from = "String")]
pub enum Roots {
    /// A store, `origin (count)`.
    Store(TrustStore),
    /// Text that does not read back as a store's, e.g. `system`.
    Named(String),
}

impl Roots {
    /// The store, when the text is one.
    pub fn store(&self) -> Option<&TrustStore> {
        match self {
            Roots::Store(store) => Some(store),
            Roots::Named(_) => None,
        }
    }
}

impl From<TrustStore> for Roots {
    fn from(store: TrustStore) -> Roots {
        Roots::Store(store)
    }
}

impl From<String> for Roots {
    fn from(text: String) -> Roots {
        match TrustStore::parse(&text) {
            Some(store) if store.to_string() == text => Roots::Store(store),
            _ => Roots::Named(text),
        }
    }
}

impl From<&str> for Roots {
    fn from(text: &str) -> Roots {
        Roots::from(text.to_owned())
    }
}

impl fmt::Display for Roots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Roots::Store(store) => store.fmt(f),
            Roots::Named(text) => f.write_str(text),
        }
    }
}

impl Serialize for Roots {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_stores_are_read_back_as_written() {
        let store = TrustStore {
            origin: "mozilla+corpus+extra".into(),
            roots: 1621,
        };
        assert_eq!(store.to_string(), "mozilla+corpus+extra (1621)");
        assert_eq!(TrustStore::parse(&store.to_string()), Some(store.clone()));
        let roots = Roots::from(store.to_string());
        assert_eq!(roots.store(), Some(&store));
        assert_eq!(roots, Roots::from(store));
        assert_eq!(TrustStore::parse("system"), None);
    }

    #[test]
    fn other_texts_read_and_are_written_back_as_read() {
        for text in ["system", "a(1)", "a (01)", "mozilla (150", "x (-1)", ""] {
            let json = serde_json::to_string(text).unwrap();
            let roots: Roots = serde_json::from_str(&json).unwrap();
            assert_eq!(roots, Roots::Named(text.into()), "{text}");
            assert_eq!(roots.store(), None);
            assert_eq!(serde_json::to_string(&roots).unwrap(), json);
        }
        let roots: Roots = serde_json::from_str(r#""mozilla+mirror (152)""#).unwrap();
        assert_eq!(roots.store().map(|s| s.roots), Some(152));
        assert_eq!(
            serde_json::to_string(&roots).unwrap(),
            r#""mozilla+mirror (152)""#
        );
    }
}
