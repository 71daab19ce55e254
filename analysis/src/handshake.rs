//! Handshake throughput results (`certbench handshake`): one [`HandshakeRun`] per
//! configuration and client stack, and the tables shaped like the published rustls-vs-OpenSSL
//! comparisons: rows = configuration (key, TLS version, full or resumed), columns = OpenSSL,
//! rustls, ratio; then latency percentiles and CPU time per handshake (`export::handshake`
//! gives their cells, one writer per format writes them).

use serde::{Deserialize, Serialize};

/// One measured configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandshakeRun {
    /// Client TLS stack (`openssl`, `rustls`).
    pub client: String,
    /// Server TLS stack.
    pub server: String,
    /// Crypto provider of the rustls side(s) (`aws-lc-rs`, `ring`).
    pub provider: String,
    /// Server key type (`rsa2048`, `p256`, `p384`).
    pub key: String,
    /// `1.2` or `1.3`.
    pub tls: String,
    /// `none`, `tickets` or `session-id`.
    pub resumption: String,
    /// Concurrent clients.
    pub clients: usize,
    /// The rustls client's certificate verifier when it was a certbench method (inside
    /// certbench's `MethodVerifier`); absent: the stack's own (rustls' `WebPkiServerVerifier`,
    /// OpenSSL's `X509_verify_cert`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verifier: Option<String>,
    /// The server sent leaf ← intermediate (two signature checks to the root) instead of a
    /// leaf issued by the trusted CA itself (one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub intermediate: bool,
    /// Server threads (each its own single-threaded runtime on the one listening socket).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub server_threads: usize,
    /// Client threads the clients ran on.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub client_threads: usize,
    /// Handshakes done (each: TCP connect + TLS handshake with certificate verification on
    /// the client + close).
    pub handshakes: u64,
    /// Handshakes the client's TLS library reported as resumed.
    pub resumed: u64,
    /// Wall time of the measured handshakes, seconds.
    pub seconds: f64,
    /// Handshakes per second.
    pub per_second: f64,
    /// Latency of one handshake, microseconds.
    pub p50_us: f64,
    /// 90th percentile, µs.
    pub p90_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Slowest, µs.
    pub max_us: f64,
    /// Client CPU time (user + system) per handshake, µs: the process's CPU time less the
    /// server thread's (the client thread, and any worker pool its verifier uses).
    pub client_cpu_us: f64,
    /// Server CPU time per handshake, µs.
    pub server_cpu_us: f64,
    /// `--revocation`: verifications whose revocation check ran (every full handshake's, for
    /// a method with a mechanism).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revocation_checks: u64,
    /// Of those, the checks that found the path good.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revocation_good: u64,
    /// Bytes of data a check read (the CRLSet, the filter, the CRLs; for `ocsp`, the stapled
    /// response).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revocation_data_bytes: u64,
    /// Bytes the mechanism keeps in memory between checks.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub revocation_resident_bytes: u64,
    /// The data's one load (`revocation-load`), µs, made before the timed handshakes and not
    /// in their figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_load_us: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

impl HandshakeRun {
    /// `full`, or `resumed` when resumption was asked for.
    pub fn kind(&self) -> &'static str {
        if self.resumption == "none" {
            "full"
        } else {
            "resumed"
        }
    }

    /// The row label: key, TLS version, full or resumed (with the mechanism).
    pub fn config(&self) -> String {
        match self.resumption.as_str() {
            "none" => format!("{} TLS {} full", self.key, self.tls),
            r => format!("{} TLS {} resumed ({r})", self.key, self.tls),
        }
    }
}

/// What `certbench handshake --format json` writes: throughput runs, or (with `--hold`)
/// memory runs. [`parse`] reads either, so that `certbench report` can chart them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    /// Throughput and latency runs.
    pub runs: Vec<HandshakeRun>,
    /// Memory-per-connection runs.
    pub memory: Vec<MemoryRun>,
}

impl Results {
    /// True when there is nothing to show.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty() && self.memory.is_empty()
    }

    /// Adds another file's results.
    pub fn extend(&mut self, other: Results) {
        self.runs.extend(other.runs);
        self.memory.extend(other.memory);
    }
}

/// Parses one JSON document written by `certbench handshake --format json` (either kind).
pub fn parse(text: &str) -> Result<Results, serde_json::Error> {
    match serde_json::from_str::<Vec<HandshakeRun>>(text) {
        Ok(runs) => Ok(Results {
            runs,
            memory: Vec::new(),
        }),
        Err(e) => match serde_json::from_str::<Vec<MemoryRun>>(text) {
            Ok(memory) => Ok(Results {
                runs: Vec::new(),
                memory,
            }),
            // Neither shape: the throughput shape's error names the field.
            Err(_) => Err(e),
        },
    }
}

/// One row of the throughput table: a configuration, with its OpenSSL and rustls runs.
#[derive(Clone, Debug)]
pub struct Row<'a> {
    /// Key, TLS version, full or resumed; with the client count and provider when the runs
    /// mix several.
    pub label: String,
    /// The OpenSSL client's run.
    pub openssl: Option<&'a HandshakeRun>,
    /// The rustls client's run.
    pub rustls: Option<&'a HandshakeRun>,
}

impl Row<'_> {
    /// rustls handshakes/s ÷ OpenSSL's, when both ran.
    pub fn ratio(&self) -> Option<f64> {
        match (self.openssl, self.rustls) {
            (Some(o), Some(r)) if o.per_second > 0.0 => Some(r.per_second / o.per_second),
            _ => None,
        }
    }
}

/// The label of `r`'s configuration among `runs`: [`HandshakeRun::config`], plus the client
/// count, the server and the provider when `runs` mix several of them.
pub fn label(runs: &[HandshakeRun], r: &HandshakeRun) -> String {
    let mut s = r.config();
    if runs.iter().any(|x| x.clients != r.clients) {
        s.push_str(&format!(", {} client(s)", r.clients));
    }
    if runs.iter().any(|x| x.server_threads != r.server_threads) {
        s.push_str(&format!(", {} server thread(s)", r.server_threads));
    }
    if runs.iter().any(|x| x.client_threads != r.client_threads) {
        s.push_str(&format!(", {} client thread(s)", r.client_threads));
    }
    // One run's servers are all the client's own stack (`--server same`) or all one stack
    // (`--server openssl|rustls`); only a mix of those needs the server named.
    let own_stack = runs.iter().all(|x| x.server == x.client);
    let one_server = runs.iter().all(|x| x.server == r.server);
    if !own_stack && !one_server {
        s.push_str(&format!(", {} server", r.server));
    }
    if runs.iter().any(|x| x.provider != r.provider) {
        s.push_str(&format!(", {}", r.provider));
    }
    if r.intermediate {
        s.push_str(", leaf ← intermediate ← root");
    }
    if let Some(v) = &r.verifier {
        s.push_str(&format!(", rustls verifier {v}"));
    }
    s
}

/// The throughput table's rows, in order of first appearance.
pub fn rows(runs: &[HandshakeRun]) -> Vec<Row<'_>> {
    let mut out: Vec<Row<'_>> = Vec::new();
    for r in runs {
        let l = label(runs, r);
        let i = match out.iter().position(|row| row.label == l) {
            Some(i) => i,
            None => {
                out.push(Row {
                    label: l,
                    openssl: None,
                    rustls: None,
                });
                out.len() - 1
            }
        };
        // The last run of a configuration wins (a rerun appended to the same report).
        match r.client.as_str() {
            "openssl" => out[i].openssl = Some(r),
            "rustls" => out[i].rustls = Some(r),
            _ => {}
        }
    }
    out
}

/// Resident memory per idle TLS connection, client and server side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryRun {
    /// Client stack.
    pub client: String,
    /// Server stack.
    pub server: String,
    /// Key type.
    pub key: String,
    /// TLS version.
    pub tls: String,
    /// The allocator of the build.
    pub allocator: String,
    /// Connections held.
    pub connections: usize,
    /// Client RSS growth per connection, KiB.
    pub client_kib_per_connection: f64,
    /// Server RSS growth per connection, KiB.
    pub server_kib_per_connection: f64,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn runs_with_another_verifier_or_chain_are_rows_of_their_own() {
        let plain = run("rustls", 1, "none", 900.0);
        let mut parallel = plain.clone();
        parallel.verifier = Some("rustlsparallel".into());
        parallel.intermediate = true;
        let runs = [plain.clone(), parallel.clone()];
        assert_eq!(label(&runs, &plain), "p256 TLS 1.3 full");
        assert_eq!(
            label(&runs, &parallel),
            "p256 TLS 1.3 full, leaf ← intermediate ← root, rustls verifier rustlsparallel"
        );
        assert_eq!(rows(&runs).len(), 2);
        // A file written before these fields existed still reads, as rustls' own verifier over
        // a leaf issued by the CA; and a plain run writes neither field.
        let json = serde_json::to_string(&plain).unwrap();
        assert!(
            !json.contains("verifier") && !json.contains("intermediate"),
            "{json}"
        );
        let back: HandshakeRun = serde_json::from_str(&json).unwrap();
        assert_eq!(back, plain);
    }

    /// A p256 TLS 1.3 run of `client` against its own stack.
    pub(crate) fn run(
        client: &str,
        clients: usize,
        resumption: &str,
        per_second: f64,
    ) -> HandshakeRun {
        HandshakeRun {
            client: client.into(),
            server: client.into(),
            provider: "aws-lc-rs".into(),
            key: "p256".into(),
            tls: "1.3".into(),
            resumption: resumption.into(),
            clients,
            verifier: None,
            intermediate: false,
            server_threads: 1,
            client_threads: 1,
            handshakes: 100,
            resumed: if resumption == "none" { 0 } else { 100 },
            seconds: 100.0 / per_second,
            per_second,
            p50_us: 1.0,
            p90_us: 2.0,
            p99_us: 3.0,
            max_us: 4.0,
            client_cpu_us: 5.0,
            server_cpu_us: 6.0,
            revocation_checks: 0,
            revocation_good: 0,
            revocation_data_bytes: 0,
            revocation_resident_bytes: 0,
            revocation_load_us: None,
        }
    }

    #[test]
    fn rows_pair_the_stacks_and_name_what_differs() {
        let runs = vec![
            run("openssl", 1, "none", 500.0),
            run("rustls", 1, "none", 1000.0),
            run("openssl", 16, "none", 800.0),
            run("rustls", 16, "tickets", 4000.0),
        ];
        let rows = rows(&runs);
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "p256 TLS 1.3 full, 1 client(s)",
                "p256 TLS 1.3 full, 16 client(s)",
                "p256 TLS 1.3 resumed (tickets), 16 client(s)"
            ]
        );
        assert_eq!(rows[0].ratio(), Some(2.0));
        assert_eq!(rows[1].ratio(), None, "no rustls run at 16 clients, full");
        assert!(rows[2].openssl.is_none());
        // One client count only: the label does not repeat it.
        assert_eq!(label(&runs[..2], &runs[0]), "p256 TLS 1.3 full");

        // `--server openssl`: both clients against one server stack pair up, unnamed.
        let mut to_openssl = run("rustls", 1, "none", 900.0);
        to_openssl.server = "openssl".into();
        let fixed = vec![runs[0].clone(), to_openssl.clone()];
        let rows_fixed = super::rows(&fixed);
        assert_eq!(rows_fixed.len(), 1);
        assert_eq!(rows_fixed[0].label, "p256 TLS 1.3 full");
        assert_eq!(rows_fixed[0].ratio(), Some(1.8));
        // Mixed with own-stack runs: the server is named, and like pairs with like.
        let mixed = vec![runs[0].clone(), runs[1].clone(), to_openssl];
        let labels: Vec<String> = super::rows(&mixed).into_iter().map(|r| r.label).collect();
        assert_eq!(
            labels,
            [
                "p256 TLS 1.3 full, openssl server",
                "p256 TLS 1.3 full, rustls server"
            ]
        );
    }

    #[test]
    fn parse_reads_either_document_and_names_the_problem_otherwise() {
        let runs = vec![run("openssl", 1, "none", 500.0)];
        let text = serde_json::to_string_pretty(&runs).unwrap();
        assert_eq!(parse(&text).unwrap().runs, runs);
        let memory = vec![MemoryRun {
            client: "rustls".into(),
            server: "rustls".into(),
            key: "p256".into(),
            tls: "1.3".into(),
            allocator: "system".into(),
            connections: 1000,
            client_kib_per_connection: 9.0,
            server_kib_per_connection: 12.0,
        }];
        let parsed = parse(&serde_json::to_string_pretty(&memory).unwrap()).unwrap();
        assert!(parsed.runs.is_empty());
        assert_eq!(parsed.memory, memory);
        let e = parse(r#"[{"client": "openssl"}]"#).unwrap_err();
        assert!(e.to_string().contains("missing field"), "{e}");
    }
}
