//! Records the locked versions of the libraries certbench measures, from the lock file of the
//! build that links this crate ([`lock_file`]: a Servo build's own when it builds in its
//! `target/`), so results name the versions linked (`certbench_core::versions`). Without a
//! lock file the versions are "unknown".
//!
//! With the features `chrome` and `firefox` it also builds the browsers' native verifiers,
//! each into a shared object that exports one symbol (`core/native/certbench_verifier.h`);
//! `core/build/{chrome,firefox}.rs` say how. A verifier that cannot be built here (a tool or a
//! source missing) does not fail the build: a cargo warning says why, and the method then
//! tells the user at run time what is missing and how to get it (`core/src/ffi/native.rs`).

#[path = "build/chrome.rs"]
mod chrome;
#[path = "build/compiler.rs"]
mod compiler;
#[path = "build/firefox.rs"]
mod firefox;
#[path = "build/shared.rs"]
mod shared;

use std::fmt::Write as _;

const CRATES: &[&str] = &[
    "rustls-webpki",
    "webpki",
    "rustls",
    "aws-lc-rs",
    "ring",
    "openssl",
    "openssl-sys",
    "hyper",
    "rustls-platform-verifier",
    "hyper-rustls",
    "webpki-roots",
    "quinn",
    "quinn-proto",
];

/// The lock file of the build that links this crate: the first `Cargo.lock` above the
/// target folder (`OUT_DIR` is `<target>/<profile>/build/<crate>/out`, and the target folder
/// is the building workspace's `target/` unless moved), so that a Servo build records Servo's
/// versions; else certbench's own, beside this crate.
fn lock_file() -> std::path::PathBuf {
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    let above_target = std::path::Path::new(&out)
        .ancestors()
        .skip(4)
        .map(|d| d.join("Cargo.lock"))
        .find(|l| l.is_file());
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    above_target.unwrap_or_else(|| std::path::Path::new(&dir).join("../Cargo.lock"))
}

fn main() {
    let lock = lock_file();
    println!("cargo:rerun-if-changed={}", lock.display());
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    let mut out = String::new();
    let mut name: Option<&str> = None;
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("name = ") {
            name = Some(v.trim_matches('"'));
        } else if let (Some(n), Some(v)) = (name, line.strip_prefix("version = ")) {
            if CRATES.contains(&n) {
                let _ = write!(out, "{n}={};", v.trim_matches('"'));
            }
            name = None;
        }
    }
    println!("cargo:rustc-env=CERTBENCH_LOCKED_VERSIONS={out}");
    println!("cargo:rustc-env=CERTBENCH_LOCK_FILE={}", lock.display());

    // Side by side: BoringSSL's build (ninja, two jobs) and NSS's (make, serial) are each the
    // longest step of a cold build.
    std::thread::scope(|s| {
        s.spawn(|| shared::build_if_enabled("firefox", "FIREFOX", firefox::build));
        shared::build_if_enabled("chrome", "CHROME", chrome::build);
    });
}
