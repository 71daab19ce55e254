//! What every command that writes results shares: the raw samples file and its run header
//! ([`sink`]), what a driver run measured ([`spec`]) and continuing a cut run from what it
//! stored ([`resume`]), the
//! schedule that interleaves the methods ([`schedule`]), and a sample's one constructor
//! ([`sample`]).

pub mod resume;
pub mod sample;
pub mod schedule;
pub mod sink;
pub mod spec;

/// How a command's run ended (a fatal error is the `Err` beside it); the CLI turns it into
/// the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything was measured.
    Complete,
    /// The run finished, but some items could not be measured (each is an error row).
    Partial,
    /// Stopped by Ctrl-C after the current item; the tables hold what was finished.
    Interrupted,
}

impl Outcome {
    /// `Partial` when `some_failed`, else `Complete`.
    pub fn partial_if(some_failed: bool) -> Outcome {
        if some_failed {
            Outcome::Partial
        } else {
            Outcome::Complete
        }
    }
}
