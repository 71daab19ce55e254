//! For every method: an expired chain, a wrong host, a root not in the store and missing
//! intermediates are rejected, each with the verifier's own reason.

use crate::common::{Fault, browser_reason, chain, corpus, verdict_with};
use certbench_core::methods::Method;
use openssl::asn1::Asn1Time;
use openssl::x509::X509;

/// The fault each case is.
fn fault(case: &str) -> Fault {
    match case {
        "expired" => Fault::Expired,
        "wrong-host" => Fault::WrongHost,
        _ => Fault::Untrusted,
    }
}

/// Expected reason (prefix) per method and case.
fn reason(method: Method, case: &str) -> &'static str {
    match (method, case) {
        (Method::OpenSsl, "expired") => "certificate has expired (depth 0)",
        (Method::OpenSsl, "wrong-host") => "hostname mismatch (depth 0)",
        (Method::OpenSsl, "untrusted-root") => "unable to get local issuer certificate (depth 1)",
        (Method::OpenSsl, "no-intermediates") => "unable to get local issuer certificate (depth 0)",
        (Method::AwsLc, "expired") => "certificate has expired (depth 0)",
        (Method::AwsLc, "wrong-host") => "Hostname mismatch (depth 0)",
        (Method::AwsLc, "untrusted-root") => "unable to get local issuer certificate (depth 1)",
        (Method::AwsLc, "no-intermediates") => "unable to get local issuer certificate (depth 0)",
        (Method::Webpki | Method::Platform, "expired") => {
            "invalid peer certificate: certificate expired"
        }
        (Method::Webpki | Method::Platform, "wrong-host") => {
            "invalid peer certificate: certificate not valid for name"
        }
        (Method::Webpki | Method::Platform, _) => "invalid peer certificate: UnknownIssuer",
        // The browsers' verifiers, in their libraries' words.
        (m, case) if browser_reason(m.name(), fault(case)).is_some() => {
            browser_reason(m.name(), fault(case)).unwrap()
        }
        (_, "expired") => "CertExpired",
        (_, "wrong-host") => "CertNotValidForName",
        (_, "untrusted-root") | (_, "no-intermediates") => "UnknownIssuer",
        _ => unreachable!(),
    }
}

fn unix(t: &openssl::asn1::Asn1TimeRef) -> u64 {
    let d = Asn1Time::from_unix(0).unwrap().diff(t).unwrap();
    (i64::from(d.days) * 86_400 + i64::from(d.secs)) as u64
}

#[test]
fn each_bad_case_is_rejected_with_the_verifiers_reason() {
    let corpus = corpus();
    let c = chain(&corpus, "reddit.com__rustls-bench");
    let not_after = unix(X509::from_der(&c.chain.leaf).unwrap().not_after());
    // A root that is real and trusted elsewhere, but not reddit's.
    let other_root = chain(&corpus, "github.com__rustls-bench").roots.clone();
    assert_ne!(other_root, c.roots);
    let mut no_intermediates = c.chain.clone();
    no_intermediates.intermediates.clear();

    for &method in crate::common::all_methods() {
        let v = method.verifier();
        assert_eq!(
            verdict_with(v.as_ref(), &c.roots, &c.chain, &c.host, c.validation_time),
            Ok(()),
            "{method}: the untouched chain is valid"
        );
        let cases = [
            (
                "expired",
                verdict_with(v.as_ref(), &c.roots, &c.chain, &c.host, not_after + 86_400),
            ),
            (
                "wrong-host",
                verdict_with(
                    v.as_ref(),
                    &c.roots,
                    &c.chain,
                    "www.example.org",
                    c.validation_time,
                ),
            ),
            (
                "untrusted-root",
                verdict_with(
                    v.as_ref(),
                    &other_root,
                    &c.chain,
                    &c.host,
                    c.validation_time,
                ),
            ),
            (
                "no-intermediates",
                verdict_with(
                    v.as_ref(),
                    &c.roots,
                    &no_intermediates,
                    &c.host,
                    c.validation_time,
                ),
            ),
        ];
        for (case, got) in cases {
            if method == Method::Platform && case == "untrusted-root" {
                // `platform` trusts the system store besides the given roots: reddit's root is
                // untrusted only if the system does not hold it either.
                assert_eq!(
                    got.is_ok(),
                    crate::common::system_trusts(&c.roots[0]),
                    "{method} {case}: {got:?}"
                );
                continue;
            }
            let e = got.expect_err(&format!("{method} must reject {case}"));
            assert!(
                e.starts_with(reason(method, case)),
                "{method} {case}: got `{e}`"
            );
        }
    }
}

#[test]
fn hostname_is_checked_against_dns_and_ip_names() {
    let corpus = corpus();
    let c = chain(&corpus, "reddit.com__rustls-bench");
    for &method in crate::common::all_methods() {
        let v = method.verifier();
        // The leaf has *.reddit.com: one label matches, two do not.
        let t = c.validation_time;
        assert_eq!(
            verdict_with(v.as_ref(), &c.roots, &c.chain, "www.reddit.com", t),
            Ok(())
        );
        assert!(verdict_with(v.as_ref(), &c.roots, &c.chain, "a.b.reddit.com", t).is_err());
        assert!(verdict_with(v.as_ref(), &c.roots, &c.chain, "127.0.0.1", t).is_err());
    }
}
