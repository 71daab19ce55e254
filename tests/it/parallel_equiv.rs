//! Property: on any mutation of a real chain — bits flipped, certificates cut, dropped,
//! repeated, swapped or borrowed from another chain, another host, another time —
//! `rustlsparallel` gives exactly `rustlsserial`'s verdict, reason included.

use std::sync::OnceLock;

use certbench_core::chain::Chain;
use certbench_core::corpus::Corpus;
use certbench_core::methods::Method;
use certbench_core::methods::{AnyRoots, DynVerifier};
use certbench_core::stages::Recorder;
use certbench_core::verifier::Target;
use proptest::prelude::*;
use proptest::sample::Index;
use rustls_pki_types::CertificateDer;

struct Fixture {
    corpus: Corpus,
    serial: (Box<dyn DynVerifier>, AnyRoots),
    parallel: (Box<dyn DynVerifier>, AnyRoots),
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let corpus = crate::common::corpus();
        let roots = corpus.roots();
        let build = |m: Method| {
            let v = m.verifier();
            let r = v.build_roots(&roots).unwrap();
            (v, r)
        };
        Fixture {
            serial: build(Method::RustlsSerial),
            parallel: build(Method::RustlsParallel),
            corpus,
        }
    })
}

#[derive(Clone, Debug)]
enum Mutation {
    FlipBit {
        cert: Index,
        byte: Index,
        bit: u8,
    },
    Truncate {
        cert: Index,
        keep: Index,
    },
    Drop {
        cert: Index,
    },
    Repeat {
        cert: Index,
    },
    Swap {
        a: Index,
        b: Index,
    },
    Borrow {
        cert: Index,
        from_chain: Index,
        from_cert: Index,
    },
    Host {
        from_chain: Index,
    },
    Time {
        shift_days: i32,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<Index>(), any::<Index>(), 0u8..8)
            .prop_map(|(cert, byte, bit)| Mutation::FlipBit { cert, byte, bit }),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(cert, keep)| Mutation::Truncate { cert, keep }),
        1 => any::<Index>().prop_map(|cert| Mutation::Drop { cert }),
        1 => any::<Index>().prop_map(|cert| Mutation::Repeat { cert }),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Swap { a, b }),
        2 => (any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(cert, from_chain, from_cert)| Mutation::Borrow { cert, from_chain, from_cert }),
        1 => any::<Index>().prop_map(|from_chain| Mutation::Host { from_chain }),
        1 => (-4000i32..4000).prop_map(|shift_days| Mutation::Time { shift_days }),
    ]
}

/// Applies `muts` to a chain (leaf first), keeping at least one certificate.
fn apply(
    certs: &mut Vec<Vec<u8>>,
    host: &mut String,
    time: &mut u64,
    muts: &[Mutation],
    corpus: &Corpus,
) {
    for m in muts {
        let n = certs.len();
        match m {
            Mutation::FlipBit { cert, byte, bit } => {
                let c = &mut certs[cert.index(n)];
                if !c.is_empty() {
                    let i = byte.index(c.len());
                    c[i] ^= 1 << bit;
                }
            }
            Mutation::Truncate { cert, keep } => {
                let c = &mut certs[cert.index(n)];
                let len = keep.index(c.len() + 1);
                c.truncate(len);
            }
            Mutation::Drop { cert } if n > 1 => {
                certs.remove(cert.index(n));
            }
            Mutation::Drop { .. } => {}
            Mutation::Repeat { cert } => {
                let c = certs[cert.index(n)].clone();
                certs.push(c);
            }
            Mutation::Swap { a, b } => certs.swap(a.index(n), b.index(n)),
            Mutation::Borrow {
                cert,
                from_chain,
                from_cert,
            } => {
                let other = &corpus.chains[from_chain.index(corpus.chains.len())];
                let pool: Vec<&CertificateDer<'static>> =
                    other.chain.iter().chain(other.roots.iter()).collect();
                certs[cert.index(n)] = pool[from_cert.index(pool.len())].to_vec();
            }
            Mutation::Host { from_chain } => {
                *host = corpus.chains[from_chain.index(corpus.chains.len())]
                    .host
                    .clone();
            }
            Mutation::Time { shift_days } => {
                *time = time.saturating_add_signed(i64::from(*shift_days) * 86_400);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn rustlsparallel_gives_rustlsserial_verdict_on_mutated_corpus_chains(
        chain in any::<Index>(),
        muts in proptest::collection::vec(mutation(), 0..5),
    ) {
        let f = fixture();
        let c = &f.corpus.chains[chain.index(f.corpus.chains.len())];
        let mut certs: Vec<Vec<u8>> = c.chain.iter().map(|d| d.to_vec()).collect();
        let (mut host, mut time) = (c.host.clone(), c.validation_time);
        apply(&mut certs, &mut host, &mut time, &muts, &f.corpus);
        let mut it = certs.into_iter().map(CertificateDer::from);
        let chain = Chain { leaf: it.next().unwrap(), intermediates: it.collect() };
        let target = Target::server(&host, time);
        let verdict = |(v, r): &(Box<dyn DynVerifier>, AnyRoots)| {
            v.verify(r, &chain, target, &mut Recorder::new())
        };
        let before = crate::common::force_overlap();
        prop_assert_eq!(verdict(&f.serial), verdict(&f.parallel));
        // Wherever path building was reached (the leaf parsed), the pool path ran.
        crate::common::assert_overlapped_since(before, 0, "mutated chain");
    }
}

/// The mutations are not all harmless: over a fixed set of cases, some mutated chains are
/// still accepted and several distinct rejection reasons occur (so the property above
/// compares more than one kind of verdict).
#[test]
fn the_mutations_reach_accepts_and_several_rejection_reasons() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let f = fixture();
    let mut runner = TestRunner::deterministic();
    let strategy = (any::<Index>(), proptest::collection::vec(mutation(), 0..3));
    let mut accepted = 0;
    let mut reasons = std::collections::BTreeSet::new();
    let before = crate::common::force_overlap();
    for _ in 0..300 {
        let (chain, muts) = strategy.new_tree(&mut runner).unwrap().current();
        let c = &f.corpus.chains[chain.index(f.corpus.chains.len())];
        let mut certs: Vec<Vec<u8>> = c.chain.iter().map(|d| d.to_vec()).collect();
        let (mut host, mut time) = (c.host.clone(), c.validation_time);
        apply(&mut certs, &mut host, &mut time, &muts, &f.corpus);
        let mut it = certs.into_iter().map(CertificateDer::from);
        let chain = Chain {
            leaf: it.next().unwrap(),
            intermediates: it.collect(),
        };
        let target = Target::server(&host, time);
        let (v, r) = &f.serial;
        let serial = v.verify(r, &chain, target, &mut Recorder::new());
        let (pv, pr) = &f.parallel;
        assert_eq!(pv.verify(pr, &chain, target, &mut Recorder::new()), serial);
        match serial {
            Ok(()) => accepted += 1,
            Err(e) => {
                reasons.insert(e.reason.split(['(', ' ']).next().unwrap().to_owned());
            }
        }
    }
    assert!(accepted >= 20, "{accepted} accepted");
    // Half the mutated chains or more still reach path building: there, the pool path ran.
    let paths = crate::common::assert_overlapped_since(before, 150, "300 mutated chains");
    eprintln!("rustlsparallel paths: {paths:?}");
    eprintln!("{accepted} of 300 accepted; reasons: {reasons:?}");
    assert!(reasons.len() >= 5, "{reasons:?}");
}
