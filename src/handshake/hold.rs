//! Memory per connection: hold N idle TLS connections open and measure how much the resident
//! memory of each side grows, per connection. The server runs in a child process (this
//! executable, `certbench handshake --serve-child`), so that the two sides' memory is measured
//! apart: the client's in this process, the server's in the child's `/proc/<pid>/status`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use certbench_analysis::handshake::MemoryRun;

use super::certs::{SERVER_NAME, ServerCert};
use super::{Config, HandshakeError, KeyType, Provider, Resumption, Stack, TlsVersion};

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

/// The child's side: serve on loopback, print `READY <addr> <ca-hex>`, serve until stdin
/// closes.
pub fn serve_child(
    server: Stack,
    key: KeyType,
    tls: TlsVersion,
    provider: Provider,
) -> Result<(), HandshakeError> {
    let cert = super::certs::generate(key)?;
    let s = super::server::start(server, &cert, tls, Resumption::None, provider, 1)?;
    println!("READY {} {}", s.addr, hex(&cert.ca));
    std::io::stdout().flush()?;
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
    client: Stack,
    server: Stack,
    key: KeyType,
    tls: TlsVersion,
    provider: Provider,
    n: usize,
) -> Result<MemoryRun, HandshakeError> {
    let mut child = Command::new(exe)
        .args(["handshake", "--serve-child", "--server", server.name()])
        .args(["--key", &key.to_string(), "--tls", tls_name(tls)])
        .args(["--provider", provider_name(provider)])
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
    let cfg = Config {
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
        Stack::Openssl => super::openssl_client(&cfg, &cert)?,
        Stack::Rustls => super::rustls_client(&cfg, &cert)?,
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
            client: client.name().to_owned(),
            server: server.name().to_owned(),
            key: key.to_string(),
            tls: tls_name(tls).to_owned(),
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

async fn open(client: &super::Client, addr: std::net::SocketAddr) -> Result<Held, HandshakeError> {
    let tcp = tokio::net::TcpStream::connect(addr).await?;
    tcp.set_nodelay(true)?;
    match client {
        super::Client::Openssl { connector, .. } => {
            let ssl = connector.configure()?.into_ssl(SERVER_NAME)?;
            let mut s = tokio_openssl::SslStream::new(ssl, tcp)?;
            Pin::new(&mut s)
                .connect()
                .await
                .map_err(|e| HandshakeError::Setup(format!("tls handshake: {e}")))?;
            Ok(Held::Openssl(s))
        }
        super::Client::Rustls(connector, _) => {
            let name = rustls_pki_types::ServerName::try_from(SERVER_NAME)
                .map_err(|e| HandshakeError::Setup(e.to_string()))?;
            let s = connector.connect(name, tcp).await?;
            Ok(Held::Rustls(Box::new(s)))
        }
    }
}

fn tls_name(t: TlsVersion) -> &'static str {
    match t {
        TlsVersion::Tls12 => "1.2",
        TlsVersion::Tls13 => "1.3",
    }
}

fn provider_name(p: Provider) -> &'static str {
    match p {
        Provider::AwsLcRs => "aws-lc-rs",
        Provider::Ring => "ring",
    }
}
