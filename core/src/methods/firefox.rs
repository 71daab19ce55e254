//! `firefox`: Firefox's certificate verifier, mozilla::pkix (`BuildCertChain` for an end entity,
//! server auth, then `CheckCertHostname`), over a trust domain of certbench's own that makes
//! Firefox's choices where it has them (`NSSCertDBTrustDomain`) and checks signatures with NSS
//! (`pkixnss.h`). `core/native/firefox/` says which Gecko code each choice follows;
//! `docs/verifiers.md` what Firefox does that this leaves out (CRLite and OCSP, intermediate
//! preloading, CT, …).
//!
//! Built by `core/build/firefox.rs` on an NSS of Firefox's era: NSS and NSPR from their upstream
//! sources (fetched into the cache by `scripts/fetch-nss-source`: NSS 3.110 here), built once per
//! machine, mozilla::pkix from the same tree, into a shared object (`crate::ffi::native`) whose
//! version string names that NSS. `library-init`: NSS's start-up (`NSS_NoDB_Init`), once per
//! process. Roots: the anchors' DER, each parsed once, indexed by subject; every root plays one
//! of Firefox's built-in roots (docs/verifiers.md: the root model). Chain creation: the end
//! entity parsed (mozilla::pkix's `BackCert`), the certificates kept as sent for the path
//! builder. EV attempt: for a leaf with a policy of Firefox's EV table, `BuildCertChain` under
//! that policy first. Verify: `BuildCertChain` at the target's time, as Firefox retries it (key
//! usages, then the weak RSA minimum, whose success is refused under a built-in root).
//! Verify-hostname: `CheckCertHostname`.

use std::sync::OnceLock;

use crate::ffi::native::{Build, LoadError, Loaded};
use crate::native_verifier::NativeVerifier;
use crate::verifier::Capabilities;

static BUILD: Build = Build {
    method: "firefox",
    env: "CERTBENCH_FIREFOX_SO",
    path: env!("CERTBENCH_FIREFOX_SO"),
    missing: env!("CERTBENCH_FIREFOX_MISSING"),
    how: "run scripts/fetch-nss-source (NSS's and NSPR's upstream sources, from Debian's source packages), then build certbench again (core/build/firefox.rs builds NSS once into the cache)",
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
                // Firefox's CT check (verify_ct in the shim).
                ct: crate::checks::CtSupport::Own,
                // `--revocation`: CRLite as Gecko queries it (checked by `crate::native_verifier`).
                revocation: crate::revocation::Support::Own(crate::revocation::Mechanism::Crlite),
                ..Capabilities::default()
            },
        )
    }
}
