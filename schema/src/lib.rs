//! certbench's schema: the contract between whatever measures (every command, a patched Servo
//! build) and whatever reports (`certbench-analysis`): every name of its vocabulary, the sample,
//! every record a command writes, and their files. Nothing here measures or computes
//! statistics: a Servo build links this crate through `certbench-core`, and so does the
//! analysis.
//!
//! One role per module: the vocabulary, each name defined once ([`names`]: `Transport`,
//! `Hook`, `Profile`, `CertCompression`, `Mechanism`, `SoftFail`, and `Named` for a word as a
//! file holds it); the sample ([`sample`]) and its stages ([`stage`]), its outcome
//! ([`verdict`]) and facts ([`meta`], with [`revocation`]'s `Status` and outcome); the
//! configuration it was measured under ([`config`]), the twins' scenario ([`scenario`]), trust
//! store ([`trust_store`]) and texts ([`labels`]); a patched Servo's `meta.servo` ([`servo`]);
//! the TCP window a first flight was counted against and a browser's QUIC Initials ([`wire`]);
//! the run header ([`run_info`]); the sample files, read back and upgraded ([`io`]); every other
//! result file, each starting with its kind and schema version ([`records`]). Every type of the
//! sample is also at the crate root.

pub mod config;
pub mod io;
pub mod labels;
pub mod meta;
pub mod names;
pub mod records;
pub mod revocation;
pub mod run_info;
pub mod sample;
pub mod scenario;
pub mod servo;
pub mod stage;
pub mod trust_store;
pub mod verdict;
pub mod wire;

pub use config::Config;
pub use labels::{CtLogList, Link, OpensslPolicy, RevocationSource};
pub use meta::{CtOutcome, EvOutcome, SampleMeta};
pub use names::{
    CertCompression, Hook, Mechanism, Name, Named, Profile, SoftFail, Transport, UnknownName,
};
pub use revocation::{RevocationOutcome, Status};
pub use run_info::RunInfo;
pub use sample::{SCHEMA_VERSION, Sample, site_id};
pub use scenario::{ChainShape, Scenario, ScenarioError, Scts};
pub use stage::Stage;
pub use trust_store::{Roots, TrustStore};
pub use verdict::{ErrorKind, Source, Verdict};
pub use wire::{LinkCounts, QuicCounts, TcpWindow, WindowSource};
