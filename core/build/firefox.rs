//! Builds the `firefox` method's shared object (see `core/native/certbench_verifier.h`):
//! mozilla::pkix from Debian's `nss` source package (`nss/lib/mozpkix`, fetched into the cache
//! by `scripts/fetch-nss-source`) and `core/native/firefox/verifier.cc`, compiled against the
//! system NSS's headers and linked with its libraries (Debian's `libnss3-dev`) into one shared
//! object whose only exported symbol is the verifier's table (a version script hides the rest,
//! so NSS's and libstdc++'s symbols stay out of the process's namespace). Takes a few seconds
//! (twelve C++ files, two at a time).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::native::{cache_dir, run};

/// Builds it in `out`: `out/libcertbench_firefox.so`, or why not (what to install or run, with
/// the compiler's last words when it fails).
pub fn build(out: &Path) -> Result<PathBuf, String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let shim = manifest.join("native/firefox/verifier.cc");
    println!("cargo:rerun-if-changed={}", shim.display());
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("native/certbench_verifier.h").display()
    );
    println!("cargo:rerun-if-env-changed=CXX");
    // `$CERTBENCH_CACHE/nss-source`, else `<workspace>/.certbench-cache/nss-source`.
    let source = cache_dir()?.join("nss-source");
    println!(
        "cargo:rerun-if-changed={}",
        source.join("VERSION").display()
    );
    let nss = source.join("nss");
    let mozpkix = nss.join("lib/mozpkix");
    if !mozpkix.join("include/pkix/pkix.h").is_file() {
        return Err(format!(
            "NSS's source is missing from {}: run scripts/fetch-nss-source (Debian's nss source package), then build again",
            source.display()
        ));
    }
    let flags = |what: &str| {
        run(Command::new("pkg-config").args([what, "nss"]))
            .map(|s| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
            .map_err(|e| format!("NSS's headers are missing (Debian: libnss3-dev): {e}"))
    };
    let (cflags, libs) = (flags("--cflags")?, flags("--libs")?);
    // mozilla::pkix includes its headers as "mozpkix/…", as NSS's build exports them (and
    // pkixnss.cpp NSS's cpputil/nss_scoped_ptrs.h the same way): copied so into `out/include`.
    let include = out.join("include");
    let exported = include.join("mozpkix");
    std::fs::create_dir_all(&exported).map_err(|e| e.to_string())?;
    let headers = std::fs::read_dir(mozpkix.join("include/pkix")).map_err(|e| e.to_string())?;
    for header in headers.flatten().map(|e| e.path()) {
        copy_into(&header, &exported)?;
    }
    copy_into(&nss.join("cpputil/nss_scoped_ptrs.h"), &exported)?;

    let mut sources: Vec<PathBuf> = std::fs::read_dir(mozpkix.join("lib"))
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    sources.sort();
    sources.push(shim);
    let version = std::fs::read_to_string(source.join("VERSION")).unwrap_or_default();
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    let compile = |src: &PathBuf| -> Result<PathBuf, String> {
        let stem = src.file_stem().and_then(|s| s.to_str()).unwrap_or("unit");
        let object = out.join(format!("{stem}.o"));
        run(Command::new(&cxx)
            .args([
                "-std=c++17",
                "-O2",
                "-fPIC",
                "-fvisibility=hidden",
                "-w",
                "-c",
            ])
            .arg(format!(
                "-DCERTBENCH_FIREFOX_VERSION=\"NSS {} (Debian source)\"",
                version.trim()
            ))
            .arg("-I")
            .arg(&include)
            .args(&cflags)
            .arg(src)
            .arg("-o")
            .arg(&object))?;
        Ok(object)
    };
    // Two at a time: the build has two cores.
    let objects = std::thread::scope(|s| {
        let (a, b): (Vec<_>, Vec<_>) = sources.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        let other = s.spawn(|| b.into_iter().map(|(_, p)| compile(p)).collect::<Vec<_>>());
        let mut all: Vec<_> = a.into_iter().map(|(_, p)| compile(p)).collect();
        all.extend(other.join().unwrap_or_default());
        all.into_iter().collect::<Result<Vec<_>, _>>()
    })?;

    let script = out.join("exports.map");
    std::fs::write(
        &script,
        "{ global: certbench_verifier_v1_table; local: *; };\n",
    )
    .map_err(|e| e.to_string())?;
    let so = out.join("libcertbench_firefox.so");
    run(Command::new(&cxx)
        .args(["-shared", "-o"])
        .arg(&so)
        .args(&objects)
        .args(&libs)
        .args(["-Wl,-Bsymbolic", "-Wl,--no-undefined"])
        .arg(format!("-Wl,--version-script={}", script.display())))?;
    Ok(so)
}

fn copy_into(file: &Path, dir: &Path) -> Result<(), String> {
    let name = file.file_name().ok_or("a header without a name")?;
    std::fs::copy(file, dir.join(name))
        .map(|_| ())
        .map_err(|e| format!("cannot copy {}: {e}", file.display()))
}
