//! The C and C++ compilers NSS and the `firefox` shim are built with: clang when it is there,
//! as Mozilla builds Firefox's NSS; else the system's `cc`/`c++` (gcc on Debian), as Debian
//! builds the NSS its firefox-esr uses. Each build's label names its compiler and version, so
//! that every `firefox` sample says which build it measured.

use std::process::Command;

/// A C and C++ compiler pair.
#[derive(Clone, Debug)]
pub struct Compiler {
    /// The C compiler, as `make` is given it (`CC`).
    pub cc: String,
    /// The C++ compiler (`CXX`).
    pub cxx: String,
    /// Its family, for file names and stamps: `clang` or `gcc`.
    pub tag: &'static str,
    /// Its name and version, for labels: `clang 14.0.6`, `gcc 12.2.0`.
    pub name: String,
}

fn version(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// clang and clang++, when both run.
pub fn clang() -> Option<Compiler> {
    let v = version("clang", &["-dumpversion"])?;
    version("clang++", &["-dumpversion"])?;
    Some(Compiler {
        cc: "clang".into(),
        cxx: "clang++".into(),
        tag: "clang",
        name: format!("clang {v}"),
    })
}

/// The system's compilers (`$CC`/`$CXX`, else `cc`/`c++`): gcc on Debian.
pub fn system() -> Compiler {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    let v = version(&cc, &["-dumpfullversion", "-dumpversion"]).unwrap_or_else(|| "unknown".into());
    let clang = version(&cc, &["--version"]).is_some_and(|t| t.contains("clang"));
    Compiler {
        cc,
        cxx,
        tag: if clang { "clang" } else { "gcc" },
        name: format!("{} {v}", if clang { "clang" } else { "gcc" }),
    }
}

/// The compiler of the default `firefox` build: clang if it is there, else the system's
/// (with a cargo warning saying so).
pub fn default() -> Compiler {
    clang().unwrap_or_else(|| {
        println!(
            "cargo:warning=firefox: no clang here (Debian: clang): NSS is built with the system's compiler, not as Mozilla builds Firefox's"
        );
        system()
    })
}
