//! Builds the `firefox` method's shared object (see `core/native/certbench_verifier.h`) on an
//! NSS of Firefox's era: NSS and NSPR from their upstream sources (fetched into the cache by
//! `scripts/fetch-nss-source`: NSS 3.110 and NSPR 4.36 on this workplace's Debian mirror), built
//! once per machine into the cache with NSS's own make build (its libraries only: no tools, no
//! tests), then mozilla::pkix from the same tree (`nss/lib/mozpkix`) and
//! the shim's files ([`SHIM`], `core/native/firefox/*.cc` with their private header
//! `internal.h`) compiled against that NSS and linked with its libraries
//! (found through an rpath) into one shared object whose only exported symbol is the
//! verifier's table (a version script hides the rest, so libstdc++'s symbols stay out of the
//! process's namespace).
//!
//! Beside it, in a release build and where the system NSS's headers are (Debian's
//! `libnss3-dev`, the README's prerequisite), the same shim over the system NSS (Debian 12's
//! 3.87):
//! `libcertbench_firefox_system_nss.so`, which no method loads by default; `benches/benchmarks-md`
//! and `docs/regenerate` load it through `CERTBENCH_FIREFOX_SO` to show the old NSS's figures
//! beside the new one's. The two cannot share a process (both are `libnss3.so`).
//!
//! NSS's build (libnss3 and what it loads, nothing else) takes about a minute on two cores,
//! serially (its make build breaks under a parallel make: `get_objs` prints jobserver warnings
//! into a rule), so cargo's jobserver is kept from it; core/build.rs runs it beside BoringSSL's
//! build.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::compiler::Compiler;
use crate::shared::{cache_dir, run};

/// The shim's translation units (`core/native/firefox/`), one job each (see `internal.h`).
const SHIM: [&str; 7] = [
    "verifier.cc",
    "store.cc",
    "path.cc",
    "ct_logs.cc",
    "sct.cc",
    "ct.cc",
    "names.cc",
];

/// Builds it in `out`: `out/libcertbench_firefox.so`, or why not (what to install or run, with
/// the compiler's last words when it fails).
pub fn build(out: &Path) -> Result<PathBuf, String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let native = manifest.join("native");
    for file in SHIM {
        println!(
            "cargo:rerun-if-changed={}",
            native.join("firefox").join(file).display()
        );
    }
    for file in [
        "firefox/internal.h",
        "firefox/ev_roots.inc",
        "ev_table.h",
        "certbench_verifier.h",
    ] {
        println!("cargo:rerun-if-changed={}", native.join(file).display());
    }
    println!("cargo:rerun-if-env-changed=CXX");
    // `$CERTBENCH_CACHE/nss-source`, else `<workspace>/.certbench-cache/nss-source`.
    let cache = cache_dir()?;
    let source = cache.join("nss-source");
    println!(
        "cargo:rerun-if-changed={}",
        source.join("VERSION").display()
    );
    let nss = source.join("nss");
    if !nss.join("lib/mozpkix/include/pkix/pkix.h").is_file() || !source.join("nspr").is_dir() {
        return Err(format!(
            "NSS's and NSPR's sources are missing from {}: run scripts/fetch-nss-source, then build again",
            source.display()
        ));
    }
    let version = read_trimmed(&source.join("VERSION"));
    let nspr_version = read_trimmed(&source.join("NSPR_VERSION"));
    println!("cargo:rerun-if-env-changed=PATH");
    // As Mozilla builds Firefox's NSS: with clang when it is here.
    let compiler = crate::compiler::default();
    let upstream = |compiler: &Compiler, so: &Path| -> Result<(), String> {
        let dist = nss_built(&source, &cache, &version, compiler)?;
        let label = format!(
            "NSS {version} ({}, upstream source, NSPR {nspr_version})",
            compiler.name
        );
        let tag = format!("nss-upstream-{}", compiler.tag);
        Objects::compile(out, &nss, &native, &tag, &dist.cflags(), &label, compiler)?.link(
            so,
            &dist.libs(),
            compiler,
        )
    };
    let so = out.join("libcertbench_firefox.so");
    upstream(&compiler, &so)?;

    // Beside it, only in a release build (the benches' and docs' figures come from one; the
    // tests and the fuzz target have no use for them): the same NSS built with gcc, as Debian
    // builds the NSS its firefox-esr runs on, and the same shim over the system's NSS.
    let fuzzing = std::env::var_os("CARGO_CFG_FUZZING").is_some();
    if std::env::var("PROFILE").as_deref() != Ok("release") || fuzzing {
        return Ok(so);
    }
    let gcc = crate::compiler::system();
    if gcc.tag != compiler.tag
        && let Err(e) = upstream(&gcc, &out.join("libcertbench_firefox_gcc.so"))
    {
        println!(
            "cargo:warning=firefox over NSS built with {}: not built: {e}",
            gcc.name
        );
    }
    let system = out.join("system-nss");
    let flags = |what: &str| {
        run(Command::new("pkg-config").args([what, "nss"]))
            .map(|s| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
    };
    match (flags("--cflags"), flags("--libs"), flags("--modversion")) {
        (Ok(cflags), Ok(libs), Ok(v)) => {
            std::fs::create_dir_all(&system).map_err(|e| e.to_string())?;
            let label = format!("NSS {} (the system's libnss3)", v.join(""));
            let sys = crate::compiler::system();
            let built =
                Objects::compile(&system, &nss, &native, "nss-system", &cflags, &label, &sys)
                    .and_then(|o| {
                        o.link(&out.join("libcertbench_firefox_system_nss.so"), &libs, &sys)
                    });
            if let Err(e) = built {
                println!("cargo:warning=firefox over the system NSS not built: {e}");
            }
        }
        _ => println!(
            "cargo:warning=firefox over the system NSS not built: no system NSS headers (Debian: libnss3-dev)"
        ),
    }
    Ok(so)
}

fn read_trimmed(file: &Path) -> String {
    std::fs::read_to_string(file)
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// NSS's build output: `dist/<objdir>/{lib,include}` (NSPR's headers and every library) and
/// `dist/public/nss` (NSS's headers).
struct Dist {
    lib: PathBuf,
    include: PathBuf,
    public: PathBuf,
}

impl Dist {
    fn cflags(&self) -> Vec<String> {
        vec![
            format!("-I{}", self.public.display()),
            format!("-I{}", self.include.display()),
        ]
    }

    fn libs(&self) -> Vec<String> {
        let lib = self.lib.display();
        vec![
            format!("-L{lib}"),
            // DT_RPATH, not DT_RUNPATH: it serves the libraries' own dependencies too
            // (libnss3's libnssutil3, libnspr4, …), which name no path of their own and would
            // otherwise be the system's NSS 3.87.
            "-Wl,--disable-new-dtags".into(),
            format!("-Wl,-rpath,{lib}"),
            "-lnss3".into(),
            "-lnssutil3".into(),
            "-lplc4".into(),
            "-lplds4".into(),
            "-lnspr4".into(),
        ]
    }
}

/// The directories of NSS's `lib/` that make `libnss3.so` (lib/Makefile's `NSS_SRCDIRS` set
/// on the command line; softoken, freebl and util are its `SOFTOKEN_SRCDIRS` and
/// `UTIL_SRCDIR`, built as ever).
const LIBNSS3_DIRS: &str = "NSS_SRCDIRS=base certdb certhigh cryptohi dev nss pk11wrap pki";

/// NSS and NSPR built from `source` (once per version, into the source tree in the cache; a
/// lock file keeps two builds at once, two profiles or the fuzz target, from building it
/// twice; a build is complete only once its stamp is written).
fn nss_built(
    source: &Path,
    cache: &Path,
    version: &str,
    compiler: &Compiler,
) -> Result<Dist, String> {
    let lock = std::fs::File::create(cache.join("nss-build.lock"))
        .map_err(|e| format!("cannot create the cache's lock: {e}"))?;
    lock.lock()
        .map_err(|e| format!("cannot lock the cache: {e}"))?;
    // One build per compiler in the one tree: NSS's object folders are named by compiler
    // (coreconf's COMPILER_TAG), and each build's stamp records its version and folder.
    let stamp = source.join(format!("BUILT-{}", compiler.tag));
    let built = read_trimmed(&stamp);
    let (stamped, objdir) = built.split_once(' ').unwrap_or(("", ""));
    if stamped != version || objdir.is_empty() {
        let announced = crate::shared::announce(&format!(
            "NSS {version} and NSPR for the `firefox` method with {}, once per machine into {}",
            compiler.name,
            source.display()
        ));
        let nss = source.join("nss");
        let make = |args: &[&str]| {
            run(Command::new("make")
                .current_dir(&nss)
                // Only what a shell would give it: cargo's variables for build scripts (its
                // jobserver's MAKEFLAGS: NSS's make build is serial, see the module docs; and
                // DEBUG, TARGET, HOST, OPT_LEVEL, which make would read as its own variables)
                // are not NSS's.
                .env_clear()
                .envs(
                    ["PATH", "HOME", "LANG", "TMPDIR"]
                        .iter()
                        .filter_map(|k| std::env::var_os(k).map(|v| (k, v))),
                )
                .env("CC", &compiler.cc)
                .env("CXX", &compiler.cxx)
                .args(args)
                .args([
                    "USE_64=1",
                    "BUILD_OPT=1",
                    "NSS_ENABLE_WERROR=0",
                    "NSS_DISABLE_GTESTS=1",
                    "NSS_DISABLE_NSPR_TESTS=1",
                    // libpkix (NSS's other path builder, CERT_PKIXVerifyCert) and the old
                    // Berkeley DB key store: neither is mozilla::pkix's nor the shim's.
                    "NSS_DISABLE_LIBPKIX=1",
                    "NSS_DISABLE_DBM=1",
                ]))
            .map_err(|e| {
                format!("NSS's build failed (make, perl and a C compiler are needed): {e}")
            })
        };
        // NSPR, NSS's nsinstall, then NSS's libraries (headers exported first): what
        // `make nss_build_all` does, less the command-line tools, every test, and the
        // libraries the shim does not link (libssl3, libsmime3 with PKCS #7 and #12, CRMF,
        // JAR, the builtin-roots module, sysinit): only libnss3's parts, with softoken,
        // freebl and nssutil3 beside them (a third less of NSS's serial build).
        make(&["build_nspr"])?;
        make(&["-C", "coreconf/nsinstall", "program"])?;
        make(&["export"])?; // every directory's headers: lib/ includes cmd/lib's secutil.h
        make(&["-C", "lib", "libs", LIBNSS3_DIRS])?;
        make(&["latest"])?;
        let objdir = read_trimmed(&source.join("dist/latest"));
        std::fs::write(&stamp, format!("{version} {objdir}")).map_err(|e| e.to_string())?;
        announced.done();
    }
    let dist = source.join("dist");
    let objdir = read_trimmed(&stamp)
        .split_once(' ')
        .map(|(_, d)| d.to_owned())
        .unwrap_or_default();
    let lib = dist.join(&objdir).join("lib");
    if !lib.join("libnss3.so").is_file() || !lib.join("libfreeblpriv3.so").is_file() {
        return Err(format!(
            "NSS's build left no libnss3.so or libfreeblpriv3.so in {}",
            lib.display()
        ));
    }
    Ok(Dist {
        include: dist.join(&objdir).join("include"),
        public: dist.join("public/nss"),
        lib,
    })
}

/// mozilla::pkix's and the shim's objects, compiled for one NSS.
struct Objects {
    objects: Vec<PathBuf>,
    script: PathBuf,
}

impl Objects {
    fn compile(
        out: &Path,
        nss: &Path,
        native: &Path,
        tag: &str,
        cflags: &[String],
        label: &str,
        compiler: &Compiler,
    ) -> Result<Objects, String> {
        let mozpkix = nss.join("lib/mozpkix");
        // mozilla::pkix includes its headers as "mozpkix/…", as NSS's build exports them (and
        // pkixnss.cpp NSS's cpputil/nss_scoped_ptrs.h the same way): copied so into
        // `out/include`.
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
        sources.extend(SHIM.iter().map(|f| native.join("firefox").join(f)));
        let cxx = &compiler.cxx;
        let compile = |src: &PathBuf| -> Result<PathBuf, String> {
            let stem = src.file_stem().and_then(|s| s.to_str()).unwrap_or("unit");
            let object = out.join(format!("{stem}.{tag}.o"));
            run(Command::new(cxx)
                .args([
                    "-std=c++17",
                    "-O2",
                    "-fPIC",
                    "-fvisibility=hidden",
                    "-w",
                    "-c",
                ])
                .arg(format!("-DCERTBENCH_FIREFOX_VERSION=\"{label}\""))
                .arg("-I")
                .arg(&include)
                .args(cflags)
                .arg(src)
                .arg("-o")
                .arg(&object))?;
            Ok(object)
        };
        // Two at a time: the build has two cores.
        let objects = std::thread::scope(|s| {
            let (a, b): (Vec<_>, Vec<_>) =
                sources.iter().enumerate().partition(|(i, _)| i % 2 == 0);
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
        Ok(Objects { objects, script })
    }

    fn link(&self, so: &Path, libs: &[String], compiler: &Compiler) -> Result<(), String> {
        run(Command::new(&compiler.cxx)
            .args(["-shared", "-o"])
            .arg(so)
            .args(&self.objects)
            .args(libs)
            .args(["-Wl,-Bsymbolic", "-Wl,--no-undefined"])
            .arg(format!("-Wl,--version-script={}", self.script.display())))
        .map(|_| ())
    }
}

fn copy_into(file: &Path, dir: &Path) -> Result<(), String> {
    let name = file.file_name().ok_or("a header without a name")?;
    std::fs::copy(file, dir.join(name))
        .map(|_| ())
        .map_err(|e| format!("cannot copy {}: {e}", file.display()))
}
