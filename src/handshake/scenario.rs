//! The vocabulary of `certbench handshake`: one configuration to measure ([`Scenario`]), its
//! resumption mechanism, what a rustls client's method checks beyond the chain
//! ([`Checks`]), and a finished run ([`Outcome`]).

use std::sync::Arc;
use std::time::Duration;

use certbench_core::ct::CtLogs;
use certbench_core::revocation::Mechanism;
use certbench_schema::records::handshake::HandshakeRun;

use super::revocation::RunData;
use crate::tls::{KeyType, Provider, Version};
use certbench_schema::Transport;

/// Resumption mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Resumption {
    /// Every handshake full.
    None,
    /// Session tickets (stateless on the server).
    Tickets,
    /// Session IDs in TLS 1.2; stateful tickets (server-side cache) in TLS 1.3.
    SessionId,
}

impl Resumption {
    /// The name on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Resumption::None => "none",
            Resumption::Tickets => "tickets",
            Resumption::SessionId => "session-id",
        }
    }
}

/// One configuration to measure: the stacks, key, version, resumption and load of a run.
#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    /// Client stack.
    pub client: Transport,
    /// Server stack.
    pub server: Transport,
    /// Key type of the server's certificate (and its CA).
    pub key: KeyType,
    /// TLS version.
    pub tls: Version,
    /// Resumption.
    pub resumption: Resumption,
    /// Concurrent clients.
    pub clients: usize,
    /// Handshakes to count.
    pub handshakes: u64,
    /// Stop counting after this long, if sooner.
    pub duration: Option<Duration>,
    /// rustls provider (client and server).
    pub provider: Provider,
    /// The rustls client's verifier: a certbench method (its roots built once per client,
    /// from the run's CA), or `None` for rustls' own `WebPkiServerVerifier`. The OpenSSL
    /// client always verifies with OpenSSL.
    pub verifier: Option<certbench_core::Method>,
    /// Whether the certificate has an intermediate ([`crate::certs::test::generate_with_intermediate`]);
    /// recorded in the run.
    pub intermediate: bool,
    /// Server threads (each a single-threaded runtime accepting from the one socket).
    pub server_threads: usize,
    /// Client threads the `clients` tasks spread over (at most `clients`).
    pub client_threads: usize,
}

/// A finished run: the figures, and the handshakes that failed (with the first error).
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The figures.
    pub run: HandshakeRun,
    /// Failed handshakes.
    pub failed: u64,
    /// The first failure.
    pub first_error: Option<String>,
}

/// What a rustls client's certbench method checks beyond the chain and the name.
#[derive(Clone, Copy, Default)]
pub struct Checks<'a> {
    /// `--ct`: the logs of the leaf's SCTs ([`super::ct::generate`]).
    pub ct: Option<&'a Arc<CtLogs>>,
    /// `--revocation`: the data made for the run's certificate ([`super::revocation::make`]).
    pub revocation: Option<&'a RunData>,
}

impl Checks<'_> {
    /// What `--ct` and `--revocation` ask of `method` here: a handshake run checks only what
    /// they name (its certificate carries SCTs and revocation data only when they ask).
    fn request(&self) -> certbench_core::Request {
        certbench_core::Request {
            path_only: false,
            ct: self.ct.is_some(),
            revocation: self.revocation.map(|r| r.rustls),
        }
    }

    /// The mechanism `cfg`'s client checks revocation with: its method's, given data.
    pub fn mechanism(&self, cfg: &Scenario) -> Option<Mechanism> {
        let method = cfg.verifier.filter(|_| cfg.client == Transport::Rustls)?;
        self.request().revocation(&method.verifier().capabilities())
    }

    /// What `method` checks, as the core's [`certbench_core::Checks`]: the logs if it has a
    /// CT check, the data with its mechanism if it has one (browsers' and Servo's alike: a
    /// handshake run checks CT with every method that can, as `--ct` asks).
    pub fn for_method(&self, method: certbench_core::Method) -> certbench_core::Checks {
        let caps = method.verifier().capabilities();
        let request = self.request();
        let mechanism = request.revocation(&caps);
        certbench_core::Checks {
            ct: (self.ct.cloned()).filter(|_| caps.ct != certbench_core::CtSupport::None),
            revocation: (self.revocation.zip(mechanism)).map(|(r, m)| (m, r.data.clone())),
        }
    }
}
