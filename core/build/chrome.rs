//! Builds the `chrome` method's shared object (see `core/native/certbench_verifier.h`):
//! BoringSSL's `pki` and `crypto` libraries from the tree that the crates.io crate boring-sys
//! ships (`deps/boringssl`, with pre-generated assembly, so no Go is needed), then the shim's
//! files ([`SHIM`], `core/native/chrome/*.cc` with their private header `internal.h`) linked
//! with them into one shared object whose only exported
//! symbol is the verifier's table. Every BoringSSL symbol stays inside it
//! (`-fvisibility=hidden`, `--exclude-libs,ALL`, `-Bsymbolic`, a version script), so it loads
//! beside the system OpenSSL that the other methods link.
//!
//! boring-sys is located with `cargo metadata` over a manifest of one dependency (cargo
//! downloads it from crates.io on the first build). BoringSSL is built once per machine into
//! the cache (`$CERTBENCH_CACHE`, else `.certbench-cache/` in the workspace), which every
//! profile and clone of this workspace shares; it takes about 70 s on two cores. Needs Debian's
//! `cmake`, `ninja-build` and `g++`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::shared::{cache_dir, run};

/// The boring-sys release whose BoringSSL tree is built.
const BORING_SYS: &str = "5.4.0";

/// The shim's translation units (`core/native/chrome/`), one job each (see `internal.h`).
const SHIM: [&str; 6] = [
    "verifier.cc",
    "store.cc",
    "path.cc",
    "ct.cc",
    "sct.cc",
    "names.cc",
];

/// Builds it in `out`; its path, or why not.
pub fn build(out: &Path) -> Result<PathBuf, String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let dir = manifest.join("native/chrome");
    let shim: Vec<PathBuf> = SHIM.iter().map(|f| dir.join(f)).collect();
    for file in &shim {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    println!(
        "cargo:rerun-if-changed={}",
        dir.join("internal.h").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("native/chrome/ev_roots.inc").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("native/ev_table.h").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("native/certbench_verifier.h").display()
    );
    for tool in ["cmake", "ninja"] {
        if Command::new(tool).arg("--version").output().is_err() {
            return Err(format!(
                "`{tool}` is not installed (Debian: apt-get install cmake ninja-build)"
            ));
        }
    }
    let source = boringssl_source(out)?;
    let libs = boringssl_libs(&source)?;
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    let version = format!(
        "-DCERTBENCH_CHROME_VERSION=\"boring-sys {BORING_SYS} (BoringSSL API {})\"",
        api_version(&source)
    );
    let compile = |src: &PathBuf| -> Result<PathBuf, String> {
        let stem = src.file_stem().and_then(|s| s.to_str()).unwrap_or("unit");
        let object = out.join(format!("{stem}.o"));
        run(Command::new(&cxx)
            .args(["-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden", "-c"])
            .arg(&version)
            .arg("-I")
            .arg(source.join("include"))
            .arg("-I")
            .arg(&source)
            .arg(src)
            .arg("-o")
            .arg(&object))?;
        Ok(object)
    };
    // Two at a time: the build has two cores.
    let objects = std::thread::scope(|s| {
        let (a, b): (Vec<_>, Vec<_>) = shim.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let other = s.spawn(|| b.into_iter().map(|(_, p)| compile(p)).collect::<Vec<_>>());
        let mut all: Vec<_> = a.into_iter().map(|(_, p)| compile(p)).collect();
        all.extend(other.join().unwrap_or_default());
        all.into_iter().collect::<Result<Vec<_>, _>>()
    })?;
    let script = out.join("exports.map");
    std::fs::write(
        &script,
        "{ global: certbench_verifier_v4_table; local: *; };\n",
    )
    .map_err(|e| e.to_string())?;
    let so = out.join("libcertbench_chrome.so");
    run(Command::new(&cxx)
        .args(["-shared", "-o"])
        .arg(&so)
        .args(&objects)
        .arg(libs.join("libpki.a"))
        .arg(libs.join("libcrypto.a"))
        .args(["-Wl,--exclude-libs,ALL", "-Wl,-Bsymbolic"])
        .arg(format!("-Wl,--version-script={}", script.display()))
        .arg("-lpthread"))?;
    Ok(so)
}

/// boring-sys's `deps/boringssl`, found by cargo.
fn boringssl_source(out: &Path) -> Result<PathBuf, String> {
    let probe = out.join("locate-boring-sys");
    std::fs::create_dir_all(probe.join("src")).map_err(|e| e.to_string())?;
    std::fs::write(
        probe.join("Cargo.toml"),
        format!(
            "[package]\nname = \"certbench-locate-boring-sys\"\nversion = \"0.0.0\"\n\
             edition = \"2021\"\n[dependencies]\nboring-sys = \"={BORING_SYS}\"\n[workspace]\n"
        ),
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(probe.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let json = run(Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(probe.join("Cargo.toml")))?;
    let needle = format!("boring-sys-{BORING_SYS}/Cargo.toml");
    let at = json
        .find(&needle)
        .ok_or_else(|| format!("cargo metadata does not list boring-sys {BORING_SYS}"))?;
    let start = json[..at].rfind('"').map_or(0, |q| q + 1);
    let crate_dir = PathBuf::from(&json[start..at + needle.len() - "/Cargo.toml".len()]);
    let source = crate_dir.join("deps/boringssl");
    if source.join("pki").is_dir() {
        Ok(source)
    } else {
        Err(format!("{} has no pki/", source.display()))
    }
}

/// BoringSSL's `libpki.a` and `libcrypto.a`, built once into the cache. A lock file keeps two
/// builds at once (two profiles, the fuzz target) from building it twice; a build is complete
/// only once renamed into place.
fn boringssl_libs(source: &Path) -> Result<PathBuf, String> {
    let cache = cache_dir()?;
    let done = cache.join(format!("boringssl-{BORING_SYS}"));
    let lock = std::fs::File::create(cache.join(format!("boringssl-{BORING_SYS}.lock")))
        .map_err(|e| format!("cannot create the cache's lock: {e}"))?;
    lock.lock()
        .map_err(|e| format!("cannot lock the cache: {e}"))?;
    if done.join("libpki.a").is_file() && done.join("libcrypto.a").is_file() {
        return Ok(done);
    }
    let announced = crate::shared::announce(&format!(
        "BoringSSL (boring-sys {BORING_SYS}) for the `chrome` method, once per machine into {}",
        cache.display()
    ));
    let building = cache.join(format!("boringssl-{BORING_SYS}.building"));
    let _ = std::fs::remove_dir_all(&building);
    std::fs::create_dir_all(&building).map_err(|e| e.to_string())?;
    run(Command::new("cmake")
        .current_dir(&building)
        .args(["-GNinja", "-DCMAKE_BUILD_TYPE=Release"])
        .args([
            "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
            "-DBUILD_TESTING=OFF",
        ])
        .args([
            "-DCMAKE_C_FLAGS=-fvisibility=hidden",
            "-DCMAKE_CXX_FLAGS=-fvisibility=hidden",
        ])
        .arg(source))?;
    let jobs = std::env::var("NUM_JOBS").unwrap_or_else(|_| "2".to_owned());
    run(Command::new("ninja")
        .current_dir(&building)
        .args(["-j", &jobs, "pki", "crypto"]))?;
    let _ = std::fs::remove_dir_all(&done);
    std::fs::rename(&building, &done)
        .map_err(|e| format!("cannot rename {}: {e}", building.display()))?;
    announced.done();
    Ok(done)
}

/// `BORINGSSL_API_VERSION` from the tree's `base.h`.
fn api_version(source: &Path) -> String {
    std::fs::read_to_string(source.join("include/openssl/base.h"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("#define BORINGSSL_API_VERSION "))
                .map(|v| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}
