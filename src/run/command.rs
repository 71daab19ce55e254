//! The command line that measures a driver run again under the other hook, for the answer's
//! last line: written into the run header by the run itself, read from there by reports.

use super::spec::{Field, RunSpec};
use crate::tls::Stack;
use crate::transport::openssl::HookMode;

/// The options of the raw samples file, by name: left out of the other hook's command (a new
/// run, a new file).
const RAW_FILE: [&str; 2] = ["raw", "resume"];

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
    let set = [Field::Hook.name(), Field::Transport.name()];
    let mut args = command.iter().skip(1);
    while let Some(a) = args.next() {
        if let Some(name) = option_name(a)
            && (set.contains(&name) || RAW_FILE.contains(&name))
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
        words.extend([Field::Transport.flag(), stack.name().to_owned()]);
    }
    words.extend([Field::Hook.flag(), hook.name().to_owned()]);
    words.join(" ")
}

/// The stack (when it changes) and the hook of the other hook's run.
fn other(spec: &RunSpec) -> (Option<Stack>, HookMode) {
    match (spec.stack, spec.hook.unwrap_or(HookMode::Callback)) {
        (Stack::Rustls, _) => (Some(Stack::Openssl), HookMode::Callback),
        (Stack::Openssl, HookMode::Callback) => (None, HookMode::Replace),
        (Stack::Openssl, HookMode::Replace) => (None, HookMode::Callback),
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

    fn spec(stack: Stack, hook: HookMode) -> RunSpec {
        RunSpec::plain(stack, hook)
    }

    #[test]
    fn the_other_hook_swaps_the_hook_and_drops_the_raw_file() {
        let cmd = words("/x/target/release/certbench --sites s.txt --raw r.jsonl --mirror");
        assert_eq!(
            other_hook(&cmd, &spec(Stack::Openssl, HookMode::Callback)),
            "cargo run --release -- --sites s.txt --mirror --hook replace"
        );
        let cmd = words("certbench --hook=replace --resume r.jsonl --method all");
        assert_eq!(
            other_hook(&cmd, &spec(Stack::Openssl, HookMode::Replace)),
            "certbench --method all --hook callback"
        );
        let cmd = words("/t/target/debug/certbench --transport rustls --sites a b");
        assert_eq!(
            other_hook(&cmd, &spec(Stack::Rustls, HookMode::Callback)),
            "cargo run -- --sites a b --transport openssl --hook callback"
        );
        assert_eq!(quote("it's"), "'it'\\''s'");
    }
}
