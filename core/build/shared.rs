//! What the native verifiers' builds share: the feature check, and how a build's outcome
//! reaches the crate (`CERTBENCH_<NAME>_SO`: the shared object's path, or empty with
//! `CERTBENCH_<NAME>_MISSING`: why it was not built and how to get it).

use std::path::{Path, PathBuf};

/// Builds method `name` (feature `name`, env suffix `env`) with `build` when its feature is on;
/// `build` gets a folder of its own under `OUT_DIR` and returns the shared object's path, or why
/// it could not build it (with what to install or run).
pub fn build_if_enabled(name: &str, env: &str, build: fn(&Path) -> Result<PathBuf, String>) {
    if std::env::var_os(format!("CARGO_FEATURE_{env}")).is_none() {
        return;
    }
    println!("cargo:rerun-if-env-changed=CERTBENCH_SKIP_{env}");
    let outcome = if std::env::var_os(format!("CERTBENCH_SKIP_{env}")).is_some() {
        Err(format!(
            "CERTBENCH_SKIP_{env} was set when certbench was built"
        ))
    } else {
        let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join(name);
        std::fs::create_dir_all(&out)
            .map_err(|e| format!("cannot create {}: {e}", out.display()))
            .and_then(|()| build(&out))
    };
    match outcome {
        Ok(so) => {
            println!("cargo:rustc-env=CERTBENCH_{env}_SO={}", so.display());
            println!("cargo:rustc-env=CERTBENCH_{env}_MISSING=");
        }
        Err(why) => {
            let why = why.replace('\n', " ");
            println!("cargo:warning=method `{name}` not built: {why}");
            println!("cargo:rustc-env=CERTBENCH_{env}_SO=");
            println!("cargo:rustc-env=CERTBENCH_{env}_MISSING={why}");
        }
    }
}

/// Where builds shared by every profile and clone of this workspace live:
/// `$CERTBENCH_CACHE`, else `.certbench-cache/` in the workspace (git ignores it).
pub fn cache_dir() -> Result<PathBuf, String> {
    println!("cargo:rerun-if-env-changed=CERTBENCH_CACHE");
    let dir = match std::env::var_os("CERTBENCH_CACHE") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let manifest = std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?;
            Path::new(&manifest).join("../.certbench-cache")
        }
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // `<workspace>/.certbench-cache`, not `<workspace>/core/../.certbench-cache`, in what the
    // build says and in the rpaths it writes.
    Ok(dir.canonicalize().unwrap_or(dir))
}

/// Runs `command`; its standard output, or what it printed last on failure.
pub fn run(command: &mut std::process::Command) -> Result<String, String> {
    let shown = format!("{command:?}");
    let out = command
        .output()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let tail: String = err
        .lines()
        .rev()
        .take(12)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join(" | ");
    Err(format!("{shown} failed ({}): {tail}", out.status))
}

/// Tells the person at the terminal what is being built, while it builds: cargo shows a build
/// script's output only once the script ends (its warnings, which cargo repeats on every later
/// build) or under `-vv`, and a cold build spends minutes here. Written to `/dev/tty`, above
/// cargo's progress bar; nothing where there is no terminal (CI, a redirected build).
pub fn announce(what: &str) -> Announced {
    tell(&format!("Building {what}"));
    Announced {
        what: what.to_owned(),
        start: std::time::Instant::now(),
    }
}

/// `line` on the terminal, over cargo's progress bar (`\r` and erase-line), which cargo
/// draws again below it.
fn tell(line: &str) {
    use std::io::Write as _;
    if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        let _ = writeln!(tty, "\r\x1b[K    {line}");
    }
}

/// A native build under way ([`announce`]).
pub struct Announced {
    what: String,
    start: std::time::Instant,
}

impl Announced {
    /// Says on the terminal that it is built and how long it took.
    pub fn done(self) {
        let secs = self.start.elapsed().as_secs();
        tell(&format!("Built {} in {secs} s", self.what));
    }
}
