//! `certbench::handshake` in process: as many handshakes as asked, resumed runs that really
//! resume (the library's own flag on every counted handshake), over both stacks, both TLS
//! versions, both resumption mechanisms, 1 and 4 clients; and a clean shutdown: open file
//! descriptors back to the start value. (Its own test binary, one test: nothing else opens
//! descriptors meanwhile.)

use certbench::certs::test as certs;
use certbench::handshake::{Resumption, Scenario, run_with_cert};
use certbench::procstat::open_fds;
use certbench::tls::{KeyType, Provider, Version};
use certbench_schema::Transport;

fn config(client: Transport, tls: Version, resumption: Resumption, clients: usize) -> Scenario {
    Scenario {
        client,
        server: client,
        key: KeyType::P256,
        tls,
        resumption,
        clients,
        handshakes: 60,
        duration: None,
        provider: Provider::AwsLcRs,
        verifier: None,
        intermediate: false,
        server_threads: 1,
        client_threads: 1,
    }
}

#[test]
fn counts_resumption_flags_and_a_clean_shutdown() {
    let _alone = crate::alone();
    let cert = certs::generate(KeyType::P256).unwrap();
    // A first run builds lazy process-wide state (OpenSSL's, the runtime's) before counting fds.
    run_with_cert(
        &config(Transport::Openssl, Version::V13, Resumption::None, 1),
        &cert,
    )
    .unwrap();
    let fds = open_fds().unwrap();
    for client in [Transport::Openssl, Transport::Rustls] {
        for tls in [Version::V12, Version::V13] {
            for resumption in [Resumption::None, Resumption::Tickets, Resumption::SessionId] {
                for clients in [1, 4] {
                    let cfg = config(client, tls, resumption, clients);
                    let o = run_with_cert(&cfg, &cert).unwrap();
                    let what = format!("{client:?} {tls:?} {resumption:?} ×{clients}");
                    assert_eq!(o.failed, 0, "{what}: {:?}", o.first_error);
                    assert_eq!(o.run.handshakes, 60, "{what}: handshakes done == asked");
                    let want = if resumption == Resumption::None {
                        0
                    } else {
                        60
                    };
                    assert_eq!(o.run.resumed, want, "{what}: resumed");
                    assert!(o.run.p50_us > 0.0 && o.run.p50_us <= o.run.p99_us, "{what}");
                    assert!(o.run.p99_us <= o.run.max_us, "{what}");
                    assert!(
                        o.run.client_cpu_us > 0.0 && o.run.server_cpu_us > 0.0,
                        "{what}"
                    );
                }
            }
        }
    }
    // Every socket of every run closed, the server threads gone.
    let t = std::time::Instant::now();
    while open_fds().unwrap() > fds && t.elapsed() < std::time::Duration::from_secs(5) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(open_fds().unwrap(), fds, "open fds back to the start value");
}
