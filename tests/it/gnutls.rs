//! `gnutls` verifies as glib-networking (2.70 and later) does, through what
//! `gnutls_certificate_verify_peers3(session, host)` calls: the host is checked inside the one
//! timed `verify` call (no `verify-hostname` stage), GnuTLS's `GNUTLS_CERT_UNEXPECTED_OWNER`
//! names a mismatch, an IP address goes to GnuTLS as text (GnuTLS matches the literal against
//! iPAddress names), the raw peer list is given as sent (GnuTLS sorts it), more than 16
//! certificates is GnuTLS's verify-depth error, and a must-staple certificate with no stapled
//! response is rejected. A stapled OCSP response is checked as GnuTLS 3.7.9's
//! `check_ocsp_response` checks it (`check_stapled_ocsp`, on revoked.badssl.com's real one).

use certbench_core::chain::Chain;
use certbench_core::methods::Method;
use certbench_core::methods::gnutls::check_stapled_ocsp;
use certbench_core::revocation::{Mechanism, RevocationError, SoftFail, Status};
use certbench_core::stages::Recorder;
use certbench_core::verifier::{PeerName, Target};
use certbench_schema::Stage;
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

fn other_roots(corpus: &certbench_core::corpus::Corpus) -> Vec<CertificateDer<'static>> {
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

/// revoked.badssl.com's real stapled response (DigiCert's, signed by the issuer itself):
/// revoked, thisUpdate 2021-12-02T02:09:01Z, nextUpdate 2021-12-09T01:24:01Z.
fn revoked_badssl() -> (
    Vec<u8>,
    CertificateDer<'static>,
    CertificateDer<'static>,
    u64,
) {
    let corpus = corpus();
    let c = chain(&corpus, "revoked.badssl.com__platform-verifier");
    let response = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/real-chains/revoked.badssl.com__platform-verifier/stapled.ocsp"
    ))
    .unwrap();
    (
        response,
        c.chain.leaf.clone(),
        c.chain.intermediates[0].clone(),
        c.validation_time,
    )
}

/// The detail of an OCSP rejection (`Invalid` or `Corrupt`), its mechanism checked.
fn ocsp_error(e: RevocationError) -> String {
    match e {
        RevocationError::Invalid { mechanism, detail }
        | RevocationError::Corrupt { mechanism, detail } => {
            assert_eq!(mechanism, Mechanism::Ocsp);
            detail
        }
        other => panic!("not an OCSP rejection: {other:?}"),
    }
}

/// `check_stapled_ocsp` as GnuTLS 3.7.9's `check_ocsp_response` decides, on the real
/// response: revoked at the chain's time, and still revoked after nextUpdate and before
/// thisUpdate (GnuTLS reads the status before the times, and never checks thisUpdate).
#[test]
fn gnutls_finds_revoked_badssl_revoked_by_its_real_stapled_response() {
    let (response, leaf, issuer, time) = revoked_badssl();
    assert_eq!(time, 1_638_705_600);
    let check = |t| check_stapled_ocsp(Some(&response), &leaf, &issuer, t);
    assert_eq!(check(time), Ok(Status::Revoked { depth: 0 }));
    // nextUpdate 2021-12-09T01:24:01Z = 1639013041: a good response would be superseded,
    // a revoked one stays revoked.
    assert_eq!(check(1_639_013_042), Ok(Status::Revoked { depth: 0 }));
    assert_eq!(check(1_700_000_000), Ok(Status::Revoked { depth: 0 }));
    // Before thisUpdate (2021-12-02T02:09:01Z = 1638410941): no ISSUED_IN_FUTURE for OCSP.
    assert_eq!(check(1_638_300_000), Ok(Status::Revoked { depth: 0 }));
}

/// The response for another certificate, or checked against another issuer, is refused with
/// GnuTLS's `GNUTLS_CERT_INVALID_OCSP_STATUS`, in its words.
#[test]
fn gnutls_refuses_a_stapled_response_for_another_certificate_or_issuer() {
    let (response, leaf, issuer, time) = revoked_badssl();
    let corpus = corpus();
    let other = chain(&corpus, "reddit.com__rustls-bench");
    // Another leaf (its own issuer, or this response's): the CertID is not its.
    for issuer in [&other.chain.intermediates[0], &issuer] {
        let e = check_stapled_ocsp(Some(&response), &other.chain.leaf, issuer, time).unwrap_err();
        let detail = ocsp_error(e);
        assert!(detail.contains("unrelated certificate"), "{detail}");
        assert!(
            detail.contains("GNUTLS_CERT_INVALID_OCSP_STATUS"),
            "{detail}"
        );
    }
    // The right leaf, another issuer: the signature does not verify with its key.
    let e = check_stapled_ocsp(Some(&response), &leaf, &other.chain.intermediates[0], time)
        .unwrap_err();
    let detail = ocsp_error(e);
    assert!(
        detail.contains("GNUTLS_CERT_INVALID_OCSP_STATUS"),
        "{detail}"
    );
}

/// No response soft-fails (GnuTLS ignores its absence) unless the leaf is must-staple; so does
/// a response whose responseStatus is not successful, which GnuTLS ignores the same way.
#[test]
fn gnutls_soft_fails_without_a_stapled_response_unless_the_leaf_is_must_staple() {
    let (_, leaf, issuer, time) = revoked_badssl();
    let try_later = [0x30, 0x03, 0x0a, 0x01, 0x03]; // OCSPResponse { tryLater }
    assert_eq!(
        check_stapled_ocsp(None, &leaf, &issuer, time),
        Ok(Status::SoftFail(SoftFail::NoData))
    );
    assert_eq!(
        check_stapled_ocsp(Some(&try_later), &leaf, &issuer, time),
        Ok(Status::SoftFail(SoftFail::NoData))
    );

    let pki = Pki::new("certbench gnutls OCSP must-staple CA");
    let staple = pki.leaf(vec![dns("good.example")], true);
    for response in [None, Some(&try_later[..])] {
        let e = check_stapled_ocsp(response, &staple, &pki.root, NOW).unwrap_err();
        let detail = ocsp_error(e);
        assert!(
            detail.contains("GNUTLS_CERT_MISSING_OCSP_STATUS"),
            "{detail}"
        );
    }
    let plain = pki.leaf(vec![dns("good.example")], false);
    assert_eq!(
        check_stapled_ocsp(None, &plain, &pki.root, NOW),
        Ok(Status::SoftFail(SoftFail::NoData))
    );
}

/// A corrupted response is an error, never an accept: cut short, it does not parse
/// (`Corrupt`); a flipped byte in its signature or its signed data fails the check (`Invalid`).
#[test]
fn gnutls_rejects_a_corrupted_stapled_response() {
    let (response, leaf, issuer, time) = revoked_badssl();
    for len in [0, 1, 10, response.len() / 2, response.len() - 1] {
        let e = check_stapled_ocsp(Some(&response[..len]), &leaf, &issuer, time).unwrap_err();
        assert!(
            matches!(
                e,
                RevocationError::Corrupt {
                    mechanism: Mechanism::Ocsp,
                    ..
                }
            ),
            "cut to {len}: {e:?}"
        );
    }
    let mut flipped = response.clone();
    *flipped.last_mut().unwrap() ^= 0x01; // the last byte of the signature
    let detail = ocsp_error(check_stapled_ocsp(Some(&flipped), &leaf, &issuer, time).unwrap_err());
    assert!(
        detail.contains("GNUTLS_OCSP_VERIFY_SIGNATURE_FAILURE"),
        "{detail}"
    );
    // Every byte of the signed tbsResponseData (offsets 34 to 213 of this response: the
    // responder id, producedAt, the CertID, the status, the times) flipped: a rejection each
    // time. Everywhere else, the outcome is never an accept: GnuTLS ignores some unsigned
    // bytes (the signature algorithm's NULL parameters), and the response then still says
    // revoked; and the responseStatus (byte 6, unsigned) made unsuccessful is a response
    // GnuTLS ignores, as if none had been stapled: the soft-fail of no response.
    for at in 0..response.len() {
        let mut flipped = response.clone();
        flipped[at] ^= 0x01;
        let got = check_stapled_ocsp(Some(&flipped), &leaf, &issuer, time);
        if (34..214).contains(&at) {
            assert!(got.is_err(), "byte {at} flipped: {got:?}");
        } else if at == 6 {
            assert_eq!(
                got,
                Ok(Status::SoftFail(SoftFail::NoData)),
                "responseStatus 1"
            );
        } else {
            assert!(
                matches!(got, Err(_) | Ok(Status::Revoked { depth: 0 })),
                "byte {at} flipped: {got:?}"
            );
        }
    }
}
