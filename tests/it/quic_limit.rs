//! QUIC's amplification limit as the QUIC stack itself enforces it, counted by the emulated
//! link: a server flight of exactly 3× the client's first datagram arrives in one round
//! trip, one byte more needs another. The flight is sized to the byte by padding the
//! server's certificate (an Ed25519 key: its signature's length never varies), the client
//! offering X25519 alone so that its ClientHello is one Initial datagram of Chrome's
//! 1,250 B, the server sending datagrams of the same size.

use std::sync::Arc;

use certbench::link::LinkSpec;
use certbench::link::udp::{UdpLink, flow_of};
use certbench::mirror::quic::QuicMirror;
use certbench::transport::quic::{ALPN, transport_config};
use certbench_analysis::pq::quic::rounds_beyond;
use certbench_schema::wire::CHROME;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// A self-signed Ed25519 certificate for `pad.test` carrying `pad` bytes in a private
/// extension, and its key.
fn padded(pad: usize) -> (CertificateDer<'static>, PrivateKeyDer<'static>) {
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap();
    let mut params = rcgen::CertificateParams::new(vec!["pad.test".to_owned()]).unwrap();
    let oid = [1, 3, 6, 1, 4, 1, 55555, 1];
    (params.custom_extensions).push(rcgen::CustomExtension::from_oid_content(&oid, vec![0; pad]));
    let cert = params.self_signed(&key).unwrap();
    let key = PrivateKeyDer::Pkcs8(key.serialize_der().into());
    (cert.der().clone(), key)
}

/// Accepts the one certificate it was made with; checks the server's signature for real.
#[derive(Debug)]
struct Pinned(CertificateDer<'static>, Arc<CryptoProvider>);

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match end_entity.as_ref() == self.0.as_ref() {
            true => Ok(ServerCertVerified::assertion()),
            false => Err(rustls::Error::General("not the pinned certificate".into())),
        }
    }

    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &CertificateDer<'_>,
        _: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General("TLS 1.2".into()))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algs = &self.1.signature_verification_algorithms;
        rustls::crypto::verify_tls13_signature(message, cert, dss, algs)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.1.signature_verification_algorithms.supported_schemes()
    }
}

/// What one handshake showed through the link: the link's counts of the connection when the
/// client was connected.
struct Seen {
    rounds: Option<u32>,
    round_bytes: Vec<u64>,
}

/// One handshake with a server whose certificate carries `pad` bytes, through a link of
/// `link`.
async fn handshake(pad: usize, link: LinkSpec) -> Seen {
    let (cert, key) = padded(pad);
    let mut provider = rustls::crypto::aws_lc_rs::default_provider();
    provider.kx_groups = vec![rustls::crypto::aws_lc_rs::kx_group::X25519];
    let provider = Arc::new(provider);
    let server = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth();
    let mut server = server.with_single_cert(vec![cert.clone()], key).unwrap();
    server.alpn_protocols = vec![ALPN.to_vec()];
    // The padding is zeros: compressed, it would weigh nothing.
    server.cert_compressors = Vec::new();
    let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(server).unwrap();
    let mut config = quinn::ServerConfig::with_crypto(Arc::new(crypto));
    config.transport_config(Arc::new(transport_config(CHROME)));
    let mirror = QuicMirror::start_with(config).unwrap();
    let link = UdpLink::start(link, mirror.addr).unwrap();

    let pinned = Arc::new(Pinned(cert, provider.clone()));
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(pinned)
        .with_no_client_auth();
    tls.alpn_protocols = vec![ALPN.to_vec()];
    tls.cert_decompressors = Vec::new();
    let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(tls).unwrap();
    let mut client = quinn::ClientConfig::new(Arc::new(crypto));
    client.transport_config(Arc::new(transport_config(CHROME)));
    let endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    let local = endpoint.local_addr().unwrap();
    let conn = (endpoint
        .connect_with(client, link.addr, "pad.test")
        .unwrap())
    .await
    .unwrap();
    let flow = flow_of(local).expect("the link counted the connection");
    conn.close(0u32.into(), b"done");
    Seen {
        rounds: Some(flow.server_round),
        round_bytes: flow.round_bytes,
    }
}

/// [`handshake`] with each of `pads`, 25 at a time.
async fn handshakes(pads: &[usize], link: LinkSpec) -> Vec<Seen> {
    let mut seen = Vec::new();
    for batch in pads.chunks(25) {
        let mut set = tokio::task::JoinSet::new();
        for (i, &pad) in batch.iter().enumerate() {
            set.spawn(async move { (i, handshake(pad, link).await) });
        }
        let mut done = set.join_all().await;
        done.sort_by_key(|(i, _)| *i);
        seen.extend(done.into_iter().map(|(_, s)| s));
    }
    seen
}

#[test]
fn the_server_stops_at_three_times_the_clients_datagram_as_quinn_counts_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let datagram = u64::from(CHROME.datagram);
    let budget = 3 * datagram;
    // An RTT long beside what a busy machine delays a flight by: the link labels a datagram
    // by what its sender had received when it left.
    let link: LinkSpec = "60ms".parse().unwrap();
    // Flights from about 2.7 KB to 5 KB, ten bytes apart: each handshake's first round as
    // the link counted it.
    let pads: Vec<usize> = (1500..4000).step_by(10).collect();
    let seen = rt.block_on(handshakes(&pads, link));
    for s in &seen {
        let first = s.round_bytes.get(1).copied().unwrap_or_default();
        match s.rounds {
            // The whole flight in the first round.
            Some(1) => assert_eq!(first, s.round_bytes.iter().sum::<u64>()),
            // Held back: the server stopped only once it had sent 3× (never before), and
            // never more than one datagram beyond it; the rest came a round trip later.
            Some(2) => {
                assert!(first >= budget && first < budget + datagram, "{first} B");
                assert!(s.round_bytes.get(2).is_some_and(|&b| b > 0));
            }
            other => panic!("{other:?} rounds"),
        }
    }
    // A flight of exactly 3× arrived in one round trip; every flight of 3× or less did; the
    // flights held back were over 3×.
    let at = |f: &dyn Fn(&Seen) -> bool| seen.iter().filter(|s| f(s)).count();
    let flight = |s: &Seen| s.round_bytes.iter().sum::<u64>();
    // A flight varies by a few bytes from one handshake to the next (quinn's ACK delays and
    // packet numbers): handshakes around the padding whose flight came nearest to 3× until
    // one is exactly 3×.
    let nearest = (pads.iter().zip(&seen))
        .min_by_key(|(_, s)| flight(s).abs_diff(budget))
        .map(|(p, _)| *p)
        .unwrap();
    let around: Vec<usize> = (nearest - 10..=nearest + 10).collect();
    let exact = (0..20)
        .flat_map(|_| rt.block_on(handshakes(&around, link)))
        .find(|s| flight(s) == budget)
        .expect("no flight of exactly 3×");
    assert_eq!(exact.rounds, Some(1), "exactly 3×: one round trip");
    assert_eq!(at(&|s| flight(s) <= budget && s.rounds != Some(1)), 0);
    assert!(
        at(&|s| s.rounds == Some(2)) >= 10,
        "no flight was held back"
    );
    assert_eq!(at(&|s| flight(s) <= budget && s.rounds == Some(2)), 0);
    // quinn lets a datagram leave while any of the budget is left: a flight of a little
    // more than 3× whose last datagram started below it goes in one round trip.
    let smallest_held = (seen.iter().filter(|s| s.rounds == Some(2)))
        .map(flight)
        .min()
        .unwrap();
    assert!(smallest_held > budget);
    // The model counts bytes: one byte over 3× costs it a round trip.
    let cwnd = CHROME.initial_cwnd();
    assert_eq!(rounds_beyond(budget, budget, cwnd), 0);
    assert_eq!(rounds_beyond(budget + 1, budget, cwnd), 1);
}
