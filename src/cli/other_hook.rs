//! The command line that measures a driver run again under the other hook, for the answer's
//! last line: written into the run header by the run itself, read from there by reports. The
//! CLI owns its words: the options are spelled here as the user types them, and the other
//! hook is decided from the run's typed [`RunSpec`].

use certbench_schema::{Hook, Transport};

use crate::run::spec::RunSpec;

/// The options the other hook's command sets anew (`--hook`, `--transport`) or leaves out (the
/// raw samples file: a new run, a new file), by name.
const DROPPED: [&str; 4] = ["hook", "transport", "raw", "resume"];

/// The command that measures the driver run of `command` (its words, program first) under
/// the other hook, `spec` saying what the run measured: `--hook replace` for a callback run
/// and back; for a rustls-transport run, the OpenSSL transport with the seed's callback hook.
/// Its words are `command`'s without the options the spec's stack and hook set and without
/// the raw file's, then those of the other hook.
pub fn other_hook(command: &[String], spec: &RunSpec) -> String {
    let program = match command.first().map(String::as_str) {
        Some(p) if p.ends_with("target/release/certbench") => "cargo run --release --",
        Some(p) if p.ends_with("target/debug/certbench") => "cargo run --",
        _ => "certbench",
    };
    let mut words = vec![program.to_owned()];
    let mut args = command.iter().skip(1);
    while let Some(a) = args.next() {
        if let Some(name) = option_name(a)
            && DROPPED.contains(&name)
        {
            if !a.contains('=') {
                args.next();
            }
            continue;
        }
        words.push(quote(a));
    }
    let (stack, hook) = other(spec);
    if let Some(stack) = stack {
        words.extend(["--transport".to_owned(), stack.name().to_owned()]);
    }
    words.extend(["--hook".to_owned(), hook.name().to_owned()]);
    words.join(" ")
}

/// The stack (when it changes) and the hook of the other hook's run.
fn other(spec: &RunSpec) -> (Option<Transport>, Hook) {
    match (spec.stack, spec.hook.unwrap_or(Hook::Callback)) {
        (Transport::Rustls | Transport::Quic, _) => (Some(Transport::Openssl), Hook::Callback),
        (Transport::Openssl, Hook::Replace) => (None, Hook::Callback),
        // The callback hook (the seed's; `native` and `timed-verifier` are no `--hook`).
        (Transport::Openssl, _) => (None, Hook::Replace),
    }
}

/// The name of the long option `word` is (`--name` or `--name=value`), if it is one.
fn option_name(word: &str) -> Option<&str> {
    let name = word.strip_prefix('-')?.strip_prefix('-')?;
    Some(name.split_once('=').map_or(name, |(n, _)| n))
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

    fn spec(stack: Transport, hook: Hook) -> RunSpec {
        RunSpec::plain(stack, hook)
    }

    #[test]
    fn the_other_hook_swaps_the_hook_and_drops_the_raw_file() {
        let cmd = words("/x/target/release/certbench --sites s.txt --raw r.jsonl --mirror");
        assert_eq!(
            other_hook(&cmd, &spec(Transport::Openssl, Hook::Callback)),
            "cargo run --release -- --sites s.txt --mirror --hook replace"
        );
        let cmd = words("certbench --hook=replace --resume r.jsonl --method all");
        assert_eq!(
            other_hook(&cmd, &spec(Transport::Openssl, Hook::Replace)),
            "certbench --method all --hook callback"
        );
        let cmd = words("/t/target/debug/certbench --transport rustls --sites a b");
        assert_eq!(
            other_hook(&cmd, &spec(Transport::Rustls, Hook::Callback)),
            "cargo run -- --sites a b --transport openssl --hook callback"
        );
        assert_eq!(quote("it's"), "'it'\\''s'");
    }
}
