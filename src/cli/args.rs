//! Argument types shared by the commands. Method lists come from the one `methods!` list,
//! so `--help` names every built-in method; every comma list is split by clap
//! (`value_delimiter = ','`), one way.

use std::sync::OnceLock;

use clap::ValueEnum;
use clap::builder::PossibleValue;

use certbench_core::methods::Method;

/// One `--method` value: a method, or `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodArg {
    /// Every built-in method, in `methods!` order.
    All,
    /// One method.
    One(Method),
}

impl ValueEnum for MethodArg {
    fn value_variants<'a>() -> &'a [Self] {
        static VARIANTS: OnceLock<Vec<MethodArg>> = OnceLock::new();
        VARIANTS.get_or_init(|| {
            let mut v: Vec<MethodArg> = Method::ALL.iter().map(|&m| MethodArg::One(m)).collect();
            v.push(MethodArg::All);
            v
        })
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            MethodArg::All => {
                PossibleValue::new("all").help("every method above (mtc only with --pq mtc)")
            }
            MethodArg::One(m) => PossibleValue::new(m.name()).help(m.about()),
        })
    }
}

/// The methods `args` name, `all` expanded, duplicates dropped, order kept. `all` is every
/// method that can verify here: a browser's verifier that was not built is left out, and a
/// note on standard error (once per process, whatever `--quiet` says) names it and how to get
/// it; named on its own, such a method is kept, and every item it meets says why it fails.
/// A method that verifies Merkle Tree Certificates only (`mtc`) is in `all` when the run
/// measures them (`pq` holds `mtc`): elsewhere it would only say "unsupported".
pub fn methods(args: &[MethodArg], pq: &[crate::pq::Profile]) -> Vec<Method> {
    let mtc = pq.contains(&crate::pq::Profile::Mtc);
    let available: Vec<Method> = (Method::available().into_iter())
        .filter(|m| mtc || !m.verifier().capabilities().mtc)
        .collect();
    let mut out: Vec<Method> = Vec::new();
    for a in args {
        let add: &[Method] = match a {
            MethodArg::All => {
                static NOTED: std::sync::Once = std::sync::Once::new();
                NOTED.call_once(|| {
                    for m in Method::ALL.iter().filter_map(|m| m.unavailable()) {
                        super::output::warn(&format!("note: `all` leaves out a method: {m}"));
                    }
                });
                &available
            }
            MethodArg::One(m) => std::slice::from_ref(m),
        };
        for &m in add {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct T {
        #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
        method: Vec<MethodArg>,
    }

    #[test]
    fn comma_lists_and_all_expand_in_order_without_duplicates() {
        let t = T::parse_from([
            "t",
            "--method",
            "rustlsparallel,rustlsserial,rustlsparallel",
        ]);
        assert_eq!(
            methods(&t.method, &[]),
            [Method::RustlsParallel, Method::RustlsSerial]
        );
        let t = T::parse_from(["t", "--method", "webpki", "--method", "all"]);
        assert_eq!(methods(&t.method, &[])[0], Method::Webpki);
        let x509 = methods(&T::parse_from(["t"]).method, &[]);
        assert!(!x509.contains(&Method::Mtc) && x509.len() + 1 == Method::available().len());
        let all = methods(&T::parse_from(["t"]).method, &[crate::pq::Profile::Mtc]);
        assert_eq!(all, Method::available(), "`all` with `--pq mtc`");
        assert!(T::try_parse_from(["t", "--method", "ring"]).is_err());
    }
}

/// `--verify-cache`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CacheArg {
    /// No cache: every full handshake runs the verifier.
    None,
    /// Chrome's CachingCertVerifier + CoalescingCertVerifier: key = chain + host + flags,
    /// 256 entries, 30 minutes, identical in-flight verifications coalesced (with --ct, CT's
    /// outcome is part of the result kept).
    Chrome,
    /// Firefox's: no result cache (every full handshake runs the verifier); with --ct, the
    /// browser's cache of SCT signature results across its connections (the firefox shim's;
    /// other methods keep none, so for them this is `none`).
    Firefox,
}

/// The cache policies `args` name, duplicates dropped, order kept.
pub fn caches(args: &[CacheArg]) -> Vec<certbench_core::cache::CachePolicy> {
    use certbench_core::cache::CachePolicy;
    let mut out: Vec<CachePolicy> = Vec::new();
    for c in args {
        let policy = match c {
            CacheArg::None => CachePolicy::None,
            CacheArg::Chrome => CachePolicy::Chrome,
            CacheArg::Firefox => CachePolicy::Firefox,
        };
        if !out.contains(&policy) {
            out.push(policy);
        }
    }
    out
}

/// The verifiers a rustls client is given: rustls' own (`None`) when `args` name no method,
/// else each method they name.
pub fn or_rustls_own(args: &[MethodArg]) -> Vec<Option<Method>> {
    if args.is_empty() {
        vec![None]
    } else {
        methods(args, &[]).into_iter().map(Some).collect()
    }
}
