//! `gnutls` verifies as glib-networking (2.70 and later) does, through what
//! `gnutls_certificate_verify_peers3(session, host)` calls: the host is checked inside the one
//! timed `verify` call (no `verify-hostname` stage), GnuTLS's `GNUTLS_CERT_UNEXPECTED_OWNER`
//! names a mismatch, an IP address goes to GnuTLS as text (GnuTLS matches the literal against
//! iPAddress names), the raw peer list is given as sent (GnuTLS sorts it), more than 16
//! certificates is GnuTLS's verify-depth error, and a must-staple certificate with no stapled
//! response is rejected.

use certbench::Method;
use certbench::chain::Chain;
use certbench::stages::Recorder;
use certbench::verifier::{PeerName, Target};
use certbench_analysis::Stage;
use rcgen::{
    BasicConstraints, CertificateParams, CustomExtension, DnType, IsCa, Issuer, KeyPair, SanType,
};
use rustls_pki_types::CertificateDer;

use crate::common::{chain, corpus};

/// A validation time inside rcgen's default validity (1975–4096) and the corpus chain's.
const NOW: u64 = 1_770_205_316;

/// Runs `gnutls` on `chain` for `target`, trusting `roots`: its verdict and stages.
fn run(
    roots: &[CertificateDer<'static>],
    chain: &Chain,
    target: Target<'_>,
) -> (Result<(), String>, Recorder) {
    let v = Method::Gnutls.verifier();
    let store = v.build_roots(roots).expect("roots build");
    let mut rec = Recorder::new();
    let got = v
        .verify(&store, chain, target, &mut rec)
        .map_err(|r| r.reason);
    (got, rec)
}

fn host_target(host: &str) -> Target<'_> {
    Target::server(host, NOW)
}

#[test]
fn gnutls_checks_the_host_inside_verify_and_records_no_verify_hostname() {
    let corpus = corpus();
    let c = chain(&corpus, "reddit.com__rustls-bench");
    let t = c.validation_time;

    let (ok, rec) = run(&c.roots, &c.chain, Target::server(&c.host, t));
    assert_eq!(ok, Ok(()), "right host");
    assert!(rec.get(Stage::ChainCreation).is_some(), "chain-creation");
    assert!(rec.get(Stage::Verify).is_some(), "verify");
    assert_eq!(rec.get(Stage::VerifyHostname), None, "no verify-hostname");

    // The leaf has *.reddit.com: the same call rejects another name, with GnuTLS's bit.
    for host in ["www.example.org", "a.b.reddit.com", "reddit.com.evil.test"] {
        let (got, rec) = run(&c.roots, &c.chain, Target::server(host, t));
        let e = got.expect_err(host);
        assert!(
            e.starts_with(&format!(
                "The certificate's owner does not match the name {host} \
                 (GNUTLS_CERT_UNEXPECTED_OWNER)"
            )),
            "{host}: {e}"
        );
        // GnuTLS's own words for the bit (gnutls_certificate_verification_status_print).
        assert!(
            e.contains("The name in the certificate does not match the expected"),
            "{host}: {e}"
        );
        assert!(rec.get(Stage::Verify).is_some(), "{host}: verify");
        assert_eq!(rec.get(Stage::VerifyHostname), None, "{host}: one call");
    }

    // No peer name: the path alone (verify_peers3 with a NULL host).
    let mut target = Target::server(&c.host, t);
    target.peer = None;
    assert_eq!(run(&c.roots, &c.chain, target).0, Ok(()));

    // A chain fault and a wrong host at once: both bits in one status (the host is checked
    // even though the path failed, as inside gnutls_x509_trust_list_verify_crt2).
    let (got, _) = run(
        &other_roots(&corpus),
        &c.chain,
        Target::server("www.example.org", t),
    );
    let e = got.unwrap_err();
    assert!(e.contains("The certificate issuer is unknown"), "{e}");
    assert!(e.contains("GNUTLS_CERT_UNEXPECTED_OWNER"), "{e}");
}

fn other_roots(corpus: &certbench::corpus::Corpus) -> Vec<CertificateDer<'static>> {
    chain(corpus, "github.com__rustls-bench").roots.clone()
}

/// A made CA, and leaves it signs.
struct Pki {
    root: CertificateDer<'static>,
    issuer: Issuer<'static, KeyPair>,
}

impl Pki {
    fn new(name: &str) -> Pki {
        let key = KeyPair::generate().unwrap();
        let params = ca_params(name);
        let root = params.self_signed(&key).unwrap().der().clone();
        Pki {
            root,
            issuer: Issuer::new(params, key),
        }
    }

    /// A leaf for `sans`, with the TLS feature `status_request` when `must_staple`.
    fn leaf(&self, sans: Vec<SanType>, must_staple: bool) -> CertificateDer<'static> {
        let mut p = CertificateParams::default();
        p.distinguished_name
            .push(DnType::CommonName, "certbench gnutls leaf");
        p.subject_alt_names = sans;
        if must_staple {
            p.custom_extensions.push(must_staple_extension());
        }
        let key = KeyPair::generate().unwrap();
        p.signed_by(&key, &self.issuer).unwrap().der().clone()
    }

    /// An intermediate CA under this one, with `status_request` when `must_staple`.
    fn intermediate(&self, name: &str, must_staple: bool) -> Pki {
        let key = KeyPair::generate().unwrap();
        let mut params = ca_params(name);
        if must_staple {
            params.custom_extensions.push(must_staple_extension());
        }
        let root = params.signed_by(&key, &self.issuer).unwrap().der().clone();
        Pki {
            root,
            issuer: Issuer::new(params, key),
        }
    }
}

fn ca_params(name: &str) -> CertificateParams {
    let mut p = CertificateParams::default();
    p.distinguished_name.push(DnType::CommonName, name);
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p
}

/// RFC 7633's TLS feature extension (id-pe-tlsfeature, 1.3.6.1.5.5.7.1.24) holding
/// `status_request` (5): `SEQUENCE { INTEGER 5 }`.
fn must_staple_extension() -> CustomExtension {
    CustomExtension::from_oid_content(
        &[1, 3, 6, 1, 5, 5, 7, 1, 24],
        vec![0x30, 0x03, 0x02, 0x01, 0x05],
    )
}

fn dns(name: &str) -> SanType {
    SanType::DnsName(name.try_into().unwrap())
}

fn ip(text: &str) -> SanType {
    SanType::IpAddress(text.parse().unwrap())
}

fn leaf_only(leaf: CertificateDer<'static>) -> Chain {
    Chain {
        leaf,
        intermediates: vec![],
    }
}

#[test]
fn gnutls_matches_ip_addresses_as_glib_networking_passes_them() {
    let pki = Pki::new("certbench gnutls IP CA");
    let roots = [pki.root.clone()];
    let ch = leaf_only(pki.leaf(
        vec![dns("good.example"), ip("192.0.2.7"), ip("2001:db8::7")],
        false,
    ));
    for host in ["good.example", "192.0.2.7", "2001:db8::7", "[2001:db8::7]"] {
        let target = host_target(host);
        let ip_target = matches!(target.peer, Some(PeerName::Ip(_)));
        assert_eq!(ip_target, host != "good.example", "{host}");
        let (got, rec) = run(&roots, &ch, target);
        assert_eq!(got, Ok(()), "{host}");
        assert_eq!(rec.get(Stage::VerifyHostname), None, "{host}");
    }
    for host in [
        "192.0.2.8",
        "2001:db8::8",
        "::ffff:192.0.2.7",
        "bad.example",
    ] {
        let e = run(&roots, &ch, host_target(host)).0.expect_err(host);
        assert!(e.contains("GNUTLS_CERT_UNEXPECTED_OWNER"), "{host}: {e}");
    }
    // GnuTLS (since 3.6.0) matches an IP literal against iPAddress names only: an address
    // written as a dNSName does not match it.
    let ip_as_dns = leaf_only(pki.leaf(vec![dns("192.0.2.7")], false));
    let e = run(&roots, &ip_as_dns, host_target("192.0.2.7"))
        .0
        .unwrap_err();
    assert!(e.contains("GNUTLS_CERT_UNEXPECTED_OWNER"), "{e}");
}

#[test]
fn gnutls_rejects_a_must_staple_certificate_with_no_stapled_response() {
    let pki = Pki::new("certbench gnutls must-staple CA");
    let roots = [pki.root.clone()];
    let plain = leaf_only(pki.leaf(vec![dns("good.example")], false));
    assert_eq!(run(&roots, &plain, host_target("good.example")).0, Ok(()));

    let staple = leaf_only(pki.leaf(vec![dns("good.example")], true));
    let e = run(&roots, &staple, host_target("good.example"))
        .0
        .unwrap_err();
    // GNUTLS_CERT_MISSING_OCSP_STATUS, in GnuTLS's words.
    assert!(e.contains("OCSP status"), "{e}");
    assert!(!e.contains("GNUTLS_CERT_UNEXPECTED_OWNER"), "{e}");

    // Every peer certificate is checked, not only the leaf: an intermediate that demands
    // stapling is rejected too (in TLS 1.3 each certificate may carry its own response). The
    // leaf below it lacks the feature, which the path check also refuses
    // (GNUTLS_CERT_SIGNER_CONSTRAINTS_FAILURE); the missing status is the must-staple rule's.
    let inter = pki.intermediate("certbench gnutls must-staple intermediate", true);
    let ch = Chain {
        leaf: inter.leaf(vec![dns("good.example")], false),
        intermediates: vec![inter.root.clone()],
    };
    let e = run(&roots, &ch, host_target("good.example")).0.unwrap_err();
    assert!(e.contains("OCSP status"), "{e}");
}

#[test]
fn gnutls_takes_the_raw_peer_list_as_sent_and_sorts_it_itself() {
    let pki = Pki::new("certbench gnutls sort CA");
    let roots = [pki.root.clone()];
    let a = pki.intermediate("certbench gnutls intermediate A", false);
    let b = a.intermediate("certbench gnutls intermediate B", false);
    let leaf = b.leaf(vec![dns("good.example")], false);
    let stray = Pki::new("certbench gnutls stray CA").root;
    // Sent out of order, with a certificate off the path: GnuTLS sorts and drops what it
    // does not need (the old glib-networking path linked the chain before GnuTLS saw it).
    let ch = Chain {
        leaf: leaf.clone(),
        intermediates: vec![stray.clone(), a.root.clone(), b.root.clone()],
    };
    assert_eq!(run(&roots, &ch, host_target("good.example")).0, Ok(()));

    // More than 16 certificates: GnuTLS's verify depth (GNUTLS_E_CONSTRAINT_ERROR), before
    // anything is parsed; exactly 16 is verified.
    let mut sixteen = Chain {
        leaf,
        intermediates: vec![b.root.clone(), a.root.clone()],
    };
    sixteen.intermediates.resize(15, stray);
    assert_eq!(run(&roots, &sixteen, host_target("good.example")).0, Ok(()));
    let mut seventeen = sixteen.clone();
    seventeen.intermediates.push(pki.root.clone());
    let (got, rec) = run(&roots, &seventeen, host_target("good.example"));
    let e = got.unwrap_err();
    assert!(e.contains("verify depth"), "{e}");
    assert_eq!(rec.get(Stage::Verify), None, "{e}");
}
