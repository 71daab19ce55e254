//! `firefox`: Firefox's certificate verifier, mozilla::pkix (`BuildCertChain` for an end entity,
//! server auth, then `CheckCertHostname`), over a trust domain of certbench's own that makes
//! Firefox's choices where it has them (`NSSCertDBTrustDomain`) and checks signatures with NSS
//! (`pkixnss.h`). `core/native/firefox/` says which Gecko code each choice follows;
//! `docs/verifiers.md` what Firefox does that this leaves out (CRLite and OCSP, intermediate
//! preloading, CT, …).
//!
//! Built by `core/build/firefox.rs` from Debian's `nss` source package (fetched into the cache
//! by `scripts/fetch-nss-source`) against the system NSS, into a shared object
//! (`crate::ffi::native`). Roots: the anchors' DER, each parsed once, indexed by subject. Chain
//! creation: the end entity parsed (mozilla::pkix's `BackCert`), the certificates kept as sent
//! for the path builder. Verify: `BuildCertChain` at the target's time, as Firefox retries it
//! (key usages, then the weak RSA minimum, whose success is refused under a built-in root, as
//! every given root is here). Verify-hostname: `CheckCertHostname`.

use std::sync::OnceLock;

use crate::ffi::native::{Build, LoadError, Loaded};
use crate::native::NativeVerifier;
use crate::verifier::Capabilities;

static BUILD: Build = Build {
    method: "firefox",
    env: "CERTBENCH_FIREFOX_SO",
    path: env!("CERTBENCH_FIREFOX_SO"),
    missing: env!("CERTBENCH_FIREFOX_MISSING"),
    how: "run scripts/fetch-nss-source (Debian's nss source package, for mozilla::pkix) with Debian's libnss3-dev installed, then build certbench again",
    library: "mozilla::pkix",
};

static LOADED: OnceLock<Result<Loaded, LoadError>> = OnceLock::new();

/// Firefox's verifier (see the module docs).
pub struct Firefox;

impl Firefox {
    /// The verifier, loaded on first use.
    pub fn verifier() -> NativeVerifier {
        NativeVerifier::new(
            &BUILD,
            &LOADED,
            Capabilities {
                ip_names: true,
                no_name: true,
                ..Capabilities::default()
            },
        )
    }
}
