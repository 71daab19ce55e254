//! `firefox`: Firefox's certificate verifier, mozilla::pkix (`BuildCertChain` for an end entity,
//! server auth, then `CheckCertHostname`), over a trust domain of certbench's own that makes
//! Firefox's choices where it has them (`NSSCertDBTrustDomain`) and checks signatures with NSS
//! (`pkixnss.h`). `core/native/firefox/` says which Gecko code each choice follows;
//! `docs/verifiers.md` what Firefox does that this leaves out (CRLite and OCSP, intermediate
//! preloading, CT, …).
//!
//! Built by `core/build/firefox.rs` from Debian's `nss` source package (fetched by
//! a script, at build time) against the system NSS, into a shared object
//! (`crate::native`). Roots: anchors indexed by subject. Chain creation: the DER as sent, held
//! for the path builder. Verify: `BuildCertChain` at the target's time. Verify-hostname:
//! `CheckCertHostname`.

use std::sync::OnceLock;

use super::Capabilities;
use crate::native::{Build, Loaded, NativeVerifier};

static BUILD: Build = Build {
    method: "firefox",
    env: "CERTBENCH_FIREFOX_SO",
    path: env!("CERTBENCH_FIREFOX_SO"),
    missing: env!("CERTBENCH_FIREFOX_MISSING"),
    how: "its build (core/build/firefox.rs) is not written yet",
    library: "mozilla::pkix",
};

static LOADED: OnceLock<Result<Loaded, String>> = OnceLock::new();

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
