//! A usage error found after parsing: flags that clap accepts but that ask for nothing the run
//! can do (e.g. `--ct` with methods that have no CT check). `output::exit_code` gives it 2, as
//! clap's own.

/// The usage error, in words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct Usage(pub String);
