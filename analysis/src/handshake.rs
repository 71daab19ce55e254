//! Handshake throughput results (`certbench handshake`): one [`HandshakeRun`] per
//! configuration and client stack, and the tables shaped like the published rustls-vs-OpenSSL
//! comparisons: rows = configuration (key, TLS version, full or resumed), columns = OpenSSL,
//! rustls, ratio; then latency percentiles and CPU time per handshake (`export::handshake`
//! gives their cells, one writer per format writes them).

pub use certbench_schema::records::handshake::{HandshakeRun, MemoryRun};

/// What `certbench handshake --format json` writes: throughput runs, or (with `--hold`)
/// memory runs, each a file of its kind; `certbench report` reads either.
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
    fn either_file_reads_by_its_tag_or_as_an_earlier_array_and_names_the_problem_otherwise() {
        use crate::input::Contents;
        use certbench_schema::records::write_list;
        let read = |text: &str| match Contents::read(text.as_bytes()) {
            Ok(Contents::Handshakes(r)) => r,
            other => panic!("{other:?}"),
        };
        let runs = vec![run("openssl", 1, "none", 500.0)];
        assert_eq!(read(&write_list(&runs)).runs, runs);
        let text = serde_json::to_string_pretty(&runs).unwrap();
        assert_eq!(read(&text).runs, runs);
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
        for text in [write_list(&memory), serde_json::to_string(&memory).unwrap()] {
            let parsed = read(&text);
            assert!(parsed.runs.is_empty());
            assert_eq!(parsed.memory, memory);
        }
        let e = Contents::read(br#"[{"client": "openssl"}]"#).unwrap_err();
        assert!(e.to_string().contains("missing field"), "{e}");
    }
}
