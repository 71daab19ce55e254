//! The mirror's clones have their real chains' shape and verdicts; the fault hosts fail as
//! named; a second load reuses the cache; the clones' leaves carry as many SCTs as their
//! originals, from the mirror's CT logs, each verifying (checked here with code of the test's
//! own: x509-parser, a DER walk and webpki's ECDSA).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::common::{Fault, browser_reason, corpus, verdict, verdict_with};
use certbench::certs::clone::{CA_SUFFIX, CloneError, Cloner};
use certbench::certs::ct::{CtError, MIRROR_SUFFIX, MirrorLog, SctSpec, issue_with_scts};
use certbench::mirror::{EXPIRED_HOST, MirrorSet, UNTRUSTED_HOST, WRONG_HOST};
use certbench_core::chain::Chain;
use certbench_core::der::key_type;
use certbench_core::methods::Method;
use rcgen::{
    BasicConstraints, CertificateParams, CustomExtension, DnType, IsCa, Issuer, KeyPair,
    PublicKeyData,
};
use rustls_pki_types::CertificateDer;
use sha2::{Digest, Sha256};
use x509_parser::extensions::{ParsedExtension, SignedCertificateTimestamp};
use x509_parser::prelude::{FromDer, X509Certificate};

/// The binary's mirror set (generated once, in a new folder: see `common::mirror`).
fn set() -> &'static MirrorSet {
    let set = &crate::common::mirror().0;
    assert!(!set.from_cache, "a new folder has no cache");
    set
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn chain_of(certs: &[rustls_pki_types::CertificateDer<'static>]) -> Chain {
    Chain {
        leaf: certs[0].clone(),
        intermediates: certs[1..].to_vec(),
    }
}

/// (oid, critical) → value, leaving out the key identifiers, which are new by design, and the
/// SCT list's value (the mirror's SCTs: see the tests below).
fn extensions(x: &X509Certificate<'_>) -> BTreeMap<(String, bool), Vec<u8>> {
    x.extensions()
        .iter()
        .filter(|e| !["2.5.29.14", "2.5.29.35"].contains(&e.oid.to_id_string().as_str()))
        .map(|e| match e.oid.to_id_string() {
            id if id == SCT_LIST => ((id, e.critical), Vec::new()),
            id => ((id, e.critical), e.value.to_vec()),
        })
        .collect()
}

fn has(x: &X509Certificate<'_>, oid: &str) -> bool {
    x.extensions().iter().any(|e| e.oid.to_id_string() == oid)
}

#[test]
fn every_clone_has_its_real_chains_shape() {
    let corpus = corpus();
    let set = set();
    let mut checked = 0;
    for (host, served) in &set.hosts {
        let Some(original) = corpus.chains.iter().find(|c| c.id == served.source) else {
            assert_eq!(served.source, "synthetic", "{host}");
            continue;
        };
        let orig: Vec<_> = original.chain.iter().cloned().collect();
        assert_eq!(served.chain.len(), orig.len(), "{host}: depth");
        for (i, (o, c)) in orig.iter().zip(&served.chain).enumerate() {
            assert_eq!(
                key_type(o),
                key_type(c),
                "{host} cert {i}: key type and size"
            );
            let (_, ox) = X509Certificate::from_der(o).unwrap();
            let (_, cx) = X509Certificate::from_der(c).unwrap();
            assert_eq!(
                extensions(&ox),
                extensions(&cx),
                "{host} cert {i}: extensions"
            );
            for id in ["2.5.29.14", "2.5.29.35"] {
                assert_eq!(has(&ox, id), has(&cx, id), "{host} cert {i}: {id} present");
            }
            let span = |x: &X509Certificate<'_>| {
                x.validity().not_after.timestamp() - x.validity().not_before.timestamp()
            };
            assert_eq!(span(&ox), span(&cx), "{host} cert {i}: validity span");
            assert_eq!(ox.raw_serial(), cx.raw_serial(), "{host} cert {i}: serial");
            let o_cn = ox
                .subject()
                .iter_common_name()
                .next()
                .map(|a| a.as_str().unwrap().to_owned());
            let c_cn = cx
                .subject()
                .iter_common_name()
                .next()
                .map(|a| a.as_str().unwrap().to_owned());
            if i == 0 {
                assert_eq!(o_cn, c_cn, "{host}: leaf subject");
            } else {
                assert!(
                    c_cn.unwrap().ends_with(CA_SUFFIX),
                    "{host} cert {i}: CA renamed"
                );
            }
        }
        checked += 1;
    }
    // Every corpus host (32 distinct hosts among the 34 chains) has a clone.
    assert_eq!(checked, 32);
    for host in ["cnn.com", EXPIRED_HOST, WRONG_HOST, UNTRUSTED_HOST] {
        assert!(set.hosts.contains_key(host), "{host}");
    }
}

#[test]
fn clones_get_the_verdicts_their_originals_get() {
    let corpus = corpus();
    let set = set();
    for &method in crate::common::all_methods() {
        for (host, served) in &set.hosts {
            let Some(original) = corpus.chains.iter().find(|c| c.id == served.source) else {
                continue;
            };
            let want = verdict(method, original).is_ok();
            let v = method.verifier();
            let got = verdict_with(
                v.as_ref(),
                &set.roots,
                &chain_of(&served.chain),
                host,
                now(),
            );
            if method == Method::WebpkiLegacy && host == "irelease-dev.sanofi.com" {
                // The one known difference: the real leaf's RSA signature identifier has no
                // NULL parameters, which webpki 0.22 does not accept; the clone is signed by
                // rcgen with the standard identifier (with NULL), so webpki 0.22 accepts it.
                let sig_alg = |der: &[u8]| {
                    certbench_core::der::SignedParts::parse(der)
                        .unwrap()
                        .sig_alg
                        .len()
                };
                assert_eq!(sig_alg(&original.chain.leaf), 11, "OID only");
                assert_eq!(sig_alg(&served.chain[0]), 13, "OID + NULL");
                assert!(!want && got.is_ok());
                continue;
            }
            if method == Method::Gnutls && host == "aws.amazon.com" {
                // GnuTLS follows the chain as sent to its last certificate (the cross-signed
                // Starfield G2, issued by Starfield Class 2) and builds no other path: under the
                // original's one root (the self-signed Amazon Root CA 1) it finds no anchor;
                // the mirror trusts a clone of every root its chains end in.
                assert!(!want && got.is_ok(), "{got:?}");
                continue;
            }
            assert_eq!(got.is_ok(), want, "{method} {host}: {got:?}");
        }
        let v = method.verifier();
        let cnn = &set.hosts["cnn.com"];
        let ok = verdict_with(
            v.as_ref(),
            &set.roots,
            &chain_of(&cnn.chain),
            "www.cnn.com",
            now(),
        );
        assert_eq!(ok, Ok(()), "{method} cnn.com");
    }
}

#[test]
fn fault_hosts_are_rejected_for_their_reason() {
    let set = set();
    for &method in crate::common::all_methods() {
        let v = method.verifier();
        let run = |host: &str| {
            verdict_with(
                v.as_ref(),
                &set.roots,
                &chain_of(&set.hosts[host].chain),
                host,
                now(),
            )
            .unwrap_err()
        };
        let (expired, wrong, untrusted) = (run(EXPIRED_HOST), run(WRONG_HOST), run(UNTRUSTED_HOST));
        if crate::common::speaks_openssl(method) {
            assert!(expired.starts_with("certificate has expired"), "{expired}");
            assert!(
                wrong.to_lowercase().starts_with("hostname mismatch"),
                "{wrong}"
            );
            assert!(
                untrusted.starts_with("unable to get local issuer certificate"),
                "{untrusted}"
            );
        } else if let Some(want) = browser_reason(method.name(), Fault::Expired) {
            assert!(expired.starts_with(want), "{method}: {expired}");
            let want = browser_reason(method.name(), Fault::WrongHost).unwrap();
            assert!(wrong.starts_with(want), "{method}: {wrong}");
            let want = browser_reason(method.name(), Fault::Untrusted).unwrap();
            assert!(untrusted.starts_with(want), "{method}: {untrusted}");
        } else if crate::common::speaks_rustls(method) {
            assert!(expired.contains("certificate expired"), "{expired}");
            assert!(wrong.contains("certificate not valid for name"), "{wrong}");
            assert!(untrusted.contains("UnknownIssuer"), "{untrusted}");
        } else {
            assert!(expired.starts_with("CertExpired"), "{expired}");
            assert!(wrong.starts_with("CertNotValidForName"), "{wrong}");
            assert!(untrusted.starts_with("UnknownIssuer"), "{untrusted}");
        }
    }
}

#[test]
fn a_second_load_reuses_the_cached_clones() {
    let set = set();
    let again = MirrorSet::load_or_generate(&corpus(), &set.dir).unwrap();
    assert!(again.from_cache, "no key generation the second time");
    assert_eq!(again.hosts.len(), set.hosts.len());
    for (host, h) in &set.hosts {
        assert_eq!(
            again.hosts[host].chain, h.chain,
            "{host}: same certificates"
        );
        assert_eq!(again.hosts[host].key, h.key, "{host}: same key");
    }
    assert_eq!(again.roots, set.roots);
    assert_eq!(again.ct_log_list, set.ct_log_list, "same CT log list");
    let keys = |s: &MirrorSet| -> Vec<(Vec<u8>, Option<[u8; 32]>)> {
        (s.ct_logs.logs().iter())
            .map(|l| (l.key_pkcs8().to_vec(), l.real_log_id))
            .collect()
    };
    assert_eq!(keys(&again), keys(set), "same CT log keys");
}

#[test]
fn a_damaged_cache_is_made_anew_not_an_error() {
    let set = set();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("m");
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(&set.dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, copy.join(p.file_name().unwrap())).unwrap();
        }
    }
    // index.json and roots.pem are there, but no host folder: the cache cannot be used.
    let again = MirrorSet::load_or_generate(&corpus(), &copy).unwrap();
    assert!(!again.from_cache);
    assert_eq!(again.hosts.len(), set.hosts.len());
}

const SCT_LIST: &str = "1.3.6.1.4.1.11129.2.4.2";

/// Standard base64 (padded) decoded.
fn unbase64(s: &str) -> Vec<u8> {
    let abc = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for c in s.bytes().filter(|&c| c != b'=') {
        acc = acc << 6 | abc.iter().position(|&a| a == c).expect("base64") as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// A CT log list's logs (RFC 6962 and static-CT-API ones): LogID → (raw public key point,
/// description, operator).
fn list_logs(json: &str) -> HashMap<Vec<u8>, (Vec<u8>, String, String)> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut logs = HashMap::new();
    for o in v["operators"].as_array().unwrap() {
        let tiled = o.get("tiled_logs").and_then(|t| t.as_array());
        let all = o["logs"]
            .as_array()
            .unwrap()
            .iter()
            .chain(tiled.into_iter().flatten());
        for l in all {
            let spki = unbase64(l["key"].as_str().unwrap());
            let (_, key) = x509_parser::x509::SubjectPublicKeyInfo::from_der(&spki).unwrap();
            let entry = (
                key.subject_public_key.data.to_vec(),
                l["description"].as_str().unwrap().to_owned(),
                o["name"].as_str().unwrap().to_owned(),
            );
            logs.insert(unbase64(l["log_id"].as_str().unwrap()), entry);
        }
    }
    logs
}

/// The DER TLV at the start of `b`: (tag, contents, whole, rest).
fn tlv(b: &[u8]) -> (u8, &[u8], &[u8], &[u8]) {
    let (len, head) = match b[1] {
        n if n < 0x80 => (n as usize, 2),
        n => {
            let k = (n & 0x7f) as usize;
            (
                b[2..2 + k].iter().fold(0, |a, &x| a << 8 | x as usize),
                2 + k,
            )
        }
    };
    (
        b[0],
        &b[head..head + len],
        &b[..head + len],
        &b[head + len..],
    )
}

fn der(tag: u8, contents: &[u8]) -> Vec<u8> {
    let n = contents.len();
    let mut out = vec![tag];
    match n {
        0..0x80 => out.push(n as u8),
        0x80..0x100 => out.extend([0x81, n as u8]),
        0x100..0x10000 => out.extend([0x82, (n >> 8) as u8, n as u8]),
        _ => out.extend([0x83, (n >> 16) as u8, (n >> 8) as u8, n as u8]),
    }
    out.extend(contents);
    out
}

/// RFC 6962 §3.2's PreCert.tbs_certificate: `cert`'s TBS without the SCT list extension.
fn precert_tbs(x: &X509Certificate<'_>) -> Vec<u8> {
    let sct_oid = der(0x06, x509_parser::oid_registry::OID_CT_LIST_SCT.as_bytes());
    let (_, mut fields, _, _) = tlv(x.tbs_certificate.as_ref());
    let mut out = Vec::new();
    while !fields.is_empty() {
        let (tag, contents, all, rest) = tlv(fields);
        fields = rest;
        if tag != 0xa3 {
            out.extend(all);
            continue;
        }
        let (_, mut exts, _, _) = tlv(contents);
        let mut kept = Vec::new();
        while !exts.is_empty() {
            let (_, ext, all, rest) = tlv(exts);
            exts = rest;
            if !ext.starts_with(&sct_oid) {
                kept.extend(all);
            }
        }
        if !kept.is_empty() {
            out.extend(der(0xa3, &der(0x30, &kept)));
        }
    }
    der(0x30, &out)
}

fn scts<'a>(x: &'a X509Certificate<'a>) -> Vec<SignedCertificateTimestamp<'a>> {
    match x
        .extensions()
        .iter()
        .find(|e| e.oid.to_id_string() == SCT_LIST)
    {
        None => Vec::new(),
        Some(e) => match e.parsed_extension() {
            ParsedExtension::SCT(list) => list.clone(),
            other => panic!("SCT list: {other:?}"),
        },
    }
}

/// Per SCT of `leaf` (issued by the holder of `issuer_spki`): its log (LogID) and whether its
/// signature verifies under that log's key in `logs` over the rebuilt precertificate entry
/// (`Err` when the log is not in `logs`).
fn check_scts(
    leaf: &[u8],
    issuer_spki: &[u8],
    logs: &HashMap<Vec<u8>, (Vec<u8>, String, String)>,
) -> Vec<(Vec<u8>, Result<bool, String>)> {
    let (_, x) = X509Certificate::from_der(leaf).unwrap();
    let tbs = precert_tbs(&x);
    let issuer_key_hash = Sha256::digest(issuer_spki);
    (scts(&x).iter())
        .map(|s| {
            let id = s.id.key_id.to_vec();
            let Some((key, _, _)) = logs.get(&id) else {
                return (id, Err("log not in the list".to_owned()));
            };
            assert_eq!(
                (
                    s.version.0,
                    s.signature.hash_alg_id,
                    s.signature.sign_alg_id
                ),
                (0, 4, 3)
            );
            let mut signed = vec![0u8, 0];
            signed.extend(s.timestamp.to_be_bytes());
            signed.extend([0, 1]);
            signed.extend(issuer_key_hash);
            signed.extend(&(tbs.len() as u32).to_be_bytes()[1..]);
            signed.extend(&tbs);
            signed.extend((s.extensions.0.len() as u16).to_be_bytes());
            signed.extend(s.extensions.0);
            let ok = webpki::aws_lc_rs::ECDSA_P256_SHA256
                .verify_signature(key, &signed, s.signature.data)
                .is_ok();
            (id, Ok(ok))
        })
        .collect()
}

/// The SPKI of the certificate among `candidates` that issued `leaf` (by name).
fn issuer_spki(leaf: &[u8], candidates: &[CertificateDer<'static>]) -> Vec<u8> {
    let (_, x) = X509Certificate::from_der(leaf).unwrap();
    (candidates.iter())
        .map(|c| X509Certificate::from_der(c).unwrap().1)
        .find(|c| c.subject().as_raw() == x.issuer().as_raw())
        .map(|c| c.public_key().raw.to_vec())
        .expect("the leaf's issuer is sent or a root")
}

/// Real LogID → operator, from the corpus's real CT log list; a log it does not list is its
/// own operator, named by its LogID in base64 (as the mirror names it).
fn real_operators() -> impl Fn(&[u8]) -> String {
    let path = certbench::certs::ct::real_list_path(&corpus());
    let known: HashMap<Vec<u8>, String> = match std::fs::read_to_string(path) {
        Ok(text) => (list_logs(&text).into_iter())
            .map(|(id, (_, _, operator))| (id, operator))
            .collect(),
        Err(_) => HashMap::new(),
    };
    move |id| match known.get(id) {
        Some(operator) => operator.clone(),
        None => certbench::certs::ct::base64(id),
    }
}

/// Every SCT of every leaf a corpus clone serves, checked against the set's own log list.
fn check_clone_scts(set: &MirrorSet) -> (usize, usize) {
    let corpus = corpus();
    let logs = list_logs(&set.ct_log_list);
    let operators = real_operators();
    let (mut total, mut leaves) = (0, 0);
    for (host, served) in &set.hosts {
        let Some(original) = corpus.chains.iter().find(|c| c.id == served.source) else {
            continue;
        };
        let (_, ox) = X509Certificate::from_der(&original.chain.leaf).unwrap();
        let (_, cx) = X509Certificate::from_der(&served.chain[0]).unwrap();
        let (real, mine) = (scts(&ox), scts(&cx));
        assert_eq!(real.len(), mine.len(), "{host}: as many SCTs");
        let candidates: Vec<_> = served.chain[1..]
            .iter()
            .chain(&set.roots)
            .cloned()
            .collect();
        let checked = check_scts(
            &served.chain[0],
            &issuer_spki(&served.chain[0], &candidates),
            &logs,
        );
        let shift_ms =
            1000 * (cx.validity().not_before.timestamp() - ox.validity().not_before.timestamp());
        for (i, ((r, m), (id, ok))) in real.iter().zip(&mine).zip(checked).enumerate() {
            assert_eq!(
                ok,
                Ok(true),
                "{host} SCT {i}: verifies under its mirror log"
            );
            let mirror = set
                .ct_logs
                .mirror_of(r.id.key_id)
                .expect("a mirror of every real log");
            assert_eq!(
                &id,
                mirror.log_id(),
                "{host} SCT {i}: from the real log's mirror"
            );
            assert_eq!(
                m.timestamp as i64,
                r.timestamp as i64 + shift_ms,
                "{host} SCT {i}: shifted"
            );
            assert_eq!(m.extensions, r.extensions, "{host} SCT {i}: extensions");
            let real_op = operators(r.id.key_id);
            assert_eq!(
                logs[&id].2,
                format!("{real_op}{MIRROR_SUFFIX}"),
                "{host} SCT {i}: operator"
            );
        }
        let distinct = |ops: Vec<String>| ops.into_iter().collect::<BTreeSet<_>>().len();
        assert_eq!(
            distinct(real.iter().map(|r| operators(r.id.key_id)).collect()),
            distinct(
                mine.iter()
                    .map(|m| logs[&m.id.key_id.to_vec()].2.clone())
                    .collect()
            ),
            "{host}: SCTs from as many operators"
        );
        // Only leaves carry SCTs.
        for (i, c) in served.chain.iter().enumerate().skip(1) {
            let (_, x) = X509Certificate::from_der(c).unwrap();
            assert!(!has(&x, SCT_LIST), "{host} cert {i}: no SCT list");
        }
        total += mine.len();
        leaves += usize::from(!mine.is_empty());
    }
    for r in &set.roots {
        assert!(
            !has(&X509Certificate::from_der(r).unwrap().1, SCT_LIST),
            "a root: no SCT list"
        );
    }
    (total, leaves)
}

#[test]
fn clone_leaves_carry_their_originals_scts_from_the_mirrors_logs() {
    // 32 hosts' first chains: 30 leaves with 77 SCTs (the two second chains, of
    // stackoverflow.com and www.google.com, have 2 more each: 81 in the corpus's 34 leaves).
    assert_eq!(check_clone_scts(set()), (77, 30));
}

#[test]
fn post_quantum_twins_carry_mirror_scts_too() {
    let set = crate::pq::pq_set(certbench::pq::Profile::MlDsa44);
    assert_eq!(check_clone_scts(set), (77, 30));
}

#[test]
fn the_ct_log_list_is_chromes_v3_json_one_log_per_real_log() {
    let set = set();
    let corpus = corpus();
    let written = std::fs::read_to_string(set.dir.join("ct-logs.json")).unwrap();
    assert_eq!(written, set.ct_log_list, "written beside the cache");
    // Every corpus leaf's SCTs: 81, from 28 real logs of 6 operators.
    let mut real_logs = BTreeSet::new();
    let mut count = 0;
    for c in &corpus.chains {
        let (_, x) = X509Certificate::from_der(&c.chain.leaf).unwrap();
        for s in scts(&x) {
            real_logs.insert(s.id.key_id.to_vec());
            count += 1;
        }
    }
    assert_eq!((count, real_logs.len()), (81, 28));
    let operators = real_operators();
    let real_ops: BTreeSet<_> = real_logs.iter().map(|id| operators(id)).collect();
    assert_eq!(real_ops.len(), 6, "{real_ops:?}");
    let v: serde_json::Value = serde_json::from_str(&set.ct_log_list).unwrap();
    assert!(v["version"].is_string() && v["log_list_timestamp"].is_string());
    let ops = v["operators"].as_array().unwrap();
    assert_eq!(ops.len(), real_ops.len(), "one operator per real operator");
    let mut n = 0;
    for o in ops {
        assert!(o["name"].as_str().unwrap().ends_with(" (certbench mirror)"));
        assert!(o["email"].is_array());
        for l in o["logs"].as_array().unwrap() {
            let key = unbase64(l["key"].as_str().unwrap());
            let id = unbase64(l["log_id"].as_str().unwrap());
            assert_eq!(
                id,
                Sha256::digest(&key).to_vec(),
                "LogID = SHA-256 of the SPKI"
            );
            let (_, spki) = x509_parser::x509::SubjectPublicKeyInfo::from_der(&key).unwrap();
            assert!(
                matches!(spki.parsed(), Ok(x509_parser::public_key::PublicKey::EC(p)) if p.key_size() == 256)
            );
            assert!(
                l["description"]
                    .as_str()
                    .unwrap()
                    .ends_with(" (certbench mirror)")
            );
            assert_eq!(l["mmd"], 86400);
            assert!(l["url"].as_str().unwrap().starts_with("https://"));
            let since = l["state"]["usable"]["timestamp"].as_str().unwrap();
            assert!(since < v["log_list_timestamp"].as_str().unwrap(), "{since}");
            n += 1;
        }
    }
    assert_eq!((n, set.ct_logs.logs().len()), (28, 28));
    for id in &real_logs {
        let id: [u8; 32] = id.as_slice().try_into().unwrap();
        assert!(set.ct_logs.mirror_of(&id).is_some());
    }
}

/// A 90-day leaf for `ct.mirror.test` under a fresh P-256 CA, with `specs`' SCTs; and the CA's
/// SPKI.
fn fixture_leaf(specs: &[SctSpec<'_>]) -> Result<(CertificateDer<'static>, Vec<u8>), CtError> {
    let ca_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let mut ca = CertificateParams::default();
    ca.distinguished_name
        .push(DnType::CommonName, "ct fixture CA");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let issuer = Issuer::new(ca, &ca_key);
    let leaf_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let mut p = CertificateParams::new(vec!["ct.mirror.test".to_owned()]).unwrap();
    p.not_before = time::OffsetDateTime::now_utc() - time::Duration::days(1);
    p.not_after = p.not_before + time::Duration::days(90);
    let cert = issue_with_scts(&p, &leaf_key, &issuer, specs)?;
    Ok((cert.der().clone(), ca_key.subject_public_key_info()))
}

#[test]
fn the_sct_fixture_makes_valid_corrupted_and_unknown_log_scts() {
    let set = set();
    let logs = list_logs(&set.ct_log_list);
    let a = &set.ct_logs.logs()[0];
    let b = (set.ct_logs.logs().iter())
        .find(|l| l.operator != a.operator)
        .unwrap();
    let unknown = MirrorLog::generate("unknown log", "nobody").unwrap();
    let spec = |log, corrupt_signature| SctSpec {
        log,
        timestamp_ms: now() * 1000,
        extensions: Vec::new(),
        corrupt_signature,
    };
    let ids = |checked: &[(Vec<u8>, Result<bool, String>)]| -> Vec<Vec<u8>> {
        checked.iter().map(|(id, _)| id.clone()).collect()
    };

    let (leaf, ca) = fixture_leaf(&[spec(a, false), spec(b, false)]).unwrap();
    let checked = check_scts(&leaf, &ca, &logs);
    assert_eq!(ids(&checked), [a.log_id().to_vec(), b.log_id().to_vec()]);
    assert!(checked.iter().all(|(_, ok)| ok == &Ok(true)), "{checked:?}");

    let (leaf, ca) = fixture_leaf(&[spec(a, false), spec(b, true)]).unwrap();
    let checked = check_scts(&leaf, &ca, &logs);
    assert_eq!(
        (&checked[0].1, &checked[1].1),
        (&Ok(true), &Ok(false)),
        "b's is corrupted"
    );
    // The certificate's own signature still verifies: only the SCT is spoilt.
    let (_, x) = X509Certificate::from_der(&leaf).unwrap();
    let (_, ca_spki) = x509_parser::x509::SubjectPublicKeyInfo::from_der(&ca).unwrap();
    let ok = webpki::aws_lc_rs::ECDSA_P256_SHA256.verify_signature(
        &ca_spki.subject_public_key.data,
        x.tbs_certificate.as_ref(),
        &x.signature_value.data,
    );
    assert!(ok.is_ok());

    let (leaf, ca) = fixture_leaf(&[spec(a, false), spec(&unknown, false)]).unwrap();
    let checked = check_scts(&leaf, &ca, &logs);
    assert_eq!(checked[0].1, Ok(true));
    assert_eq!(checked[1].0, unknown.log_id().to_vec());
    assert!(checked[1].1.is_err(), "not a log of the mirror's list");
    let mut with_unknown = logs.clone();
    let (_, key) = x509_parser::x509::SubjectPublicKeyInfo::from_der(unknown.spki_der()).unwrap();
    let entry = (
        key.subject_public_key.data.to_vec(),
        String::new(),
        String::new(),
    );
    with_unknown.insert(unknown.log_id().to_vec(), entry);
    assert_eq!(
        check_scts(&leaf, &ca, &with_unknown)[1].1,
        Ok(true),
        "yet signed by it"
    );

    let (leaf, ca) = fixture_leaf(&[spec(a, false)]).unwrap();
    assert_eq!(
        check_scts(&leaf, &ca, &logs).len(),
        1,
        "one SCT on a 90-day leaf"
    );
    assert!(matches!(fixture_leaf(&[]), Err(CtError::NoScts)));
}

#[test]
fn an_sct_the_mirror_cannot_mint_fails_its_chain_not_the_process() {
    let root_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let mut root = CertificateParams::default();
    root.distinguished_name.push(DnType::CommonName, "root");
    root.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let root_der = root.self_signed(&root_key).unwrap().der().clone();
    let issuer = Issuer::new(root, &root_key);
    let leaf_with = |list: &[u8]| {
        let mut p = CertificateParams::new(vec!["a.test".to_owned()]).unwrap();
        let sct_oid = [1, 3, 6, 1, 4, 1, 11129, 2, 4, 2];
        p.custom_extensions
            .push(CustomExtension::from_oid_content(&sct_oid, der(0x04, list)));
        let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        p.signed_by(&key, &issuer).unwrap().der().clone()
    };
    // One SCT signed with RSA (signature algorithm 1).
    let mut sct = vec![0u8];
    sct.extend([7; 32]);
    sct.extend(1_700_000_000_000u64.to_be_bytes());
    sct.extend([0, 0, 4, 1, 0, 2, 0xab, 0xcd]);
    let mut list = ((sct.len() + 2) as u16).to_be_bytes().to_vec();
    list.extend((sct.len() as u16).to_be_bytes());
    list.extend(&sct);
    let err = Cloner::new()
        .clone_chain(&[leaf_with(&list)], &root_der, 0)
        .err();
    assert!(
        matches!(
            err,
            Some(CloneError::Ct(CtError::Unsupported {
                hash: 4,
                signature: 1,
                ..
            }))
        ),
        "{err:?}"
    );
    let err = Cloner::new()
        .clone_chain(&[leaf_with(&[0, 1, 2])], &root_der, 0)
        .err();
    assert!(
        matches!(err, Some(CloneError::Ct(CtError::Parse(_)))),
        "{err:?}"
    );
}
