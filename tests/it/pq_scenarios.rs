//! The twins' scenarios (docs/pq.md): SCTs from ML-DSA-44 logs keep their count,
//! carry 2,420-byte signatures and verify as ML-DSA-44 under `--ct`'s check; trimmed chains
//! are the leaf and its issuer; `verify --pq mldsa44` measures every scenario with today's
//! verdicts, a trimmed twin smaller and a pq-SCT twin larger by what the SCTs say.

use certbench::certs::twin::twins_in;
use certbench::pq::Profile;
use certbench::pq::scenario::{ChainShape, Scenario, Scts, TwinSet};
use certbench_core::ct::check::verify_signature;
use certbench_core::methods::Method;
use certbench_core::methods::rustls_serial::signature_algorithms;
use certbench_schema::Sample;
use x509_parser::prelude::{FromDer, ParsedExtension, X509Certificate};

use crate::common::corpus;
use crate::pq::verify_pq;

const PQ_SCTS: Scenario = Scenario {
    chain: ChainShape::Served,
    scts: Scts::Pq,
};
const TRIMMED: Scenario = Scenario {
    chain: ChainShape::Trimmed,
    scts: Scts::Classical,
};

/// Each embedded SCT of `leaf`: (hash, signature algorithm, signature length).
fn scts(leaf: &[u8]) -> Vec<(u8, u8, usize)> {
    let (_, x) = X509Certificate::from_der(leaf).unwrap();
    (x.extensions().iter())
        .find_map(|e| match e.parsed_extension() {
            ParsedExtension::SCT(list) => Some(
                (list.iter())
                    .map(|s| {
                        let sig = &s.signature;
                        (sig.hash_alg_id, sig.sign_alg_id, sig.data.len())
                    })
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn ml_dsa_scts_keep_their_count_and_verify_as_ml_dsa_44() {
    let corpus = corpus();
    let today = twins_in(&corpus, TwinSet::new(Profile::MlDsa44, Scenario::AS_SERVED));
    let pq = twins_in(&corpus, TwinSet::new(Profile::MlDsa44, PQ_SCTS));
    assert!(pq.failures.is_empty(), "{:?}", pq.failures);
    let mut with_scts = 0;
    for (a, b) in today.chains.iter().zip(&pq.chains) {
        let (a, b) = (scts(&a.chain.leaf), scts(&b.chain.leaf));
        assert_eq!(a.len(), b.len(), "the SCT count is kept (the list parses)");
        with_scts += usize::from(!b.is_empty());
        assert!(a.iter().all(|&(h, s, _)| (h, s) == (4, 3)));
        assert!(b.iter().all(|&s| s == (9, 4, 2420)), "{b:?}");
    }
    assert!(with_scts >= 20, "{with_scts} corpus leaves carry SCTs");
    // The ML-DSA-44 signature as `--ct` checks an SCT's: with rustls' provider.
    let key =
        aws_lc_rs::signature::PqdsaKeyPair::generate(&aws_lc_rs::signature::ML_DSA_44_SIGNING)
            .unwrap();
    use aws_lc_rs::encoding::AsDer;
    use aws_lc_rs::signature::KeyPair;
    let spki = key.public_key().as_der().unwrap().as_ref().to_vec();
    let log = certbench_core::ct::CtLog {
        id: certbench_core::ct::sha256(&spki),
        key: spki,
        operator: "op".into(),
        description: "an ML-DSA-44 log".into(),
        state: certbench_core::ct::LogState::Admissible,
    };
    let signed = b"the entry an SCT signs";
    let mut signature = vec![0; 2420];
    key.sign(signed, &mut signature).unwrap();
    let mut flipped = signature.clone();
    flipped[100] ^= 1;
    let sct = |hash, signature_alg, signature| certbench_core::ct::sct::Sct {
        encoded: &[],
        log_id: log.id,
        timestamp_ms: 0,
        extensions: &[],
        hash,
        signature_alg,
        signature,
    };
    let algs = signature_algorithms();
    assert!(verify_signature(algs, &log, &sct(9, 4, &signature), signed));
    assert!(!verify_signature(
        algs,
        &log,
        &sct(4, 3, &signature),
        signed
    ));
    assert!(!verify_signature(algs, &log, &sct(9, 4, &flipped), signed));
}

/// Every sample of `method` in `set`, in chain order.
fn of(samples: &[Sample], method: Method, set: Option<Scenario>) -> Vec<&Sample> {
    let profile = match set {
        Some(_) => certbench_schema::Profile::MlDsa44,
        None => certbench_schema::Profile::Classical,
    };
    (samples.iter())
        .filter(|s| s.method == method.name() && s.config.profile == Some(profile.into()))
        .filter(|s| s.config.scenario == set)
        .collect()
}

#[test]
fn verify_pq_measures_every_scenario_with_todays_verdicts_and_their_bytes() {
    let methods = vec![Method::RustlsSerial, Method::AwsLc];
    let (plan, samples) = verify_pq(vec![Profile::MlDsa44], Scenario::all(), methods.clone());
    assert_eq!(plan.twins.len(), 4, "one set per scenario");
    let chains = plan.corpus.chains.len();
    assert_eq!(samples.len(), chains * 5 * methods.len());
    for &m in &methods {
        let today = of(&samples, m, None);
        assert_eq!(today.len(), chains);
        let sets: Vec<Vec<&Sample>> = (Scenario::all().into_iter())
            .map(|s| of(&samples, m, Some(s)))
            .collect();
        for (scenario, twins) in Scenario::all().iter().zip(&sets) {
            assert_eq!(twins.len(), chains, "{m} {scenario}");
            for (t, c) in twins.iter().zip(&today) {
                assert_eq!(t.chain, c.chain);
                assert_eq!(t.verdict, c.verdict, "{m} {scenario} {:?}", c.chain);
            }
        }
        // Bytes: trimmed = served less the third and later certificates; pq-SCTs = served plus,
        // per SCT, 2,420 B less the ECDSA signature it replaces (and the DER lengths' bytes).
        let (served, pq, trimmed) = (
            of(&samples, m, Some(Scenario::AS_SERVED)),
            of(&samples, m, Some(PQ_SCTS)),
            of(&samples, m, Some(TRIMMED)),
        );
        let mut smaller = 0;
        for (i, c) in plan.corpus.chains.iter().enumerate() {
            let bytes = |s: &Sample| s.meta.chain_bytes.unwrap() as i64;
            let longer = c.chain.len() > 2;
            smaller += usize::from(longer);
            match longer {
                true => assert!(bytes(trimmed[i]) < bytes(served[i]) - 3_700, "{}", c.id),
                false => assert!(
                    (bytes(trimmed[i]) - bytes(served[i])).abs() < 16,
                    "{}",
                    c.id
                ),
            }
            let real = scts(&c.chain.leaf);
            let expected: i64 = real.iter().map(|&(_, _, sig)| 2420 - sig as i64).sum();
            let more = bytes(pq[i]) - bytes(served[i]);
            assert!(
                (more - expected).abs() <= 8 + 2 * real.len() as i64,
                "{}: {more} B more, expected {expected}",
                c.id
            );
        }
        assert!(smaller >= 4, "{smaller} chains of three or more");
    }
}
