//! Golden texts (tests only): what a writer printed for a small fixed figures value, kept in
//! `export/golden/NAME` and compared byte for byte, so that moving or reshaping a writer
//! cannot change its output unnoticed. A file is written only when `CERTBENCH_BLESS=1` is
//! set (after a deliberate change of output, reviewed in the diff); otherwise a missing file
//! or any difference fails the test.

use std::path::PathBuf;

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("src/export/golden")
        .join(name)
}

/// Fails unless `text` is, byte for byte, the golden text `name`.
#[track_caller]
pub(crate) fn check(name: &str, text: &str) {
    let path = path(name);
    if std::env::var_os("CERTBENCH_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, text).expect("writing a golden text");
        return;
    }
    let golden = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (CERTBENCH_BLESS=1 writes it)", path.display()));
    if golden != text {
        let at = (golden.lines().zip(text.lines()))
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| golden.lines().count().min(text.lines().count()));
        panic!(
            "{name} differs from its golden text at line {}:\n--- golden\n{golden}\n--- now\n{text}",
            at + 1
        );
    }
}
