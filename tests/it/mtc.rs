//! Merkle Tree Certificates (`--pq mtc`): certbench's MTC CA issues every corpus leaf into one
//! log, and the `mtc` method accepts a valid landmark-relative certificate and rejects what
//! draft-ietf-plants-merkle-tree-certs-07 §7.2 rejects: a changed proof hash, a changed
//! certificate, a subtree the client does not hold (where the standalone certificate, the
//! draft's fallback, is accepted), a bad cosignature, an expired certificate, another host.
//! The `mtcs` crate, an independent relying party, accepts the same certificates; `verify --pq
//! mtc` gives every twin its chain's verdict.

use certbench::certs::mtc::ca_cert::ca_certificate;
use certbench::certs::mtc::issue::{CA_ID, MIRROR_ID, MtcBatch, issue};
use certbench::pq::Profile;
use certbench::pq::scenario::Scenario;
use certbench_core::corpus::Corpus;
use certbench_core::methods::Method;
use certbench_core::mtc::cert::MtcCert;
use certbench_core::mtc::trust::CaTrust;
use certbench_core::roots::RootSet;
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use certbench_schema::{Profile as SchemaProfile, Verdict};
use rcgen::PublicKeyData;
use rustls_pki_types::CertificateDer;

use crate::common::corpus;
use crate::pq::verify_pq;

fn batch(corpus: &Corpus) -> MtcBatch {
    let templates: Vec<&[u8]> = corpus
        .chains
        .iter()
        .map(|c| c.chain.leaf.as_ref())
        .collect();
    issue(&templates).expect("the batch issues")
}

/// `mtc` on `leaf` under a store of `ca`, for `host` at `time`.
fn verdict(
    ca: &CertificateDer<'static>,
    leaf: &CertificateDer<'static>,
    host: &str,
    time: u64,
) -> Result<(), String> {
    let v = Method::Mtc.verifier();
    let store = v.build_roots(std::slice::from_ref(ca)).unwrap();
    let chain = certbench_core::chain::Chain {
        leaf: leaf.clone(),
        intermediates: vec![],
    };
    let mut rec = Recorder::new();
    v.verify(&store, &chain, Target::server(host, time), &mut rec)
        .map_err(|r| r.reason)
}

/// `der` with the bytes `from` (found once) replaced by `to`, of the same length.
fn replaced(der: &[u8], from: &[u8], to: &[u8]) -> CertificateDer<'static> {
    let at = (0..=der.len() - from.len())
        .find(|&i| &der[i..i + from.len()] == from)
        .expect("found");
    let mut out = der.to_vec();
    out[at..at + from.len()].copy_from_slice(to);
    CertificateDer::from(out)
}

#[test]
fn landmark_relative_certificates_verify_and_the_draft_rejections_reject() {
    let corpus = corpus();
    let b = batch(&corpus);
    let c = corpus
        .chains
        .iter()
        .find(|c| c.host == "reddit.com")
        .unwrap();
    let i = corpus.chains.iter().position(|x| x.id == c.id).unwrap();
    let leaf = &b.leaves[i];
    let (host, time) = (c.host.as_str(), c.validation_time);
    assert_eq!(
        verdict(&b.ca_certificate, &leaf.landmark_relative, host, time),
        Ok(())
    );
    // Signatureless: no cosignature, an inclusion proof as long as the draft's estimate.
    let parsed = MtcCert::parse(&leaf.landmark_relative).unwrap();
    assert!(parsed.proof.signatures.is_empty());
    assert!(
        (15..=26).contains(&parsed.proof.inclusion.len()),
        "{}",
        parsed.proof.inclusion.len()
    );

    // A flipped hash in the inclusion proof.
    let h = parsed.proof.inclusion[3];
    let mut flipped = h;
    flipped[7] ^= 0x20;
    let bad = replaced(&leaf.landmark_relative, &h, &flipped);
    let e = verdict(&b.ca_certificate, &bad, host, time).unwrap_err();
    assert!(e.contains("does not hash to the trusted subtree"), "{e}");

    // A changed certificate (its subject's key, hashed into the entry): the entry's hash moves.
    let spki_tail = &leaf.landmark_relative[200..216];
    let mut other = spki_tail.to_vec();
    other[0] ^= 1;
    let bad = replaced(&leaf.landmark_relative, spki_tail, &other);
    assert!(verdict(&b.ca_certificate, &bad, host, time).is_err());

    // Expired, and not yet valid.
    let (nb, na) = certbench_core::der::validity(&leaf.landmark_relative).unwrap();
    let e = verdict(&b.ca_certificate, &leaf.landmark_relative, host, na + 1).unwrap_err();
    assert!(e.contains("not valid at"), "{e}");
    assert!(verdict(&b.ca_certificate, &leaf.landmark_relative, host, nb - 1).is_err());

    // Another host.
    let e = verdict(
        &b.ca_certificate,
        &leaf.landmark_relative,
        "example.org",
        time,
    )
    .unwrap_err();
    assert!(!e.is_empty());

    // A client that does not hold the landmark: the landmark-relative certificate is
    // rejected, the standalone one (the CA's and the mirror's cosignatures) accepted: the
    // draft's fallback.
    let old = &b.ca_certificate_without_landmarks;
    let e = verdict(old, &leaf.landmark_relative, host, time).unwrap_err();
    assert!(e.contains("is not trusted"), "{e}");
    assert_eq!(verdict(old, &leaf.standalone, host, time), Ok(()));
    assert_eq!(
        verdict(&b.ca_certificate, &leaf.standalone, host, time),
        Ok(())
    );

    // A standalone certificate with a bad cosignature.
    let sig = MtcCert::parse(&leaf.standalone).unwrap().proof.signatures[0]
        .signature
        .to_vec();
    let mut bad_sig = sig.clone();
    bad_sig[100] ^= 1;
    let bad = replaced(&leaf.standalone, &sig, &bad_sig);
    let e = verdict(old, &bad, host, time).unwrap_err();
    assert!(e.contains("cosignature"), "{e}");

    // No CA at all: an unknown CA; an X.509 chain: unsupported, never verified.
    let root = &c.roots[0];
    assert!(
        verdict(root, &leaf.landmark_relative, host, time)
            .unwrap_err()
            .contains("unknown")
    );
    let caps = Method::Mtc.verifier().capabilities();
    assert!(caps.unsupported(&c.chain).is_some());
    let rustls = Method::RustlsSerial.verifier().capabilities();
    let twin = certbench_core::chain::Chain {
        leaf: leaf.landmark_relative.clone(),
        intermediates: vec![],
    };
    assert_eq!(
        rustls.unsupported(&twin).map(|u| u.to_string()).as_deref(),
        Some("unsupported algorithm: MTC proof (Merkle Tree Certificate)")
    );
}

#[test]
fn a_standalone_certificate_needs_two_ml_dsa_44_cosignatures_as_chrome_requires() {
    let corpus = corpus();
    let b = batch(&corpus);
    let (i, c) = (corpus.chains.iter().enumerate())
        .find(|(_, c)| c.host == "github.com")
        .unwrap();
    let (leaf, host, time) = (&b.leaves[i], c.host.as_str(), c.validation_time);
    // A client without the landmark: standalone certificates only.
    let old = &b.ca_certificate_without_landmarks;
    let two = MtcCert::parse(&leaf.standalone).unwrap();
    let ids: Vec<&[u8]> = two.proof.signatures.iter().map(|s| s.cosigner_id).collect();
    assert_eq!(
        ids,
        [CA_ID, MIRROR_ID],
        "the CA's and the mirror's, in §6.1's order"
    );
    assert_eq!(verdict(old, &leaf.standalone, host, time), Ok(()));
    // The CA's cosignature alone, as a single-cosigner CA issues it: Chrome's rule says no.
    let e = verdict(old, &leaf.standalone_ca_only, host, time).unwrap_err();
    assert_eq!(
        e,
        "1 valid cosignature(s) from the CA's cosigners; Chrome requires 2"
    );
    // A relying party that knows the mirror by another key: its cosignature does not verify.
    let other = rcgen::KeyPair::generate_for(&rcgen::PKCS_ML_DSA_44).unwrap();
    let ca = ca_certificate(&b.cosigner_spki, &other.subject_public_key_info(), &[]).unwrap();
    let e = verdict(&ca, &leaf.standalone, host, time).unwrap_err();
    assert!(e.contains("does not verify"), "{e}");
    // A mirror cosigner with an ECDSA key: not a cosigner Chrome accepts.
    let ecdsa = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let ca = ca_certificate(&b.cosigner_spki, &ecdsa.subject_public_key_info(), &[]).unwrap();
    let e = verdict(&ca, &leaf.standalone, host, time).unwrap_err();
    assert!(e.contains("not ML-DSA-44"), "{e}");
    // A landmark-relative certificate carries none and needs none.
    assert_eq!(
        verdict(&b.ca_certificate, &leaf.landmark_relative, host, time),
        Ok(())
    );
}

#[test]
fn the_34_chains_fall_back_more_often_the_staler_the_clients_landmarks() {
    use certbench::certs::mtc::log::LANDMARK_HOURS;
    use certbench_core::mtc::stale::fallback_share;
    // Each real leaf's age at its chain's validation time, in hours.
    let ages: Vec<f64> = (corpus().chains.iter())
        .map(|c| {
            let (not_before, _) = certbench_core::der::validity(&c.chain.leaf).unwrap();
            (c.validation_time as f64 - not_before as f64) / 3600.0
        })
        .collect();
    let share =
        |stale_hours: f64| fallback_share(&ages, stale_hours, LANDMARK_HOURS as f64).unwrap();
    let shares: Vec<f64> = [0.0, 1.0, 24.0, 168.0, 47.0 * 24.0, 1e6]
        .map(share)
        .to_vec();
    assert_eq!(
        shares[0], 0.0,
        "a client up to the minute holds every landmark"
    );
    assert_eq!(shares[5], 1.0, "a client a century behind holds none");
    assert!(shares.windows(2).all(|w| w[0] <= w[1]), "{shares:?}");
    // A week behind: the leaves issued within the week fall back, and some are older.
    assert!(shares[3] < 1.0, "{shares:?}");
}

#[test]
fn the_mtcs_crate_accepts_certbenchs_certificates() {
    let corpus = corpus();
    let b = batch(&corpus);
    let ca_id = mtcs::TrustAnchorId::from_binary(CA_ID).unwrap();
    let cosigner = mtcs::CosignerInfo {
        id: ca_id.clone(),
        algorithm: mtcs::SignatureAlgorithm::MlDsa44,
        spki_der: b.cosigner_spki.clone(),
    };
    let mut with_landmarks = mtcs::CaTrust::new(ca_id.clone(), cosigner.clone());
    for s in &b.subtrees {
        with_landmarks.trust_subtree(mtcs::TrustedSubtree {
            log_number: s.log_number,
            start: s.start,
            end: s.end,
            hash: s.hash,
        });
    }
    let (mut store, mut bare) = (mtcs::TrustStore::new(), mtcs::TrustStore::new());
    store.add_ca(with_landmarks);
    bare.add_ca(mtcs::CaTrust::new(ca_id, cosigner));
    // The CA certificate reads under mtcs too (its subject, key and MTC CA extension).
    mtcs::CaTrust::from_ca_certificate(&b.ca_certificate).expect("mtcs reads the CA certificate");
    for (c, leaf) in corpus.chains.iter().zip(&b.leaves) {
        let t = c.validation_time as i64;
        let v = mtcs::verify_certificate(&store, &leaf.landmark_relative, t)
            .unwrap_or_else(|e| panic!("{}: {e}", c.id));
        assert_eq!(v.kind, mtcs::VerificationKind::LandmarkRelative, "{}", c.id);
        assert_eq!(v.entry_index, leaf.index);
        let v = mtcs::verify_certificate(&bare, &leaf.standalone, t)
            .unwrap_or_else(|e| panic!("{}: {e}", c.id));
        assert_eq!(v.kind, mtcs::VerificationKind::Standalone, "{}", c.id);
        assert!(mtcs::verify_certificate(&bare, &leaf.landmark_relative, t).is_err());
    }
}

#[test]
fn verify_pq_mtc_gives_every_twin_its_chains_verdict() {
    let (plan, samples) = verify_pq(
        vec![Profile::Mtc],
        Scenario::all(),
        vec![Method::RustlsSerial, Method::Mtc],
    );
    let of = |m: Method, p: SchemaProfile| -> Vec<_> {
        (samples.iter())
            .filter(|s| s.method == m.name() && s.config.profile == Some(p.into()))
            .collect()
    };
    let today = of(Method::RustlsSerial, SchemaProfile::Classical);
    let twins = of(Method::Mtc, SchemaProfile::Mtc);
    assert_eq!((today.len(), twins.len()), (34, 34));
    for ((t, c), chain) in twins.iter().zip(&today).zip(&plan.corpus.chains) {
        assert_eq!(t.chain, c.chain);
        // The chain's verdict (the manifest's: every browser's): every twin's equals it.
        let valid = chain.expected.valid.expect("the manifest records it");
        assert_eq!(t.verdict.is_ok(), valid, "{:?}: {:?}", c.chain, t.verdict);
        // rustlsserial's equals it but where rustls-webpki refuses the intermediate's
        // DirectoryName constraints, which an MTC, with no intermediate, does not carry.
        if c.verdict.is_ok() != t.verdict.is_ok() {
            assert_eq!(t.chain.as_deref(), Some("udctest.ads.vt.edu__go-x509"));
        }
    }
    for s in of(Method::RustlsSerial, SchemaProfile::Mtc) {
        assert!(
            matches!(&s.verdict, Verdict::Unsupported(w) if w.contains("MTC proof")),
            "{:?}",
            s.verdict
        );
    }
    for s in of(Method::Mtc, SchemaProfile::Classical) {
        assert!(
            matches!(&s.verdict, Verdict::Unsupported(w) if w.contains("signed X.509")),
            "{:?}",
            s.verdict
        );
    }
}

#[test]
fn a_client_names_its_landmark_and_a_stale_one_gets_the_standalone_certificate() {
    // The MTC set's CA as a client up to date holds it, and as one whose landmarks are stale.
    let set = crate::pq::pq_set(Profile::Mtc);
    let fresh = (set.roots.iter())
        .find(|r| CaTrust::from_ca_certificate(r).is_ok())
        .unwrap()
        .clone();
    let t = CaTrust::from_ca_certificate(&fresh).unwrap();
    assert!(!t.subtrees.is_empty() && t.cosigners.len() == 1);
    let spki = |contents: &[u8]| {
        let mut der = Vec::new();
        certbench_core::der::push_tlv(&mut der, 0x30, contents);
        der
    };
    let stale = ca_certificate(&spki(&t.cosigner_spki), &spki(&t.cosigners[0].spki), &[]).unwrap();
    let how = (certbench_schema::Transport::Rustls, None);
    let sites = "github.com\nreddit.com\n";
    let run = |ca: &CertificateDer<'static>| {
        let roots = RootSet::from_certs("mtc", vec![ca.clone()]);
        crate::pq::drive_pq_trusting(
            Some(roots),
            how,
            &[Method::Mtc],
            sites,
            &[Profile::Mtc],
            1,
            None,
        )
    };
    let (up_to_date, behind) = (run(&fresh), run(&stale));
    for site in ["github.com", "reddit.com"] {
        let of = |samples: &[certbench_schema::Sample]| {
            let s = samples.iter().find(|s| s.site == site).unwrap().clone();
            assert_eq!(s.verdict, Verdict::Ok, "{site}: {s:?}");
            s
        };
        let (a, b) = (of(&up_to_date), of(&behind));
        // The landmark-relative certificate carries no signature; the standalone one two
        // ML-DSA-44 cosignatures (2,420 B each) with their IDs and lengths.
        let (small, large) = (a.meta.chain_bytes.unwrap(), b.meta.chain_bytes.unwrap());
        assert!(
            large >= small + 2 * 2420,
            "{site}: {small} B against {large} B"
        );
        let (fa, fb) = (
            a.meta.first_flight_bytes.unwrap(),
            b.meta.first_flight_bytes.unwrap(),
        );
        assert!(
            fb > fa + 2 * 2420,
            "{site}: a first flight of {fa} B against {fb} B"
        );
    }
}

#[test]
fn the_mirror_serves_each_site_its_mtc_alone_and_rustls_completes_the_handshake() {
    let methods = [Method::RustlsSerial, Method::Mtc];
    let profiles = [Profile::Classical, Profile::MlDsa44, Profile::Mtc];
    let sites = "github.com\nreddit.com\n";
    let samples = crate::pq::drive_pq(&methods, sites, &profiles, 1, None);
    assert_eq!(samples.len(), 2 * methods.len() * profiles.len());
    let flight = |site: &str, m: Method, p: SchemaProfile| {
        let s = (samples.iter())
            .find(|s| s.site == site && s.method == m.name() && s.config.profile == Some(p.into()))
            .unwrap();
        (
            s.verdict.clone(),
            s.meta.first_flight_bytes,
            s.meta.chain_bytes,
        )
    };
    for site in ["github.com", "reddit.com"] {
        let (v, mtc_flight, mtc_chain) = flight(site, Method::Mtc, SchemaProfile::Mtc);
        assert_eq!(v, Verdict::Ok, "{site}");
        let (v, mldsa_flight, mldsa_chain) =
            flight(site, Method::RustlsSerial, SchemaProfile::MlDsa44);
        assert_eq!(v, Verdict::Ok, "{site}");
        // The MTC alone: a few KB (an ML-DSA-44 key and signature, a proof of hashes), well
        // under the ML-DSA-44 chain's first flight.
        let (mtc_flight, mldsa_flight) = (mtc_flight.unwrap(), mldsa_flight.unwrap());
        assert!(
            mtc_flight < mldsa_flight,
            "{site}: {mtc_flight} against {mldsa_flight}"
        );
        assert!(mtc_chain.unwrap() < mldsa_chain.unwrap() / 2, "{site}");
        let (v, _, _) = flight(site, Method::RustlsSerial, SchemaProfile::Mtc);
        assert!(
            matches!(v, Verdict::Unsupported(ref w) if w.contains("MTC proof")),
            "{v:?}"
        );
        let (v, _, _) = flight(site, Method::Mtc, SchemaProfile::Classical);
        assert!(
            matches!(v, Verdict::Unsupported(ref w) if w.contains("signed X.509")),
            "{v:?}"
        );
    }
}
