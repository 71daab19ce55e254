//! `chrome`: Chrome's certificate verifier, BoringSSL's libpki (`bssl::CertPathBuilder`, the
//! path builder Chromium's `CertVerifyProcBuiltin` drives), set up as Chromium sets it up, then
//! the host checked as Chrome checks it. `core/native/chrome/verifier.cc` says, line by line,
//! which Chromium code each choice follows; `docs/verifiers.md` what Chrome does that this
//! leaves out (CRLSets, CT policy, the Chrome Root Store's constraints, AIA fetching, …).
//!
//! Built by `core/build/chrome.rs` from the BoringSSL tree that the crates.io crate boring-sys
//! ships, into a shared object loaded beside the system OpenSSL (`crate::ffi::native`). Roots:
//! a `TrustStoreInMemory` of anchors. Chain creation: DER → `ParsedCertificate` for every
//! certificate sent. Verify: the path builder for server auth at the target's time.
//! Verify-hostname: the end-entity certificate's names against the host.

use std::sync::OnceLock;

use crate::ffi::native::{Build, LoadError, Loaded};
use crate::native_verifier::NativeVerifier;
use crate::verifier::Capabilities;

static BUILD: Build = Build {
    method: "chrome",
    env: "CERTBENCH_CHROME_SO",
    path: env!("CERTBENCH_CHROME_SO"),
    missing: env!("CERTBENCH_CHROME_MISSING"),
    how: "install Debian's cmake, ninja-build and g++, then build certbench again (core/build/chrome.rs builds BoringSSL from crates.io's boring-sys)",
    library: "BoringSSL pki",
};

static LOADED: OnceLock<Result<Loaded, LoadError>> = OnceLock::new();

/// Chrome's verifier (see the module docs).
pub struct Chrome;

impl Chrome {
    /// The verifier, loaded on first use.
    pub fn verifier() -> NativeVerifier {
        NativeVerifier::new(
            &BUILD,
            &LOADED,
            Capabilities {
                ip_names: true,
                no_name: true,
                // BoringSSL's pki: SimplePathBuilderDelegate accepts ML-DSA-44/65/87 keys and
                // signatures (signature_algorithm.cc, RFC 9881).
                ml_dsa: true,
                // Chrome's CT check (verify_ct in the shim).
                ct: crate::checks::CtSupport::Own,
                // `--revocation`: Chrome's CRLSet (checked by `crate::native_verifier`).
                revocation: crate::revocation::Support::Own(crate::revocation::Mechanism::CrlSet),
                ..Capabilities::default()
            },
        )
    }
}
