//! The browsers' native verifiers (Chrome's BoringSSL libpki, Firefox's mozilla::pkix): every
//! `unsafe` call into them, each with its SAFETY argument. The one [`Verifier`] both methods
//! use over these calls is [`crate::native_verifier::NativeVerifier`].
//!
//! [`Verifier`]: crate::verifier::Verifier
//!
//! `core/build.rs` builds each into a shared object that exports one symbol,
//! `certbench_verifier_v4_table`, and hides the rest (BoringSSL's libcrypto would clash with
//! the system OpenSSL's otherwise); its path is baked in at build time
//! (`CERTBENCH_<NAME>_SO`, overridable at run time by the environment variable of the same
//! name). It is loaded once per process with `dlopen(RTLD_NOW | RTLD_LOCAL)` and never
//! unloaded, and called only through the table of `core/native/certbench_verifier.h`, whose
//! contract is: no C++ exception crosses a call; a refusal or a failure is a reason in a
//! buffer; a verdict is an accept only when the library accepted; a store is never changed
//! after it is built (so it is shared between threads). A shared object that is missing (its
//! build needs tools or a source a machine may lack) is an [`NativeError::Unavailable`] that
//! says what to do, for that method only.
//!
//! - [`table`]: the header's table and structs, the ABI version, the reason buffer;
//! - [`error`]: [`NativeError`], [`LoadError`], [`Refusal`];
//! - [`load`]: [`Build`] and [`Loaded`] (finding, loading, starting the shared object);
//! - [`handles`]: [`Store`], [`ParsedChain`], [`NativeCtLogs`] (owned, freed on drop);
//! - [`verify`]: store, chain, verification, path, name check;
//! - [`ct`]: the CT log set and CT check.

pub mod ct;
pub mod error;
pub mod handles;
pub mod load;
pub mod table;
pub mod verify;

pub use error::{LoadError, NativeError, Refusal};
pub use handles::{NativeCtLogs, ParsedChain, Store};
pub use load::{Build, Loaded};
pub use table::VerifiedSct;
