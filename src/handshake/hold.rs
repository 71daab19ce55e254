//! Memory per connection: hold N idle TLS connections open and measure how much the resident
//! memory of each side grows, per connection. The server runs in a child process (this
//! executable, `certbench handshake --serve-child`), so that the two sides' memory is measured
//! apart: the client's in this process, the server's in the child's `/proc/<pid>/status`.
//! Several measurements ([`hold_all`]) run each in a fresh process of this executable
//! (`certbench handshake --hold N --format json …`): memory freed by an earlier one would be
//! reused by the next and hide its growth. Both command lines are built here, and only here.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use certbench_schema::records::handshake::MemoryRun;

use super::error::HandshakeError;
use super::plan::ServerChoice;
use super::scenario::{Resumption, Scenario};
use crate::certs::test::{self as certs, SERVER_NAME, ServerCert};
use crate::tls::{KeyType, Provider, Version};
use certbench_schema::Transport;

/// The allocator this build uses.
pub fn allocator() -> &'static str {
    if cfg!(feature = "jemalloc") {
        "jemalloc"
    } else {
        "system (glibc malloc)"
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The child's side: serve on loopback, hand `READY <addr> <ca-hex>` (a line) to `ready` —
/// which writes it to standard output, the child's channel to its parent — and serve until
/// stdin closes.
pub fn serve_child(
    server: Transport,
    key: KeyType,
    tls: Version,
    provider: Provider,
    ready: impl FnOnce(&str),
) -> Result<(), HandshakeError> {
    let cert = certs::generate(key)?;
    let s = super::server::start(server, &cert, tls, Resumption::None, provider, 1)?;
    ready(&format!("READY {} {}\n", s.addr, hex(&cert.ca)));
    let mut sink = String::new();
    while std::io::stdin().read_line(&mut sink)? > 0 {}
    drop(s);
    Ok(())
}

/// A connection kept open.
enum Held {
    Openssl(#[allow(dead_code)] tokio_openssl::SslStream<tokio::net::TcpStream>),
    Rustls(#[allow(dead_code)] Box<tokio_rustls::client::TlsStream<tokio::net::TcpStream>>),
}

struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        drop(self.0.stdin.take()); // EOF: the child stops serving
        let _ = self.0.wait();
    }
}

/// Opens `n` connections from a `client` stack to a `server` stack in a child process and
/// measures each side's resident-memory growth per connection.
pub fn hold(
    exe: &Path,
    client: Transport,
    server: Transport,
    key: KeyType,
    tls: Version,
    provider: Provider,
    n: usize,
) -> Result<MemoryRun, HandshakeError> {
    let mut child = Command::new(exe)
        .args(["handshake", "--serve-child", "--server", server.name()])
        .args(["--key", &key.to_string(), "--tls", tls.name()])
        .args(["--provider", provider.name()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let stdout = child.stdout.take().expect("piped");
    let child = ChildGuard(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (Some("READY"), Some(addr), Some(ca)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(HandshakeError::Setup(format!(
            "the server child said {line:?}"
        )));
    };
    let addr: std::net::SocketAddr = addr
        .parse()
        .map_err(|e| HandshakeError::Setup(format!("server address: {e}")))?;
    let ca = unhex(ca).ok_or_else(|| HandshakeError::Setup("server CA".into()))?;
    let cert = ServerCert {
        chain: Vec::new(),
        key: Vec::new(),
        ca: ca.into(),
    };
    let cfg = Scenario {
        client,
        server,
        key,
        tls,
        resumption: Resumption::None,
        clients: 1,
        handshakes: n as u64,
        duration: None,
        provider,
        verifier: None,
        intermediate: false,
        server_threads: 1,
        client_threads: 1,
    };
    let connector = match client {
        Transport::Openssl => super::client::openssl_client(&cfg, &cert)?,
        Transport::Rustls => {
            let counts = Default::default();
            super::client::rustls_client(&cfg, &cert, Default::default(), &counts)?
        }
        Transport::Quic => return Err(HandshakeError::NoQuic),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let pid = child.0.id();
    let settle = || std::thread::sleep(Duration::from_millis(300));
    let result = rt.block_on(async {
        // One connection first, so that lazily built state on both sides is not counted.
        let mut held = vec![open(&connector, addr).await?];
        settle();
        let (c0, s0) = (crate::procstat::rss(), crate::procstat::rss_of(pid));
        for _ in 0..n {
            held.push(open(&connector, addr).await?);
        }
        settle();
        let (c1, s1) = (crate::procstat::rss(), crate::procstat::rss_of(pid));
        let per = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => (b as f64 - a as f64) / n as f64 / 1024.0,
            _ => f64::NAN,
        };
        let run = MemoryRun {
            client: client.into(),
            server: server.into(),
            key: key.to_string(),
            tls: tls.name().to_owned(),
            allocator: allocator().to_owned(),
            connections: n,
            client_kib_per_connection: per(c0, c1),
            server_kib_per_connection: per(s0, s1),
        };
        drop(held);
        Ok::<_, HandshakeError>(run)
    });
    drop(rt);
    drop(child);
    result
}

async fn open(
    client: &super::client::Client,
    addr: std::net::SocketAddr,
) -> Result<Held, HandshakeError> {
    let tcp = tokio::net::TcpStream::connect(addr).await?;
    tcp.set_nodelay(true)?;
    match client {
        super::client::Client::Openssl { connector, .. } => {
            let ssl = connector.configure()?.into_ssl(SERVER_NAME)?;
            let mut s = tokio_openssl::SslStream::new(ssl, tcp)?;
            Pin::new(&mut s)
                .connect()
                .await
                .map_err(|e| HandshakeError::Setup(format!("tls handshake: {e}")))?;
            Ok(Held::Openssl(s))
        }
        super::client::Client::Rustls(connector, _) => {
            let name = rustls_pki_types::ServerName::try_from(SERVER_NAME)
                .map_err(|e| HandshakeError::Setup(e.to_string()))?;
            let s = connector.connect(name, tcp).await?;
            Ok(Held::Rustls(Box::new(s)))
        }
    }
}

/// What `handshake --hold` measures: for each count, for each client stack, that many idle
/// connections to the server the [`ServerChoice`] gives it.
pub struct HoldPlan {
    /// Connection counts, each in 1..=100000 (checked as it comes).
    pub counts: Vec<usize>,
    /// Client stacks.
    pub clients: Vec<Transport>,
    /// The server's stack.
    pub server: ServerChoice,
    /// The key type.
    pub key: KeyType,
    /// The version.
    pub tls: Version,
    /// rustls' provider.
    pub provider: Provider,
}

/// Measures every count × client stack of `plan`, in this process when there is only one
/// measurement, else each in a fresh process; `note` is told of each before it starts.
pub fn hold_all(
    plan: &HoldPlan,
    mut note: impl FnMut(&str),
) -> Result<Vec<MemoryRun>, HandshakeError> {
    let exe = std::env::current_exe().map_err(HandshakeError::Exec)?;
    let mut runs = Vec::new();
    let single = plan.counts.len() == 1 && plan.clients.len() == 1;
    for &n in &plan.counts {
        if n == 0 || n > 100_000 {
            return Err(HandshakeError::Setup(
                "--hold counts must be in 1..=100000".into(),
            ));
        }
        for &client in &plan.clients {
            let server = plan.server.for_client(client);
            note(&format!(
                "certbench: holding {n} {} → {} connections",
                client.name(),
                server.name()
            ));
            if single {
                runs.push(hold(
                    &exe,
                    client,
                    server,
                    plan.key,
                    plan.tls,
                    plan.provider,
                    n,
                )?);
            } else {
                runs.append(&mut hold_in_child(&exe, plan, client, server, n)?);
            }
        }
    }
    Ok(runs)
}

/// One measurement in a fresh process: `exe handshake --hold n --format json …`.
fn hold_in_child(
    exe: &Path,
    plan: &HoldPlan,
    client: Transport,
    server: Transport,
    n: usize,
) -> Result<Vec<MemoryRun>, HandshakeError> {
    let out = Command::new(exe)
        .args(["handshake", "--quiet", "--format", "json"])
        .args(["--hold", &n.to_string(), "--transport", client.name()])
        .args(["--server", server.name()])
        .args(["--key", &plan.key.to_string()])
        .args(["--tls", plan.tls.name()])
        .args(["--provider", plan.provider.name()])
        .output()
        .map_err(HandshakeError::Exec)?;
    if !out.status.success() {
        return Err(HandshakeError::Setup(format!(
            "holding {n} {} connections: {}",
            client.name(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(certbench_schema::records::read_list(&out.stdout)?)
}
