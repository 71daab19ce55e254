//! The command line that measures a driver run again under the other hook, for the answer's
//! last line: written into the run header by the run itself, read from there by reports.

use crate::tls::Stack;
use crate::transport::openssl::HookMode;

/// The command that measures the driver run of `command` (its words, program first, as the
/// run was started with `transport` and `hook`) under the other hook: `--hook replace` for
/// a callback run and back; for a rustls-transport run, the OpenSSL transport with the
/// seed's callback hook. Its raw-file options are left out (a new run, a new file).
pub fn other_hook(command: &[String], transport: Stack, hook: HookMode) -> String {
    let program = match command.first().map(String::as_str) {
        Some(p) if p.ends_with("target/release/certbench") => "cargo run --release --",
        Some(p) if p.ends_with("target/debug/certbench") => "cargo run --",
        _ => "certbench",
    };
    let mut words = vec![program.to_owned()];
    // Leave out the options this function sets, and the raw file's.
    let dropped = ["--hook", "--transport", "--raw", "--resume"];
    let mut args = command.iter().skip(1);
    while let Some(a) = args.next() {
        let flag = a.split_once('=').map_or(a.as_str(), |(f, _)| f);
        if dropped.contains(&flag) {
            if !a.contains('=') {
                args.next();
            }
            continue;
        }
        words.push(quote(a));
    }
    let set: &[&str] = match (transport, hook) {
        (Stack::Rustls, _) => &["--transport", "openssl", "--hook", "callback"],
        (Stack::Openssl, HookMode::Callback) => &["--hook", "replace"],
        (Stack::Openssl, HookMode::Replace) => &["--hook", "callback"],
    };
    words.extend(set.iter().map(|w| (*w).to_owned()));
    words.join(" ")
}

/// `word`, single-quoted for a POSIX shell when it holds anything but plain characters.
fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,@+%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn the_other_hook_swaps_the_hook_and_drops_the_raw_file() {
        let cmd = words("/x/target/release/certbench --sites s.txt --raw r.jsonl --mirror");
        assert_eq!(
            other_hook(&cmd, Stack::Openssl, HookMode::Callback),
            "cargo run --release -- --sites s.txt --mirror --hook replace"
        );
        let cmd = words("certbench --hook=replace --resume r.jsonl --method all");
        assert_eq!(
            other_hook(&cmd, Stack::Openssl, HookMode::Replace),
            "certbench --method all --hook callback"
        );
        let cmd = words("/t/target/debug/certbench --transport rustls --sites a b");
        assert_eq!(
            other_hook(&cmd, Stack::Rustls, HookMode::Callback),
            "cargo run -- --sites a b --transport openssl --hook callback"
        );
        assert_eq!(quote("it's"), "'it'\\''s'");
    }
}
